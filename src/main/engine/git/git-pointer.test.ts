import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commonDirOf, gitDirOf } from "./git-pointer.ts";

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "lathe-git-pointer-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The git folder git itself uses in `folder`, as `git rev-parse --absolute-git-dir` says. */
function gitSays(folder: string): string {
  return execFileSync("git", ["-C", folder, "rev-parse", "--absolute-git-dir"], {
    encoding: "utf8",
    env: { ...process.env, GIT_CEILING_DIRECTORIES: base },
  }).trim();
}

function repo(name: string): string {
  const dir = path.join(base, name);
  mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q", dir]);
  return dir;
}

describe("gitDirOf: the git folder a .git entry makes git use, as git itself resolves it", () => {
  const rows: Array<[string, (work: string) => void]> = [
    ["a .git folder", (work) => execFileSync("git", ["init", "-q", work])],
    [
      "a .git file with a relative gitdir: line",
      (work) => {
        repo("store-rel");
        execFileSync("mv", [path.join(base, "store-rel/.git"), path.join(base, "store-rel.git")]);
        writeFileSync(path.join(work, ".git"), "gitdir: ../store-rel.git\n");
      },
    ],
    [
      "a .git file with an absolute gitdir: and a CRLF line end",
      (work) => {
        repo("store-abs");
        writeFileSync(path.join(work, ".git"), `gitdir: ${path.join(base, "store-abs/.git")}\r\n`);
      },
    ],
    [
      'a .git file whose name starts with a space (the folder " evil", not "evil")',
      (work) => {
        execFileSync("git", ["init", "-q", "--bare", path.join(work, " evil")]);
        execFileSync("git", ["init", "-q", "--bare", path.join(work, "evil")]);
        writeFileSync(path.join(work, ".git"), "gitdir:  evil\n");
      },
    ],
    [
      "a .git link to a git folder",
      (work) => {
        repo("store-link");
        symlinkSync("../store-link/.git", path.join(work, ".git"));
      },
    ],
    [
      "a .git link to a .git file (read relative to where the link sits)",
      (work) => {
        repo("store-twice");
        const pointer = path.join(base, "pointers");
        mkdirSync(pointer);
        writeFileSync(path.join(pointer, "p"), "gitdir: ../store-twice/.git\n");
        symlinkSync("../pointers/p", path.join(work, ".git"));
      },
    ],
  ];
  it.each(rows)("%s", (_name, arrange) => {
    const work = path.join(base, "work");
    mkdirSync(work);
    arrange(work);
    const ours = gitDirOf(path.join(work, ".git"));
    expect(ours).toBeDefined();
    expect(execFileSync("realpath", [ours as string], { encoding: "utf8" }).trim()).toBe(gitSays(work));
  });

  it("is undefined with no .git, or a .git file git refuses (no gitdir: at its very start)", () => {
    const dotGit = path.join(base, ".git");
    expect(gitDirOf(dotGit)).toBeUndefined();
    for (const text of ["not a pointer\n", "# note\ngitdir: evil\n", "gitdir:evil\n", "gitdir: \n"]) {
      writeFileSync(dotGit, text);
      expect(gitDirOf(dotGit), JSON.stringify(text)).toBeUndefined();
    }
    // Git agrees: it will not work there at all.
    writeFileSync(dotGit, "# note\ngitdir: evil\n");
    expect(() => gitSays(base)).toThrow();
  });

  it("says when the name is not UTF-8 (no string path reaches it), for a file and a link", () => {
    const dotGit = path.join(base, ".git");
    writeFileSync(dotGit, Buffer.concat([Buffer.from("gitdir: "), Buffer.from([0xff, 0x0a])]));
    expect(gitDirOf(dotGit)).toEqual({ unspellable: expect.stringMatching(/not UTF-8/) });
    rmSync(dotGit);
    symlinkSync(Buffer.from([0x61, 0xff]), dotGit);
    expect(gitDirOf(dotGit)).toEqual({ unspellable: expect.stringMatching(/not UTF-8/) });
  });
});

describe("commonDirOf", () => {
  it("names the main git folder of a linked worktree, as git does", () => {
    const main = repo("main");
    execFileSync("git", [
      "-C",
      main,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "x",
    ]);
    execFileSync("git", ["-C", main, "worktree", "add", "-q", path.join(base, "linked")]);
    const gitDir = gitDirOf(path.join(base, "linked/.git")) as string;
    expect(commonDirOf(gitDir)).toBe(path.join(main, ".git"));
    expect(commonDirOf(path.join(main, ".git"))).toBeUndefined();
  });

  it("keeps a leading space as part of the name, as git does", () => {
    const gitDir = path.join(base, "wt");
    mkdirSync(gitDir);
    writeFileSync(path.join(gitDir, "commondir"), " ../main\n");
    expect(commonDirOf(gitDir)).toBe(path.join(gitDir, " ../main"));
  });
});
