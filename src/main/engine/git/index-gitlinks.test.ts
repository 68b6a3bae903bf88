import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexGitlinks, UnreadableIndex } from "./index-gitlinks.ts";

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-index-")));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    encoding: "utf8",
    stdio: "pipe",
  });

/** What git itself lists as gitlinks (mode 160000) in a repository's index. */
function gitSays(repo: string): string[] {
  return git("-C", repo, "ls-files", "--stage", "-z")
    .split("\0")
    .filter((line) => line.startsWith("160000 "))
    .map((line) => line.slice(line.indexOf("\t") + 1))
    .sort();
}

/** A repository with files at several depths and two repositories added inside it. */
function repoWithGitlinks(objectFormat: "sha1" | "sha256"): string {
  const repo = path.join(base, `repo-${objectFormat}`);
  git("init", "-q", `--object-format=${objectFormat}`, repo);
  for (const file of ["a.txt", "src/deep/b.ts", "src/deep/c.ts", "z/ü-name.md"]) {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), "x\n");
  }
  for (const inner of ["src/deep/inner", "vendor/lib"]) {
    const dir = path.join(repo, inner);
    git("init", "-q", `--object-format=${objectFormat}`, dir);
    writeFileSync(path.join(dir, "f"), "x\n");
    git("-C", dir, "add", "f");
    git("-C", dir, "commit", "-qm", "inner");
  }
  git("-C", repo, "add", "-A");
  git("-C", repo, "commit", "-qm", "outer");
  return repo;
}

describe("indexGitlinks: the gitlinks of an index, as git ls-files lists them", () => {
  it.each([
    ["version 2, SHA-1", "sha1", "2"],
    ["version 3 with an extended-flag entry (git add -N), SHA-1", "sha1", "3"],
    ["version 4 (paths compressed against the one before), SHA-1", "sha1", "4"],
    ["version 2, SHA-256", "sha256", "2"],
    ["version 4, SHA-256", "sha256", "4"],
  ] as const)("%s", (_name, format, version) => {
    const repo = repoWithGitlinks(format);
    if (version === "3") {
      writeFileSync(path.join(repo, "src/deep/new.ts"), "x\n");
      git("-C", repo, "add", "-N", "src/deep/new.ts");
    }
    git("-C", repo, "update-index", "--index-version", version);
    const ours = indexGitlinks(path.join(repo, ".git/index"), format === "sha1" ? 20 : 32).sort();
    expect(ours).toEqual(["src/deep/inner", "vendor/lib"]);
    expect(ours).toEqual(gitSays(repo));
  });

  it("gives nothing for a repository without an index, and refuses a file that is not one", () => {
    expect(indexGitlinks(path.join(base, "none"), 20)).toEqual([]);
    writeFileSync(path.join(base, "index"), "not an index");
    expect(() => indexGitlinks(path.join(base, "index"), 20)).toThrow(UnreadableIndex);
    // A count that promises more entries than the file holds.
    const cut = Buffer.alloc(12);
    cut.write("DIRC", 0, "latin1");
    cut.writeUInt32BE(2, 4);
    cut.writeUInt32BE(5, 8);
    writeFileSync(path.join(base, "index"), cut);
    expect(() => indexGitlinks(path.join(base, "index"), 20)).toThrow(/runs past the end/);
  });
});

describe("indexGitlinks: a split index is read with its shared index, as git merges them", () => {
  /** The repository's shared index file, read alone as if it were the whole index. */
  const sharedAlone = (repo: string): string[] => {
    const shared = readdirSync(path.join(repo, ".git")).filter((name) => name.startsWith("sharedindex."));
    expect(shared).toHaveLength(1);
    return indexGitlinks(path.join(repo, ".git", shared[0] as string), 20).sort();
  };
  /** Git keeps every later change in the small split file instead of rewriting the shared one. */
  const split = (repo: string) => {
    git("-C", repo, "config", "splitIndex.maxPercentChange", "100");
    git("-C", repo, "update-index", "--split-index");
  };
  const addRepository = (dir: string) => {
    git("init", "-q", dir);
    writeFileSync(path.join(dir, "g"), "y\n");
    git("-C", dir, "add", "g");
    git("-C", dir, "commit", "-qm", "x");
  };

  it.each([
    ["split with nothing changed since", "2", (_repo: string) => {}],
    [
      "a gitlink added after the split (only in the split file)",
      "2",
      (repo: string) => {
        addRepository(path.join(repo, "later"));
        git("-C", repo, "add", "later");
      },
    ],
    [
      "a gitlink removed after the split (marked deleted)",
      "2",
      (repo: string) => {
        git("-C", repo, "rm", "-q", "--cached", "vendor/lib");
      },
    ],
    [
      "a file that became a gitlink after the split (a replaced entry)",
      "2",
      (repo: string) => {
        rmSync(path.join(repo, "a.txt"));
        git("-C", repo, "rm", "-q", "--cached", "a.txt");
        addRepository(path.join(repo, "a.txt"));
        git("-C", repo, "add", "a.txt");
      },
    ],
    [
      "a gitlink whose commit moved after the split (a replaced entry)",
      "4",
      (repo: string) => {
        const inner = path.join(repo, "src/deep/inner");
        writeFileSync(path.join(inner, "f"), "changed\n");
        git("-C", inner, "commit", "-qam", "moved");
        git("-C", repo, "add", "src/deep/inner");
      },
    ],
  ] as const)("%s", (_name, version, change) => {
    const repo = repoWithGitlinks("sha1");
    git("-C", repo, "update-index", "--index-version", version);
    split(repo);
    change(repo);
    const ours = indexGitlinks(path.join(repo, ".git/index"), 20).sort();
    expect(ours).toEqual(gitSays(repo));
    expect(readFileSync(path.join(repo, ".git/index")).includes("link")).toBe(true);
  });

  it("the shared index alone would give other gitlinks than git's, so the merge is what counts", () => {
    const repo = repoWithGitlinks("sha1");
    split(repo);
    git("-C", repo, "rm", "-q", "--cached", "vendor/lib");
    addRepository(path.join(repo, "later"));
    git("-C", repo, "add", "later");
    expect(sharedAlone(repo)).toEqual(["src/deep/inner", "vendor/lib"]);
    expect(indexGitlinks(path.join(repo, ".git/index"), 20).sort()).toEqual(["later", "src/deep/inner"]);
    expect(gitSays(repo)).toEqual(["later", "src/deep/inner"]);
  });

  it("refuses a split index whose shared index is missing", () => {
    const repo = repoWithGitlinks("sha1");
    split(repo);
    for (const name of readdirSync(path.join(repo, ".git")))
      if (name.startsWith("sharedindex.")) rmSync(path.join(repo, ".git", name));
    expect(() => indexGitlinks(path.join(repo, ".git/index"), 20)).toThrow(UnreadableIndex);
  });
});
