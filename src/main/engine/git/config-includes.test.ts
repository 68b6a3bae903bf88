import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configIncludes } from "./config-includes.ts";

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-config-includes-")));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The files git itself reads for a repository's own config (includes followed). */
function gitReads(repo: string): string[] {
  const out = execFileSync(
    "git",
    ["-C", repo, "config", "--local", "--includes", "--list", "--show-origin", "--null"],
    {
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    },
  );
  const files = new Set<string>();
  for (const item of out.split("\0")) if (item.startsWith("file:")) files.add(item.slice(5));
  return [...files];
}

describe("configIncludes: every file a config includes, as git reads them", () => {
  it("follows include.path, includeIf and nested includes, any case, relative to the including file", () => {
    const repo = path.join(base, "repo");
    execFileSync("git", ["init", "-q", repo]);
    mkdirSync(path.join(repo, "conf"));
    writeFileSync(
      path.join(repo, "shared.gitconfig"),
      "[alias]\n\tco = checkout\n[include]\n\tpath = conf/more\n",
    );
    writeFileSync(path.join(repo, "conf/more"), "[user]\n\tname = someone\n");
    writeFileSync(path.join(repo, "when.gitconfig"), "[user]\n\temail = a@b\n");
    execFileSync("bash", [
      "-c",
      `printf '[Include]\\n\\tPath = ../shared.gitconfig\\n[includeIf "gitdir:${repo}/"]\\n\\tpath = ../when.gitconfig\\n' >> ${repo}/.git/config`,
    ]);
    const ours = configIncludes(path.join(repo, ".git/config"));
    const git = gitReads(repo).filter((f) => path.resolve(repo, f) !== path.join(repo, ".git/config"));
    expect(git.length).toBe(3);
    for (const file of git) expect(ours).toContain(path.resolve(repo, file));
  });

  it("names an included file that does not exist yet (a command could make it)", () => {
    const config = path.join(base, "config");
    writeFileSync(config, "[include]\n\tpath = later.gitconfig\n");
    expect(configIncludes(config)).toEqual([path.join(base, "later.gitconfig")]);
  });

  it("sees a change to the file, and gives nothing for a config without includes or none at all", () => {
    const config = path.join(base, "config");
    writeFileSync(config, "[core]\n\tbare = false\n");
    expect(configIncludes(config)).toEqual([]);
    writeFileSync(config, "[core]\n\tbare = false\n[include]\n\tpath = ~/x.gitconfig\n");
    expect(configIncludes(config)).toEqual([path.join(process.env.HOME ?? "", "x.gitconfig")]);
    expect(configIncludes(path.join(base, "missing"))).toEqual([]);
  });

  it("stops at an include loop", () => {
    writeFileSync(path.join(base, "a"), "[include]\n\tpath = b\n");
    writeFileSync(path.join(base, "b"), "[include]\n\tpath = a\n");
    expect(configIncludes(path.join(base, "a")).sort()).toEqual([path.join(base, "a"), path.join(base, "b")]);
  });
});
