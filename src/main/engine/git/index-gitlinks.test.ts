import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
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
