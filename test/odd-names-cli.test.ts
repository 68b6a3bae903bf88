import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, type Run } from "./support/lathe-cli.ts";

// Folders holding names and contents people really have, used through the `lathe` CLI.

const world = useCliWorld("lathe-names-");

function lathe(args: string[], input?: string): Promise<Run> {
  return world.lathe(args, { ...(input === undefined ? {} : { input }) });
}

describe("a project holding a plain file named .lathe (another tool's dotfile)", () => {
  beforeEach(async () => {
    await writeFile(path.join(world.root, ".lathe"), "another tool's settings\n");
    await writeFile(path.join(world.root, "notes.txt"), "one\n");
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
    expect(await readFile(path.join(world.root, ".lathe"), "utf8")).toBe("another tool's settings\n");
  });
});

describe("sidecars of glob and grep list one entry per line, whatever the names", () => {
  // 1,000 ordinary files push the results past glob's cap (1000) and grep's (200), so the whole
  // list goes to a sidecar, which the model reads with read, tail or grep, one line per entry.
  beforeEach(async () => {
    for (let i = 0; i < 1000; i++) await writeFile(path.join(world.root, `f${i}.txt`), "hit\n");
    await writeFile(path.join(world.root, "evil\nsecret.key"), "hit\n");
    await writeFile(path.join(world.root, '"quoted".txt'), "hit\n");
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
