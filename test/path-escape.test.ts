import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import type { Session } from "../src/main/engine/session/session.ts";

/**
 * Adversarial inputs across the file tools: path escapes and schema abuse. Every row must come
 * back as an error envelope with a message that says what was wrong, and nothing on disk — the
 * workspace, a sentinel folder beside it, a sibling sharing its name prefix — may change.
 */

const SECRET = "sentinel-secret-7f3a";
const DENIED = /Access denied: .* is outside what this tool may (read|write)/;
const UNRESOLVABLE = /Cannot resolve .*(symbolic links|ELOOP)/;

let base: string;
let root: string;
let sentinel: string;
let evil: string;
let home: string;
let engine: Engine;
let session: Session;

interface Entry {
  type: string;
  mode: number;
  size: number;
  mtimeMs: number;
  sha256?: string;
  link?: string;
}

/** Names, types, modes, sizes, mtimes, contents and link targets of everything below `dir`. */
async function snapshot(dir: string): Promise<Record<string, Entry>> {
  const out: Record<string, Entry> = {};
  const top = await lstat(dir);
  out["."] = { type: "dir", mode: top.mode, size: 0, mtimeMs: top.mtimeMs };
  // A walk that never follows symlinks (readdir's own recursion follows symlinked folders).
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await readdir(path.join(dir, rel))).sort()) {
      const child = rel === "" ? name : `${rel}/${name}`;
      const abs = path.join(dir, child);
      const s = await lstat(abs);
      const entry: Entry = {
        type: s.isSymbolicLink() ? "link" : s.isDirectory() ? "dir" : s.isFile() ? "file" : "other",
        mode: s.mode,
        size: s.isDirectory() ? 0 : s.size,
        mtimeMs: s.mtimeMs,
      };
      if (s.isFile())
        entry.sha256 = createHash("sha256")
          .update(await readFile(abs))
          .digest("hex");
      if (s.isSymbolicLink()) entry.link = await readlink(abs);
      out[child] = entry;
      if (s.isDirectory()) await walk(child);
    }
  };
  await walk("");
  return out;
}

async function snapshotAll(): Promise<Record<string, unknown>> {
  const passwd = await stat("/etc/passwd");
  return {
    root: await snapshot(root),
    sentinel: await snapshot(sentinel),
    evil: await snapshot(evil),
    etcPasswd: { size: passwd.size, mtimeMs: passwd.mtimeMs },
  };
}

/** A path under /etc that must never come into existence. */
const ETC_PROBE = `/etc/lathe-escape-probe-${process.pid}.txt`;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-escape-"));
  root = path.join(base, "ws");
  sentinel = path.join(base, "sentinel");
  evil = path.join(base, "ws-evil");
  home = path.join(base, "home");
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(path.join(sentinel, "nested"), { recursive: true });
  await mkdir(evil);
  await writeFile(path.join(root, "inside.txt"), "hello\n");
  await writeFile(path.join(sentinel, "secret.txt"), `${SECRET}\n`);
  await writeFile(path.join(sentinel, "nested", "deep.txt"), `${SECRET} deep\n`);
  await writeFile(path.join(evil, "x.txt"), `${SECRET} evil\n`);
  await symlink(path.join(sentinel, "secret.txt"), path.join(root, "link-out"));
  await symlink(path.join(sentinel, "planted.txt"), path.join(root, "dangling-out"));
  await symlink(sentinel, path.join(root, "dir-out"));
  await symlink("..", path.join(root, "up"));
  await symlink("loop-b", path.join(root, "loop-a"));
  await symlink("loop-a", path.join(root, "loop-b"));
  await symlink("self-loop", path.join(root, "self-loop"));
  await symlink("/proc/self/root", path.join(root, "proc-root"));
  execFileSync("mkfifo", [path.join(root, "pipe")]);
  engine = await Engine.create({ root, latheHome: home });
  // yolo, so approval never stands in for the capability check: escapes must be refused by it.
  session = await engine.openSession({ mode: "yolo" });
  // The session has read the file it may legitimately edit; escapes must still fail.
  const read = await session.call("read", { path: "inside.txt" });
  expect(read.type).toBe("output");
});

afterAll(async () => {
  await engine?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

interface Case {
  name: string;
  tool: string;
  args: unknown | (() => unknown);
  error: RegExp;
}

const tooLong = `${"a/".repeat(3000)}x.txt`;

const cases: Case[] = [
  // Relative escapes.
  { name: "../ out of the root", tool: "read", args: { path: "../sentinel/secret.txt" }, error: DENIED },
  {
    name: "many ../ to /etc/passwd",
    tool: "read",
    args: { path: "../../../../../../../../etc/passwd" },
    error: DENIED,
  },
  {
    name: "deep a/b/../../../",
    tool: "read",
    args: { path: "a/b/../../../sentinel/secret.txt" },
    error: DENIED,
  },
  { name: "a/../../.. to a folder above", tool: "read", args: { path: "a/../../.." }, error: DENIED },
  {
    name: "write ../ out of the root",
    tool: "write",
    args: { path: "../sentinel/new.txt", content: "x" },
    error: DENIED,
  },
  {
    name: "edit ../ out of the root",
    tool: "edit",
    args: { path: "../sentinel/secret.txt", old_string: SECRET, new_string: "x" },
    error: DENIED,
  },
  // Absolute paths elsewhere.
  { name: "absolute /etc/passwd", tool: "read", args: { path: "/etc/passwd" }, error: DENIED },
  {
    name: "write a new file under /etc",
    tool: "write",
    args: { path: ETC_PROBE, content: "x" },
    error: DENIED,
  },
  {
    name: "absolute path of the sentinel",
    tool: "read",
    args: () => ({ path: path.join(sentinel, "secret.txt") }),
    error: DENIED,
  },
  {
    name: "sibling sharing the root's name prefix",
    tool: "read",
    args: () => ({ path: `${root}-evil/x.txt` }),
    error: DENIED,
  },
  {
    name: "relative sibling sharing the prefix",
    tool: "read",
    args: { path: "../ws-evil/x.txt" },
    error: DENIED,
  },
  {
    name: "write into the prefix sibling",
    tool: "write",
    args: () => ({ path: `${root}-evil/new.txt`, content: "x" }),
    error: DENIED,
  },
  {
    name: "Lathe's own database",
    tool: "read",
    args: () => ({ path: path.join(home, "lathe.db") }),
    error: DENIED,
  },
  {
    name: "another session's folder",
    tool: "read",
    args: () => ({ path: path.join(home, "sessions", "other", "sidecars", "x.txt") }),
    error: DENIED,
  },
  // Symlinks.
  { name: "read a symlink pointing out", tool: "read", args: { path: "link-out" }, error: DENIED },
  {
    name: "write through a symlink pointing out",
    tool: "write",
    args: { path: "link-out", content: "pwned" },
    error: DENIED,
  },
  {
    name: "edit through a symlink pointing out",
    tool: "edit",
    args: { path: "link-out", old_string: SECRET, new_string: "pwned" },
    error: DENIED,
  },
  {
    name: "write through a dangling symlink pointing out",
    tool: "write",
    args: { path: "dangling-out", content: "planted" },
    error: DENIED,
  },
  {
    name: "read below a symlinked folder pointing out",
    tool: "read",
    args: { path: "dir-out/secret.txt" },
    error: DENIED,
  },
  {
    name: "write below a symlinked folder pointing out",
    tool: "write",
    args: { path: "dir-out/new.txt", content: "x" },
    error: DENIED,
  },
  {
    name: "write new folders below a symlinked folder",
    tool: "write",
    args: { path: "dir-out/a/b/new.txt", content: "x" },
    error: DENIED,
  },
  {
    name: "symlink to the parent folder",
    tool: "read",
    args: { path: "up/sentinel/secret.txt" },
    error: DENIED,
  },
  { name: "symlink loop", tool: "read", args: { path: "loop-a" }, error: UNRESOLVABLE },
  {
    name: "write below a symlink loop",
    tool: "write",
    args: { path: "loop-a/x.txt", content: "x" },
    error: UNRESOLVABLE,
  },
  {
    name: "self-referencing symlink",
    tool: "edit",
    args: { path: "self-loop", old_string: "a", new_string: "b" },
    error: UNRESOLVABLE,
  },
  // /proc, /dev, /sys.
  {
    name: "/proc/self/root/etc/passwd",
    tool: "read",
    args: { path: "/proc/self/root/etc/passwd" },
    error: DENIED,
  },
  {
    name: "/proc/self/root into the sentinel",
    tool: "read",
    args: () => ({ path: `/proc/self/root${sentinel}/secret.txt` }),
    error: DENIED,
  },
  {
    name: "write via /proc/self/root",
    tool: "write",
    args: () => ({ path: `/proc/self/root${sentinel}/new.txt`, content: "x" }),
    error: DENIED,
  },
  {
    name: "symlink in the root to /proc/self/root",
    tool: "read",
    args: { path: "proc-root/etc/passwd" },
    error: DENIED,
  },
  {
    name: "/proc/self/cwd escaping",
    tool: "read",
    args: { path: "/proc/self/cwd/../../etc/passwd" },
    error: DENIED,
  },
  {
    name: "/proc/self/cwd into the process folder",
    tool: "read",
    args: { path: "/proc/self/cwd/package.json" },
    error: DENIED,
  },
  { name: "/proc/self/environ", tool: "read", args: { path: "/proc/self/environ" }, error: DENIED },
  { name: "/dev/stdin", tool: "read", args: { path: "/dev/stdin" }, error: DENIED },
  { name: "/dev/zero", tool: "read", args: { path: "/dev/zero" }, error: DENIED },
  { name: "write /dev/null", tool: "write", args: { path: "/dev/null", content: "x" }, error: DENIED },
  { name: "/sys", tool: "read", args: { path: "/sys/kernel/hostname" }, error: DENIED },
  { name: "a FIFO inside the root", tool: "read", args: { path: "pipe" }, error: /not a regular file/ },
  // Odd path strings.
  {
    name: "NUL byte in the path",
    tool: "read",
    args: { path: "inside.txt\u0000../../etc/passwd" },
    error: /NUL byte/,
  },
  { name: "~ home expansion", tool: "read", args: { path: "~/.bashrc" }, error: /"~" is not expanded/ },
  {
    name: "write to ~",
    tool: "write",
    args: { path: "~/evil.txt", content: "x" },
    error: /"~" is not expanded/,
  },
  {
    name: "empty path",
    tool: "read",
    args: { path: "" },
    error: /"path" must not be empty/,
  },
  {
    name: "path longer than PATH_MAX",
    tool: "read",
    args: { path: tooLong },
    error: /Cannot resolve .*ENAMETOOLONG|name too long|more than the \d+ a path may have/i,
  },
  // Schema abuse.
  { name: "number as path", tool: "read", args: { path: 123 }, error: /"path" must be string/ },
  {
    name: "array as path",
    tool: "edit",
    args: { path: ["inside.txt"], old_string: "a", new_string: "b" },
    error: /"path" must be string/,
  },
  {
    name: "object as path",
    tool: "write",
    args: { path: { toString: "inside.txt" }, content: "x" },
    error: /"path" must be string/,
  },
  { name: "array as arguments", tool: "read", args: ["inside.txt"], error: /the arguments must be object/ },
  { name: "null arguments", tool: "read", args: null, error: /missing required property "path"/ },
  { name: "plain string instead of an object", tool: "read", args: "inside.txt", error: /not valid JSON/ },
  {
    name: "JSON string instead of an object",
    tool: "read",
    args: '"inside.txt"',
    error: /the arguments must be object/,
  },
  {
    name: "unknown extra property",
    tool: "read",
    args: { path: "inside.txt", follow_symlinks: true },
    error: /unknown property "follow_symlinks"/,
  },
  {
    name: "negative offset",
    tool: "read",
    args: { path: "inside.txt", offset: -1 },
    error: /"offset" must be >= 1/,
  },
  {
    name: "zero offset",
    tool: "read",
    args: { path: "inside.txt", offset: 0 },
    error: /"offset" must be >= 1/,
  },
  {
    name: "fractional offset",
    tool: "read",
    args: { path: "inside.txt", offset: 1.5 },
    error: /"offset" must be integer/,
  },
  {
    name: "null offset",
    tool: "read",
    args: { path: "inside.txt", offset: null },
    error: /"offset" must be integer/,
  },
  {
    name: "huge limit as a string",
    tool: "read",
    args: { path: "inside.txt", limit: "99999999999999999999" },
    error: /"limit" must be integer/,
  },
  {
    name: "limit beyond safe integers",
    tool: "read",
    args: { path: "inside.txt", limit: 1e300 },
    error: /"limit" must be <=/,
  },
  {
    name: "__proto__ key",
    tool: "read",
    args: '{"path":"inside.txt","__proto__":{"offset":-5}}',
    error: /unknown property "__proto__"/,
  },
  {
    name: "constructor key",
    tool: "write",
    args: '{"path":"inside.txt","content":"x","constructor":{"prototype":{"polluted":true}}}',
    error: /unknown property "constructor"/,
  },
  {
    name: "bad JSON text",
    tool: "read",
    args: '{"path": "inside.txt"',
    error: /not valid JSON.*Send one JSON object/,
  },
  {
    name: "write without content",
    tool: "write",
    args: { path: "inside.txt" },
    error: /missing required property "content"/,
  },
  {
    name: "replace_all as a string",
    tool: "edit",
    args: { path: "inside.txt", old_string: "hello", new_string: "bye", replace_all: "yes" },
    error: /"replace_all" must be boolean/,
  },
  {
    name: "unknown tool id",
    tool: "reed",
    args: { path: "inside.txt" },
    error: /Unknown tool "reed"\. Available tools: .*read/,
  },
  {
    name: "path-like tool id",
    tool: "../read",
    args: { path: "inside.txt" },
    error: /Unknown tool "\.\.\/read"/,
  },
  // glob and grep take a folder or file path too.
  { name: "glob ../", tool: "glob", args: { pattern: "**/*", path: "../sentinel" }, error: DENIED },
  {
    name: "glob an absolute folder elsewhere",
    tool: "glob",
    args: { pattern: "*", path: "/etc" },
    error: DENIED,
  },
  {
    name: "glob a symlinked folder pointing out",
    tool: "glob",
    args: { pattern: "**", path: "dir-out" },
    error: DENIED,
  },
  {
    name: "glob the prefix sibling",
    tool: "glob",
    args: () => ({ pattern: "*", path: `${root}-evil` }),
    error: DENIED,
  },
  {
    name: "glob /proc/self/root",
    tool: "glob",
    args: { pattern: "*", path: "/proc/self/root" },
    error: DENIED,
  },
  { name: "grep /etc/passwd", tool: "grep", args: { pattern: "root", path: "/etc/passwd" }, error: DENIED },
  { name: "grep ../", tool: "grep", args: { pattern: "secret", path: "../sentinel" }, error: DENIED },
  {
    name: "grep a symlink pointing out",
    tool: "grep",
    args: { pattern: "secret", path: "link-out" },
    error: DENIED,
  },
  {
    name: "grep with a NUL byte in the path",
    tool: "grep",
    args: { pattern: "x", path: "a\u0000b" },
    error: /NUL byte/,
  },
  {
    name: "read a path longer than any file system takes",
    tool: "read",
    args: { path: `${"a/".repeat(3000)}x` },
    error: /bytes long once resolved, more than the \d+ a path may have/,
  },
  {
    name: "write a path longer than any file system takes",
    tool: "write",
    args: { path: `${"a/".repeat(3000)}x`, content: "x" },
    error: /bytes long once resolved, more than the \d+ a path may have/,
  },
  {
    name: "write a file name longer than 255 bytes",
    tool: "write",
    args: { path: `${"é".repeat(200)}.txt`, content: "x" },
    error: /^The name "é{40}…" in the path is 404 bytes long, more than the 255 a file name may have/,
  },
  {
    // A model's runaway argument: the refusal says what is wrong without echoing 200 KB back.
    name: "read a 200,000-character file name",
    tool: "read",
    args: { path: "x".repeat(200_000) },
    error:
      /^The path is 200\d{3} bytes long once resolved, more than the \d+ a path may have\. Use a shorter path\.$/,
  },
  {
    name: "grep with a number path",
    tool: "grep",
    args: { pattern: "x", path: 7 },
    error: /"path" must be string/,
  },
];

describe("path escapes and schema abuse", () => {
  it("has a table of at least 30 cases with unique names", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))(
    "%s → error envelope, nothing touched",
    async (_name, c) => {
      const before = await snapshotAll();
      const args = typeof c.args === "function" ? (c.args as () => unknown)() : c.args;
      const envelope = await session.call(c.tool, args);
      expect(envelope.type).toBe("error");
      if (envelope.type !== "error") return;
      expect(envelope.error_text).toMatch(c.error);
      expect(envelope.error_text).not.toContain(SECRET);
      expect(envelope.metadata.duration_ms).toBeGreaterThanOrEqual(0);
      expect(await snapshotAll()).toEqual(before);
      expect(existsSync(path.join(sentinel, "planted.txt"))).toBe(false);
      expect(existsSync(ETC_PROBE)).toBe(false);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it("still works for a legitimate call afterwards", async () => {
    const envelope = await session.call("read", { path: "inside.txt" });
    expect(envelope).toMatchObject({ type: "output", data: { path: "inside.txt", content: "hello\n" } });
  });
});
