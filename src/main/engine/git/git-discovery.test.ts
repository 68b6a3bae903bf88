import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitDirCandidates } from "./git-discovery.ts";

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-git-discovery-")));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The git folder git itself uses in `folder`. */
function gitSays(folder: string): string {
  return execFileSync("git", ["-C", folder, "rev-parse", "--absolute-git-dir"], {
    encoding: "utf8",
    env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(base) },
  }).trim();
}

const git = (...args: string[]) => execFileSync("git", args, { stdio: "pipe" });

describe("gitDirCandidates: the git folders git may use, ending with the one it does", () => {
  const rows: Array<[string, () => string, number]> = [
    ["a repository's own folder", () => (git("init", "-q", base), base), 1],
    [
      "a folder inside a repository",
      () => (git("init", "-q", base), mkdirSync(`${base}/a/b`, { recursive: true }), `${base}/a/b`),
      1,
    ],
    [
      "a bare repository (git takes the folder itself)",
      () => (git("init", "-q", "--bare", `${base}/x.git`), `${base}/x.git`),
      1,
    ],
    [
      "a folder below a bare repository's objects",
      () => (git("init", "-q", "--bare", `${base}/x.git`), `${base}/x.git/objects`),
      1,
    ],
    [
      "an empty .git folder git passes over, inside a repository",
      () => (git("init", "-q", base), mkdirSync(`${base}/sub/.git`, { recursive: true }), `${base}/sub`),
      2,
    ],
    [
      "a .git link leading nowhere, inside a repository",
      () => (
        git("init", "-q", base),
        mkdirSync(`${base}/sub`),
        symlinkSync("nowhere", `${base}/sub/.git`),
        `${base}/sub`
      ),
      1,
    ],
    [
      "a .git file naming a git folder elsewhere",
      () => {
        git("init", "-q", "--separate-git-dir", `${base}/store`, `${base}/work`);
        return `${base}/work`;
      },
      1,
    ],
  ];
  it.each(rows)("%s", (_name, arrange, count) => {
    const folder = arrange();
    const candidates = gitDirCandidates(folder);
    expect(candidates).toHaveLength(count);
    const last = candidates.at(-1) as string;
    expect(realpathSync(last)).toBe(gitSays(folder));
  });

  it("gives nothing outside every repository", () => {
    expect(gitDirCandidates(base)).toEqual([]);
  });

  it("gives a folder with a HEAD git would not take, and goes on up", () => {
    git("init", "-q", base);
    mkdirSync(`${base}/odd/objects`, { recursive: true });
    mkdirSync(`${base}/odd/refs`);
    writeFileSync(`${base}/odd/HEAD`, "not a ref\n");
    expect(gitDirCandidates(`${base}/odd`)).toEqual([`${base}/odd`, `${base}/.git`]);
    expect(gitSays(`${base}/odd`)).toBe(`${base}/.git`);
  });
});
