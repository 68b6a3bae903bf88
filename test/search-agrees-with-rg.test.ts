// Our grep and glob against ripgrep on the same generated tree: .gitignore files at several
// levels (negations, folder rules, anchored and wildcard patterns), .git/info/exclude, hidden
// files and folders, binary files, a large file, UTF-16 text and symlinks, plus a few hundred
// seeded random files under random ignore files. Every comparison is a set of paths: the files
// grep finds must be the files `rg -l` finds, and the files glob lists must be `rg --files`
// filtered by the glob.
//
// rg runs with the flags that mirror our defaults: --hidden (hidden files are searched),
// --no-require-git (.gitignore counts outside a repository too), --no-ignore-global and
// --no-config (only the tree's .gitignore, .ignore and .rgignore files and .git/info/exclude
// count, those of the folders above a searched path included), and --glob '!.git' (.git is never searched).
//
// Where rg deliberately behaves otherwise, we do not follow it, and the tests say so:
// - a symlinked file whose target lies inside the workspace is listed and searched by us; rg
//   (without --follow) skips every symlink. Neither follows a symlinked folder.
// - grep's `glob` only narrows the search; rg's --glob also re-includes files a .gitignore
//   excludes. We compare against rg's files that match the glob and are not ignored.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import picomatch from "picomatch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";

const rgFound = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0;
if (!rgFound) console.log("search-agrees-with-rg: skipped, ripgrep (rg) is not installed (CI installs it)");

const RG_DEFAULTS = [
  "--hidden",
  "--no-require-git",
  "--no-ignore-global",
  "--no-config",
  "--crlf",
  "--glob",
  "!.git",
];

let base: string;
let root: string;
let engine: Engine;
let session: Session;
/** Root-relative paths of the symlinks to files inside the root (listed by us, skipped by rg). */
const symlinkedFiles: string[] = [];

/** mulberry32: the same tree on every machine, so a disagreement can be reproduced. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function put(relative: string, content: string | Buffer): Promise<void> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

/** A NUL-free file of `size` bytes with `text` at `at`. */
function padded(size: number, text: string, at: number): Buffer {
  const bytes = Buffer.alloc(size, "a");
  for (let i = 99; i < size; i += 100) bytes[i] = 10;
  bytes.write(text, at);
  return bytes;
}

/** The hand-written part of the tree: one file or folder per rule worth checking. */
async function fixedTree(): Promise<void> {
  await put(
    ".gitignore",
    [
      "# a comment, then rules of every shape",
      "*.log",
      "!keep.log",
      "build/",
      "/top-only.txt",
      "docs/**/*.tmp",
      "**/cache/",
      "logs/*",
      "!logs/keep.txt",
      "out/**",
      "!out/keep/",
      "\\#hash.txt",
      "\\!bang.txt",
      "secret?.txt",
      "[Tt]emp/",
      "*.bak   ",
      "a/**/z.md",
      "",
    ].join("\n"),
  );
  await put(".git/HEAD", "ref: refs/heads/main\nneedle\n");
  await put(".git/config", "[core]\n\tneedle = true\n");
  await put(".git/info/exclude", "*.secret\nprivate/\n");
  // ripgrep's own ignore files: .ignore hides from search what git keeps, .rgignore wins over both.
  await put(".ignore", "*.md\nkeep.log\n");
  await put(".rgignore", "!README.md\n");
  const files: Record<string, string> = {
    "a.log": "needle\n",
    "keep.log": "needle\n",
    "build/out.js": "needle\n",
    "src/build/nested.js": "needle\n",
    "src/build.txt": "needle\n",
    "top-only.txt": "needle\n",
    "src/top-only.txt": "needle\n",
    "docs/a/b/x.tmp": "needle\n",
    "docs/x.tmp": "needle\n",
    "docs/readme.md": "needle\n",
    "other/docs/x.tmp": "needle\n",
    "cache/c.txt": "needle\n",
    "src/deep/cache/c.txt": "needle\n",
    "logs/a.txt": "needle\n",
    "logs/keep.txt": "needle\n",
    "out/x.txt": "needle\n",
    "out/keep/y.txt": "needle\n",
    "#hash.txt": "needle\n",
    "!bang.txt": "needle\n",
    "secret1.txt": "needle\n",
    "secret12.txt": "needle\n",
    "temp/t.txt": "needle\n",
    "Temp/t.txt": "needle\n",
    "TEMP/t.txt": "needle\n",
    "x.bak": "needle\n",
    "a/z.md": "needle\n",
    "a/b/c/z.md": "needle\n",
    "b/a/z.md": "needle\n",
    "token.secret": "needle\n",
    "private/p.txt": "needle\n",
    "src/private/p.txt": "needle\n",
    ".hidden.txt": "needle\n",
    ".config/app.json": '{"needle": true}\n',
    "src/.env": "NEEDLE=1\nneedle\n",
    "README.md": "# needle\n",
    "in.txt": "needle\n",
    "CaseOnly.txt": "NEEDLE\n",
    "digits.txt": "neeedle42\n",
    "crlf.txt": "first\r\nneedle\r\n",
    "empty.txt": "",
    // A nested .gitignore: re-includes what the root excludes, anchors to its own folder.
    "pkg/.gitignore": "!*.log\n/local.md\ngenerated/\nsub/*.tmp\n!build/\n",
    "pkg/a.log": "needle\n",
    "pkg/local.md": "needle\n",
    "pkg/inner/local.md": "needle\n",
    "pkg/generated/g.ts": "needle\n",
    "pkg/sub/s.tmp": "needle\n",
    "pkg/sub/deeper/s.tmp": "needle\n",
    "pkg/build/b.js": "needle\n",
    // A nested .ignore: its rules count below it only, over the .gitignore beside it.
    "pkg/.ignore": "build/\n!local.md\n",
    // Whitelisting: ignore everything, then bring back folders and TypeScript files.
    "pkg/deep/.gitignore": "*\n!*/\n!*.ts\n!.gitignore\n",
    "pkg/deep/a.ts": "needle\n",
    "pkg/deep/b.js": "needle\n",
    "pkg/deep/more/c.ts": "needle\n",
    "pkg/deep/more/d.md": "needle\n",
  };
  for (const [relative, content] of Object.entries(files)) await put(relative, content);

  // Binary files: a PNG header (NUL bytes from its 9th byte on), NUL bytes early and later.
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
    Buffer.from("IHDR needle"),
  ]);
  await put("img/logo.png", png);
  await put("bin/early-nul.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2, 3])]));
  await put(
    "bin/nul-at-8500.txt",
    Buffer.concat([padded(8500, "needle", 0), Buffer.from([0]), padded(50, "", 0)]),
  );
  await put("bin/nul-at-70000.txt", Buffer.concat([padded(70_000, "needle", 0), Buffer.from([0])]));
  await put(
    "bin/nul-at-70000-match-after.txt",
    Buffer.concat([padded(70_000, "", 0), Buffer.from([0, 10]), Buffer.from("needle\n")]),
  );
  // Text: UTF-16 with a byte order mark, and a 3 MB file whose only match is near its end.
  await put(
    "utf16.txt",
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("first\nneedle\n", "utf16le")]),
  );
  await put("large.txt", Buffer.concat([padded(3_000_000, "", 0), Buffer.from("\nneedle at the end\n")]));

  // Symlinks: a file inside (ours lists it, rg skips it), a folder, outside targets, a dangling one.
  const outside = path.join(base, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "needle\n");
  await symlink(path.join(root, "in.txt"), path.join(root, "link-in.txt"));
  symlinkedFiles.push("link-in.txt");
  await symlink(path.join(root, "pkg"), path.join(root, "pkg-link"));
  await symlink(outside, path.join(root, "outside-dir"));
  await symlink(path.join(outside, "secret.txt"), path.join(root, "outside.txt"));
  await symlink(path.join(root, "missing.txt"), path.join(root, "dangling.txt"));
}

const NAMES = [
  "src",
  "lib",
  "build",
  "cache",
  "logs",
  "out",
  "keep",
  "temp",
  "Temp",
  "gen",
  "docs",
  "a",
  "z",
  ".cfg",
  ".hidden",
  "sub",
  "private",
  "node_modules",
  "vendor",
  "generated",
];
const EXTS = ["ts", "js", "md", "txt", "log", "tmp", "bak", "snap", "json", "secret"];
const RULES = [
  "*.snap",
  "!keep.snap",
  "gen/",
  "/local.txt",
  "*.tmp",
  "!*.md",
  "vendor/",
  "z/",
  "**/keep/*.js",
  "sub/**/*.json",
  "*",
  "!*/",
  "!*.ts",
  "node_modules/",
  ".hidden/",
  "!.hidden/",
  "lib/*.js",
  "/*.txt",
  "docs/",
  "!docs/",
];
const WORDS = ["alpha", "needle", "NEEDLE", "Needle", "needle7", "neeedle99", "haystack", "ne", "dle", "pin"];

/** A few hundred seeded random files under seeded random ignore files. */
async function randomTree(seed: number, count: number): Promise<void> {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const dirs = new Set<string>(["r"]);
  for (let i = 0; i < count; i++) {
    const depth = 1 + Math.floor(rand() * 4);
    const parts = ["r", ...Array.from({ length: depth - 1 }, () => pick(NAMES))];
    const dir = parts.join("/");
    dirs.add(dir);
    const name = `${rand() < 0.15 ? "." : ""}f${i}.${pick(EXTS)}`;
    const lines = Array.from({ length: 1 + Math.floor(rand() * 6) }, () =>
      Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(WORDS)).join(" "),
    );
    await put(`${dir}/${name}`, `${lines.join("\n")}\n`);
  }
  for (const dir of dirs) {
    if (rand() < 0.35) {
      const rules = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(RULES));
      await put(`${dir}/.gitignore`, `${rules.join("\n")}\n`);
    }
  }
}

beforeAll(async () => {
  if (!rgFound) return;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-rg-agree-")));
  root = path.join(base, "ws");
  await mkdir(root);
  await fixedTree();
  await randomTree(20_240, 600);
  engine = await Engine.create({ root, latheHome: path.join(base, "home"), extensions: false });
  session = await engine.openSession({ mode: "yolo" });
});

afterAll(async () => {
  if (!rgFound) return;
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/**
 * rg's output, as root-relative paths. A folder to search is rg's working folder rather than its
 * argument: rg 13 does not apply anchored rules of the ignore files above a relative path argument
 * (it does when they lie above its working folder).
 */
function rg(args: string[], folder?: string): string[] {
  // stdin closed: rg given no path searches a piped stdin instead of the folder.
  const run = spawnSync("rg", [...RG_DEFAULTS, ...args], {
    cwd: folder === undefined ? root : path.join(root, folder),
    encoding: "utf8",
    maxBuffer: 1 << 26,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`rg ${args.join(" ")} failed: ${run.stderr}`);
  const prefix = folder === undefined ? "" : `${folder}/`;
  // --crlf ends rg's own output lines with \r\n too.
  return run.stdout
    .split(/\r?\n/)
    .filter((line) => line !== "")
    .map((line) => prefix + line)
    .sort();
}

/** Every path a call returns, the sidecar's when the result was cut. */
async function pathsOf(envelope: Envelope): Promise<string[]> {
  if (envelope.type === "error") throw new Error(envelope.error_text);
  const all = envelope.metadata.output_path
    ? (await readFile(envelope.metadata.output_path, "utf8")).split("\n").filter((line) => line !== "")
    : (envelope.data as { files: string[] }).files;
  return [...all].sort();
}

async function ourGrep(args: Record<string, unknown>): Promise<string[]> {
  return pathsOf(await session.call("grep", args));
}

async function ourGlob(args: Record<string, unknown>): Promise<string[]> {
  return pathsOf(await session.call("glob", args));
}

const withoutSymlinks = (paths: string[]): string[] => paths.filter((p) => !symlinkedFiles.includes(p));

describe.skipIf(!rgFound)("grep and glob agree with ripgrep on a generated tree", () => {
  it.each([
    ["a literal", { pattern: "needle" }, ["needle"]],
    ["a regex", { pattern: "ne+dle\\d+" }, ["ne+dle\\d+"]],
    ["a regex anchored at line starts and ends", { pattern: "^needle$" }, ["^needle$"]],
    ["ignore_case", { pattern: "needle", ignore_case: true }, ["-i", "needle"]],
    ["an excluding glob", { pattern: "needle", glob: "!*.txt" }, ["--glob", "!*.txt", "needle"]],
  ])("grep finds the files rg -l finds: %s", async (_what, args, rgArgs) => {
    const ours = await ourGrep(args);
    const theirs = rg(["-l", ...rgArgs]);
    expect(theirs.length).toBeGreaterThan(20);
    expect(withoutSymlinks(ours)).toEqual(theirs);
  });

  it.each([["pkg"], ["pkg/deep"], ["r/src"], ["build"], ["pkg/build"]])(
    "grep with path %s finds the files rg -l finds there",
    async (folder) => {
      const ours = await ourGrep({ pattern: "needle", path: folder });
      const theirs = rg(["-l", "needle"], folder);
      expect(theirs.length).toBeGreaterThan(0);
      expect(ours).toEqual(theirs);
    },
  );

  it("grep's glob narrows like rg's --glob, but never brings back an ignored file", async () => {
    for (const glob of ["*.ts", "*.{md,json}", "**/*.txt", "pkg/**", "r/src/**"]) {
      const ours = withoutSymlinks(await ourGrep({ pattern: "needle", glob }));
      const notIgnored = new Set(rg(["-l", "needle"]));
      const theirs = rg(["-l", "--glob", glob, "needle"]).filter((p) => notIgnored.has(p));
      expect(ours, glob).toEqual(theirs);
    }
    // The deliberate difference: rg's --glob re-includes an ignored file, ours does not.
    expect(rg(["-l", "--glob", "*.log", "needle"])).toContain("a.log");
    expect(await ourGrep({ pattern: "needle", glob: "*.log" })).not.toContain("a.log");
  });

  it("grep skips binary files as rg does: a NUL in the first 64 KB, or before the match", async () => {
    const ours = await ourGrep({ pattern: "needle", path: "bin" });
    expect(ours).toEqual(rg(["-l", "needle"], "bin"));
    expect(ours).toEqual(["bin/nul-at-70000.txt"]);
    expect(await ourGrep({ pattern: "needle", path: "img" })).toEqual([]);
  });

  it("grep searches a symlinked file inside the workspace, which rg skips; neither follows a symlinked folder", async () => {
    const ours = await ourGrep({ pattern: "needle" });
    expect(ours).toContain("link-in.txt");
    expect(rg(["-l", "needle"])).not.toContain("link-in.txt");
    for (const list of [ours, rg(["-l", "needle"])]) {
      expect(list.filter((p) => /^(pkg-link|outside|dangling)/.test(p))).toEqual([]);
    }
  });

  it.each([
    ["**/*", undefined],
    ["**/*.ts", undefined],
    ["*.md", undefined],
    ["**/.*", undefined],
    ["r/**/keep/*", undefined],
    ["**/*", "pkg"],
    ["*.{ts,js}", "pkg/deep/more"],
  ])("glob %s (path %s) lists what rg --files lists, filtered by the glob", async (pattern, where) => {
    const ours = await ourGlob(where === undefined ? { pattern } : { pattern, path: where });
    const matches = picomatch(pattern, { dot: true });
    const prefix = where === undefined ? "" : `${where}/`;
    const theirs = rg(["--files"], where).filter((p) => matches(p.slice(prefix.length)));
    expect(theirs.length).toBeGreaterThan(0);
    expect(withoutSymlinks(ours)).toEqual(theirs);
  });

  it("glob lists a symlinked file inside the workspace, which rg --files skips", async () => {
    expect(await ourGlob({ pattern: "*.txt" })).toContain("link-in.txt");
    expect(rg(["--files"])).not.toContain("link-in.txt");
  });
});
