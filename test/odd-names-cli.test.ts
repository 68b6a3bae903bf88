import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { envelopeOf, runLathe, type Run } from "./support/lathe-cli.ts";

// Folders holding names and contents people really have, used through the `lathe` CLI.

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-names-home-"));
  root = await mkdtemp(path.join(os.tmpdir(), "lathe-names-root-"));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

function lathe(args: string[], input?: string): Promise<Run> {
  return runLathe(args, { home, cwd: root, ...(input === undefined ? {} : { input }) });
}

describe("a project holding a plain file named .lathe (another tool's dotfile)", () => {
  beforeEach(async () => {
    await writeFile(path.join(root, ".lathe"), "another tool's settings\n");
    await writeFile(path.join(root, "notes.txt"), "one\n");
  });

  it.each([
    ["call", ["call", "read", '{"path":"notes.txt"}']],
    ["tools", ["tools", "--json"]],
    ["trust --dry-run", ["trust", "--dry-run"]],
  ])("lathe %s works as in a project without settings", async (_name, args) => {
    const run = await lathe(args);
    expect(run.stderr).not.toMatch(/ENOTDIR/);
    expect(run.code).toBe(0);
    if (args[0] === "call") expect(envelopeOf(run)).toMatchObject({ data: { content: "one\n" } });
    // The file is someone else's: nothing touched it.
    expect(await readFile(path.join(root, ".lathe"), "utf8")).toBe("another tool's settings\n");
  });
});

describe("sidecars of glob and grep list one entry per line, whatever the names", () => {
  // 1,000 ordinary files push the results past glob's cap (1000) and grep's (200), so the whole
  // list goes to a sidecar, which the model reads with read, tail or grep, one line per entry.
  beforeEach(async () => {
    for (let i = 0; i < 1000; i++) await writeFile(path.join(root, `f${i}.txt`), "hit\n");
    await writeFile(path.join(root, "evil\nsecret.key"), "hit\n");
    await writeFile(path.join(root, '"quoted".txt'), "hit\n");
  });

  it.each([
    ["glob", { pattern: "**" }, (line: string) => line],
    ["grep files", { pattern: "hit" }, (line: string) => line],
    [
      "grep content",
      { pattern: "hit", output_mode: "content" },
      (line: string) => line.replace(/:1:hit$/, ""),
    ],
    ["grep count", { pattern: "hit", output_mode: "count" }, (line: string) => line.replace(/:1$/, "")],
  ])("%s: a newline in a name does not forge a second entry", async (_name, args, pathOf) => {
    const envelope = envelopeOf(
      await lathe(["call", _name.split(" ")[0] as string, JSON.stringify(args), "--session", "s1"]),
    );
    expect(envelope.metadata.truncated).toBe(true);
    const lines = (await readFile(envelope.metadata.output_path as string, "utf8")).trimEnd().split("\n");
    const names = lines.map(pathOf).map((p) => (p.startsWith('"') ? (JSON.parse(p) as string) : p));
    expect(lines).toHaveLength(1002);
    expect(names).toContain("evil\nsecret.key");
    expect(names).toContain('"quoted".txt');
    expect(names).not.toContain("evil");
    expect(names).not.toContain("secret.key");
  });
});
