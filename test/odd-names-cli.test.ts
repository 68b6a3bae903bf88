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
