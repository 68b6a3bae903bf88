import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readGitConfig, writeGitConfig, type GitSetting } from "./git-config-file.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("a git config as git reads it", () => {
  it("reads quoting, continuation lines, old-style subsections and bare variables as git does", () => {
    const text =
      '[core]\n\tbare\n\tpager = "a \\"b\\"" ; comment\n[Remote "Or.ig"]\n\tURL = x\\\n  y\n[alias "x.y"]\n\tz = !sh\n';
    const read = readGitConfig(Buffer.from(text));
    expect(read).toEqual({
      kind: "settings",
      settings: [
        { key: "core.bare", value: undefined },
        { key: "core.pager", value: 'a "b"' },
        { key: "remote.Or.ig.url", value: "x  y" },
        { key: "alias.x.y.z", value: "!sh" },
      ],
    });
  });

  it("says git refuses a file it cannot parse (git then works in no repository holding it)", () => {
    expect(readGitConfig(Buffer.from("[core\n")).kind).toBe("refused");
  });

  it("writes settings back so that git reads exactly them", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lathe-gitconfig-"));
    made.push(dir);
    const file = path.join(dir, "config");
    const settings: GitSetting[] = [
      { key: "core.bare", value: undefined },
      { key: "core.autocrlf", value: "" },
      { key: "user.name", value: 'a "quoted" \\ back\tslash\nnew line' },
      { key: "remote.Or.ig.url", value: "https://example.invalid/x.git" },
      { key: "remote.Or.ig.fetch", value: "+refs/heads/a:refs/remotes/a" },
      { key: "remote.Or.ig.fetch", value: "+refs/heads/b:refs/remotes/b" },
      { key: 'branch.we"ird\\name.merge', value: "refs/heads/x" },
    ];
    writeGitConfig(file, settings);
    expect(readGitConfig(readFileSync(file))).toEqual({ kind: "settings", settings });
  });
});
