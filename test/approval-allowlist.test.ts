import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { Session } from "../src/main/engine/session/session.ts";

// Allowlist mode lets through, without asking, the calls whose approval a person listed ahead
// ("bash:git log*", "edit:docs/*"). An entry speaks for what it names and for nothing else: a
// bash line that only starts with an allowed command, or a path that only starts with an
// allowed folder, must still be asked about (headless: refused).

let base: string;
let root: string;
let engine: Engine;
let session: Session;

const ALLOWLIST = ["bash:git log*", "bash:ls", "edit:docs/*", "write:notes/**"];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-allowlist-")));
  root = path.join(base, "ws");
  const home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({ approvals: { mode: "allowlist", allowlist: ALLOWLIST } }),
  );
  execFileSync("git", ["init", "-q"], { cwd: root });
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start"],
    {
      cwd: root,
    },
  );
  engine = await Engine.create({ root, latheHome: home, extensions: false });
  session = await engine.openSession({ mode: "allowlist" });
});

afterAll(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

beforeEach(async () => {
  await rm(path.join(root, "src"), { recursive: true, force: true });
  await rm(path.join(root, "pwned.txt"), { force: true });
  await mkdir(path.join(root, "src"), { recursive: true });
  await mkdir(path.join(root, "docs"), { recursive: true });
  await writeFile(path.join(root, "src/keep.ts"), "keep\n");
  await writeFile(path.join(root, "docs/a.md"), "old\n");
});

interface Row {
  name: string;
  tool: "bash" | "edit" | "write";
  args: Record<string, unknown>;
  /** A call made first in the same session (edit needs its file read). */
  before?: { tool: string; args: Record<string, unknown> };
  /** What the call would do if it ran. */
  damaged: () => Promise<boolean>;
}

const srcGone = async () => !existsSync(path.join(root, "src/keep.ts"));
const srcEdited = async () => (await readFile(path.join(root, "src/keep.ts"), "utf8")) !== "keep\n";
const pwned = async () => existsSync(path.join(root, "pwned.txt"));

const hostile: Row[] = [
  { name: "an allowed command && another", tool: "bash", args: { command: "git log && rm -rf src" }, damaged: srcGone },
  { name: "an allowed command; another", tool: "bash", args: { command: "git log; echo x > pwned.txt" }, damaged: pwned },
  { name: "an allowed command | another", tool: "bash", args: { command: "git log | tee pwned.txt" }, damaged: pwned },
  { name: "an allowed command with a redirection", tool: "bash", args: { command: "git log > pwned.txt" }, damaged: pwned },
  { name: "an allowed command and a substitution", tool: "bash", args: { command: "ls $(rm -rf src)" }, damaged: srcGone },
  { name: "an exact entry, then more", tool: "bash", args: { command: "ls && rm -rf src" }, damaged: srcGone },
  { name: "an allowed folder, then ..", tool: "edit", args: { path: "docs/../src/keep.ts", old_string: "keep", new_string: "gone" }, before: { tool: "read", args: { path: "src/keep.ts" } }, damaged: srcEdited },
  { name: "an allowed folder's name as a prefix", tool: "write", args: { path: "notes/../pwned.txt", content: "x" }, damaged: pwned },
]; // prettier-ignore

describe("allowlist mode", () => {
  it.each(hostile)("$name: the call does its damage when let through (control)", async (row) => {
    const yolo = await engine.openSession({ mode: "yolo" });
    try {
      if (row.before) expect((await yolo.call(row.before.tool, row.before.args)).type).toBe("output");
      const env = await yolo.call(row.tool, row.args);
      expect(env.type, JSON.stringify(env)).toBe("output");
      expect(await row.damaged()).toBe(true);
    } finally {
      await yolo.close();
    }
  });

  it.each(hostile)("$name: is asked about, not let through by the entry", async (row) => {
    if (row.before) expect((await session.call(row.before.tool, row.before.args)).type).toBe("output");
    const env = await session.call(row.tool, row.args);
    expect(env.type).toBe("error");
    expect(env.type === "error" && env.error_text).toMatch(/needs approval and this host cannot ask anyone/);
    expect(await row.damaged()).toBe(false);
  });

  it.each<{ name: string; tool: string; args: Record<string, unknown> }>([
    { name: "the allowed command alone", tool: "bash", args: { command: "git log --oneline" } },
    { name: "the exact allowed command", tool: "bash", args: { command: "ls" } },
    { name: "two allowed commands", tool: "bash", args: { command: "ls && git log -1" } },
    { name: "an edit in the allowed folder", tool: "edit", args: { path: "docs/a.md", old_string: "old", new_string: "new" } },
    { name: "a write below the allowed folder", tool: "write", args: { path: "notes/day/1.md", content: "x" } },
  ])("lets $name through without asking", async ({ tool, args }) => {
    if (tool === "edit") expect((await session.call("read", { path: args.path })).type).toBe("output");
    const env = await session.call(tool, args);
    expect(env.type === "error" ? env.error_text : "output").toBe("output");
  }); // prettier-ignore
});
