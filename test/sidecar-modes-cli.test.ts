import { chmod, mkdir, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// A truncated output's whole text goes to a sidecar file under $LATHE_HOME/sessions/<id>/sidecars/.
// It can be a secret (a .env read, a command's output), so, as the rest of $LATHE_HOME, only its
// owner may read it: folders 0700, files 0600. The model still reads it through `output_path`.

const world = useCliWorld("lathe-sidecar-", {
  setup: async () => {
    await writeFile(
      path.join(world.root, "big.txt"),
      Array.from({ length: 60_000 }, (_, i) => `line ${i}`).join("\n"),
    );
  },
});

const lathe = (args: string[]) => world.lathe([...args, "--session", "s1", "--mode", "yolo"]);
const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

describe.skipIf(process.platform === "win32")("sidecar files of truncated outputs", () => {
  it.each([
    ["bash, past the spawner's in-memory limit", "bash", { command: "seq 1 300000" }],
    [
      "grep with more matches than the model is shown",
      "grep",
      { pattern: "line", path: "big.txt", output_mode: "content" },
    ],
    ["read of a large file", "read", { path: "big.txt" }],
  ])("%s: folders 0700, the file 0600, and the model can read it back", async (_name, tool, args) => {
    const sessionDir = path.join(world.home, "sessions", "s1");
    // A folder an older Lathe left readable by others is narrowed too.
    await mkdir(path.join(sessionDir, "sidecars"), { recursive: true });
    await chmod(path.join(sessionDir, "sidecars"), 0o755);
    await chmod(sessionDir, 0o755);

    const envelope = envelopeOf(await lathe(["call", tool, JSON.stringify(args)]));
    const sidecar = envelope.metadata.output_path;
    expect(envelope.metadata.truncated).toBe(true);
    expect(sidecar).toBeDefined();
    expect(path.dirname(sidecar!)).toBe(path.join(sessionDir, "sidecars"));

    expect(await modeOf(sessionDir)).toBe(0o700);
    expect(await modeOf(path.join(sessionDir, "sidecars"))).toBe(0o700);
    for (const name of await readdir(path.join(sessionDir, "sidecars"))) {
      expect(await modeOf(path.join(sessionDir, "sidecars", name))).toBe(0o600);
    }

    // What the envelope tells the model to do still works: read it, and tail it with bash.
    const read = envelopeOf(
      await lathe(["call", "read", JSON.stringify({ path: sidecar, offset: 1, limit: 3 })]),
    );
    expect(read.type).toBe("output");
    const tail = envelopeOf(
      await lathe(["call", "bash", JSON.stringify({ command: `tail -n 1 ${sidecar}` })]),
    );
    expect(tail).toMatchObject({ type: "output", data: { exit_code: 0 } });
  });
});
