import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isWithin } from "./canonical-path.ts";
import { walkWorkspace, type WalkEntry, type WalkOptions } from "./workspace-walker.ts";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-walker-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function put(relative: string, content = "x\n"): Promise<void> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

const inRoot = { mayRead: (c: string) => isWithin(root, c) };

async function walk(
  start = root,
  extra: Partial<WalkOptions> = {},
  mayRead = inRoot.mayRead,
): Promise<WalkEntry[]> {
  const found: WalkEntry[] = [];
  await walkWorkspace(start, { root, mayRead }, { ...extra, onFile: (e) => found.push(e) });
  return found.sort((a, b) => (a.relative < b.relative ? -1 : 1));
}

async function names(start = root): Promise<string[]> {
  return (await walk(start)).map((e) => e.relative);
}

describe("walkWorkspace", () => {
  it("honours .ignore and .rgignore only for a search; .gitignore always", async () => {
    await put(".gitignore", "*.log\n");
    await put(".ignore", "gen/\nnotes.md\n");
    await put(".rgignore", "!notes.md\n");
    await put("sub/.ignore", "*.tmp\n");
    for (const f of ["a.log", "gen/x.ts", "notes.md", "sub/y.tmp", "sub/z.ts", "src/s.ts"]) await put(f);
    const listed = async (extra: Partial<WalkOptions>, start = root) =>
      (await walk(start, extra)).map((e) => e.relative).filter((f) => !path.basename(f).startsWith("."));
    // A search: .ignore hides, .rgignore wins over it, a nested .ignore counts below its folder.
    expect(await listed({ searchIgnores: true })).toEqual(["notes.md", "src/s.ts", "sub/z.ts"]);
    // Starting below the root, the ancestors' ignore files still count.
    expect(await listed({ searchIgnores: true }, path.join(root, "sub"))).toEqual(["sub/z.ts"]);
    // Any other walk (the checkpoints' index): what is hidden from search is still seen.
    expect(await listed({})).toEqual(["gen/x.ts", "notes.md", "src/s.ts", "sub/y.tmp", "sub/z.ts"]);
  });

  it("lists every file below the start as POSIX paths relative to the root, never .git", async () => {
    await put("a.txt");
    await put("src/b.ts");
    await put("src/deep/er/c.md");
    await put(".hidden/d.txt");
    await put(".git/config");
    await put("vendor/sub/.git", "gitdir: ../../.git/modules/sub\n");
    expect(await names()).toEqual([".hidden/d.txt", "a.txt", "src/b.ts", "src/deep/er/c.md"]);
    const [entry] = await walk(path.join(root, "src/deep"));
    expect(entry).toEqual({ relative: "src/deep/er/c.md", absolute: path.join(root, "src/deep/er/c.md") });
  });

  it("honours .gitignore files at every level, each relative to its own folder", async () => {
    await put(".gitignore", "*.log\n!keep.log\nbuild/\n/top-only.txt\n");
    await put("a.log");
    await put("keep.log");
    await put("top-only.txt");
    await put("build/out.js");
    await put("src/build/nested-out.js");
    await put("src/build.txt");
    await put("src/top-only.txt");
    await put("src/.gitignore", "secret.txt\n!important.log\n/local.md\ndocs/*.tmp\n");
    await put("src/secret.txt");
    await put("src/important.log");
    await put("src/other.log");
    await put("src/local.md");
    await put("src/docs/x.tmp");
    await put("src/docs/x.md");
    await put("src/deeper/local.md");
    await put("src/deeper/secret.txt");
    await put("secret.txt");
    expect(await names()).toEqual([
      ".gitignore",
      "keep.log",
      "secret.txt",
      "src/.gitignore",
      "src/build.txt",
      "src/deeper/local.md",
      "src/docs/x.md",
      "src/important.log",
      "src/top-only.txt",
    ]);
  });

  it("lets a nested .gitignore re-include a folder a parent's name rule excludes, as git does", async () => {
    await put(".gitignore", "build/\n*.tmp\n");
    await put("build/a.js");
    await put("src/.gitignore", "!build/\n");
    await put("src/build/b.js");
    await put("src/build/c.tmp");
    expect(await names()).toEqual([".gitignore", "src/.gitignore", "src/build/b.js"]);
  });

  it("judges what lies in a re-included folder by the rules that match it directly, as git does", async () => {
    // The root's file has path rules, so it is tested with whole paths: its "build/" must not
    // hold src/build against the files inside once src/.gitignore has re-included the folder.
    await put(".gitignore", "build/\n*.tmp\n/docs/*.md\nsrc/build/*.map\n");
    await put("src/.gitignore", "!build/\n");
    await put("build/a.js");
    await put("src/build/b.js");
    await put("src/build/c.tmp");
    await put("src/build/d.js.map");
    await put("src/build/deeper/e.js");
    await put("docs/x.md");
    expect(await names()).toEqual([
      ".gitignore",
      "src/.gitignore",
      "src/build/b.js",
      "src/build/deeper/e.js",
    ]);
  });

  it("applies every ancestor's rules inside a start folder an ignore file excludes", async () => {
    await put(".gitignore", "vendor/\n*.log\n/vendor/pkg/cache/\n");
    await put("vendor/pkg/index.js");
    await put("vendor/pkg/debug.log");
    await put("vendor/pkg/cache/c.js");
    expect(await names(path.join(root, "vendor/pkg"))).toEqual(["vendor/pkg/index.js"]);
  });

  it("honours .git/info/exclude below the root's .gitignore", async () => {
    await put(".git/info/exclude", "*.draft\nnotes/\n");
    await put(".gitignore", "!kept.draft\n");
    await put("a.draft");
    await put("kept.draft");
    await put("notes/n.txt");
    await put("src/b.draft");
    expect(await names()).toEqual([".gitignore", "kept.draft"]);
  });

  it("applies the ancestors' ignore files when it starts below the root", async () => {
    await put(".gitignore", "*.log\n");
    await put("src/.gitignore", "gen/\n");
    await put("src/lib/a.log");
    await put("src/lib/a.ts");
    await put("src/lib/gen/b.ts");
    expect(await names(path.join(root, "src/lib"))).toEqual(["src/lib/a.ts"]);
  });

  it("walks a folder named as the start even when it is ignored, with the ignore files inside it", async () => {
    await put(".gitignore", "node_modules/\n");
    await put("node_modules/pkg/index.js");
    await put("node_modules/pkg/.gitignore", "*.map\n");
    await put("node_modules/pkg/index.js.map");
    expect(await names()).toEqual([".gitignore"]);
    expect(await names(path.join(root, "node_modules/pkg"))).toEqual([
      "node_modules/pkg/.gitignore",
      "node_modules/pkg/index.js",
    ]);
  });

  it("does not read a symlinked .gitignore (git does not either)", async () => {
    await writeFile(path.join(outside, "rules"), "*\n");
    await symlink(path.join(outside, "rules"), path.join(root, ".gitignore"));
    await put("a.txt");
    expect(await names()).toEqual(["a.txt"]);
  });

  it("never follows symlinked folders, inside or outside the root", async () => {
    await writeFile(path.join(outside, "secret.txt"), "s\n");
    await put("real/inner.txt");
    await symlink(outside, path.join(root, "out-link"));
    await symlink(path.join(root, "real"), path.join(root, "in-link"));
    await symlink(root, path.join(root, "real/loop"));
    expect(await names()).toEqual(["real/inner.txt"]);
  });

  it("reports a symlinked file by its own path only when its target may be read", async () => {
    await writeFile(path.join(outside, "secret.txt"), "s\n");
    await put("real.txt");
    await symlink(path.join(outside, "secret.txt"), path.join(root, "escape.txt"));
    await symlink(path.join(root, "real.txt"), path.join(root, "alias.txt"));
    await symlink(path.join(root, "missing.txt"), path.join(root, "dangling.txt"));
    expect(await walk()).toEqual([
      { relative: "alias.txt", absolute: path.join(root, "real.txt") },
      { relative: "real.txt", absolute: path.join(root, "real.txt") },
    ]);
  });

  it("never reports FIFOs, sockets or devices", async () => {
    await put("a.txt");
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    expect(await names()).toEqual(["a.txt"]);
  });

  it("leaves out files the read scope does not cover", async () => {
    await put("src/a.ts");
    await put("docs/b.md");
    const onlySrc = (c: string): boolean => isWithin(path.join(root, "src"), c);
    expect((await walk(root, {}, onlySrc)).map((e) => e.relative)).toEqual(["src/a.ts"]);
  });

  it("refuses to start outside the root", async () => {
    await expect(walk(outside)).rejects.toThrow(/is outside its root/);
    await expect(walk(`${root}-sibling`)).rejects.toThrow(/is outside its root/);
  });

  it("names the folders holding a .git (of any kind, in ignored folders too) without entering one", async () => {
    await put(".gitignore", "vendor/\n");
    await put(".git/config");
    await put("a/.git/config");
    await put("b/c/.git", "gitdir: ../../meta\n");
    await put("vendor/.git/HEAD");
    await put("vendor/deep/.git/HEAD"); // below an ignored folder's own level: not looked at
    await put("src/x.ts");
    const folders: string[] = [];
    const found = await walk(root, { onGitEntry: (folder) => folders.push(folder) });
    expect(folders.sort()).toEqual(["", "a", "b/c", "vendor"]);
    expect(found.map((e) => e.relative)).toEqual([".gitignore", "src/x.ts"]);
  });

  it("skips folders that enterDir declines", async () => {
    await put("a/x.txt");
    await put("b/y.txt");
    const found = await walk(root, { enterDir: (rel) => rel !== "b" });
    expect(found.map((e) => e.relative)).toEqual(["a/x.txt"]);
  });

  it("sees files added, removed and ignored since the last walk, though it keeps settled folders' listings", async () => {
    await put("src/a.ts");
    await put("src/deep/b.ts");
    await put("docs/c.md");
    // A minute later as far as the listings' clock knows: every folder counts as settled and is
    // kept, so the second walk takes the kept listings wherever the folders did not change.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 60_000);
      expect((await walk()).map((e) => e.relative)).toEqual(["docs/c.md", "src/a.ts", "src/deep/b.ts"]);
      await put("src/deep/new.ts");
      await rm(path.join(root, "docs/c.md"));
      await put(".gitignore", "src/a.ts\n");
      expect((await walk()).map((e) => e.relative)).toEqual([
        ".gitignore",
        "src/deep/b.ts",
        "src/deep/new.ts",
      ]);
      // A changed ignore file is read again even where its folder's listing is kept.
      await writeFile(path.join(root, ".gitignore"), "deep/\n");
      expect((await walk()).map((e) => e.relative)).toEqual([".gitignore", "src/a.ts"]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("lets timers run during a long walk and stops promptly when aborted", async () => {
    for (let d = 0; d < 20; d++) for (let f = 0; f < 10; f++) await put(`d${d}/f${f}.txt`);
    const controller = new AbortController();
    let visited = 0;
    let visitedAtAbort = -1;
    setTimeout(() => {
      visitedAtAbort = visited;
      controller.abort(new Error("stop"));
    }, 5);
    const walking = walkWorkspace(
      root,
      { root, mayRead: inRoot.mayRead },
      {
        signal: controller.signal,
        onFile() {
          visited++;
          const until = performance.now() + 1; // a slow consumer: 1 ms per file
          while (performance.now() < until);
        },
      },
    );
    await expect(walking).rejects.toThrow("stop");
    expect(visitedAtAbort).toBeGreaterThan(0);
    expect(visitedAtAbort).toBeLessThan(200);
    // Once the timer has fired, the walk does at most one more slice of work.
    expect(visited - visitedAtAbort).toBeLessThanOrEqual(20);
  });
});

describe("walkWorkspace with hidden paths", () => {
  it("leaves out a hidden folder and file, reports each once, and enters one holding a readable folder", async () => {
    for (const f of ["keys/id", "keys/deep/x", "netrc", "netrcish", "home/db", "home/models/m", "a.ts"])
      await put(f);
    await symlink(path.join(root, "keys/id"), path.join(root, "link-to-key"));
    const hiddenAt = ["keys", "netrc", "home"].map((p) => path.join(root, p));
    const readable = path.join(root, "home/models");
    const hidden = {
      hidesBelow: (folder: string) => hiddenAt.some((h) => isWithin(folder, h)),
      isEntry: (c: string) => hiddenAt.includes(c),
      covers: (c: string) => hiddenAt.some((h) => isWithin(h, c)),
      holdsReadable: (folder: string) => isWithin(folder, readable),
      find: (c: string) =>
        isWithin(readable, c)
          ? undefined
          : hiddenAt.find((h) => c !== path.join(root, "home") && isWithin(h, c)),
    };
    const found: string[] = [];
    const leftOut = await walkWorkspace(
      root,
      { root, mayRead: inRoot.mayRead, hidden },
      { onFile: (e) => found.push(e.relative) },
    );
    expect(found.sort()).toEqual(["a.ts", "home/models/m", "netrcish"]);
    expect(leftOut.sort()).toEqual(
      [
        path.join(root, "home"),
        path.join(root, "keys"),
        path.join(root, "keys"),
        path.join(root, "netrc"),
      ].sort(),
    );
  });
});
