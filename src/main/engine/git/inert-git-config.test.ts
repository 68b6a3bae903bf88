import { describe, expect, it } from "vitest";
import { isInertGitSetting } from "./inert-git-config.ts";

// Keys as `git config --list` prints them.
const RUNS_A_PROGRAM: Array<[string, string | undefined]> = [
  ["core.fsmonitor", "touch x"],
  ["core.hookspath", ".husky"],
  ["core.pager", "sh -c x"],
  ["core.editor", "vim"],
  ["core.sshcommand", "ssh -oProxyCommand=x"],
  ["core.askpass", "x"],
  ["core.gitproxy", "x"],
  ["core.alternaterefscommand", "x"],
  ["core.worktree", "/elsewhere"],
  ["sequence.editor", "x"],
  ["diff.external", "x"],
  ["diff.img.textconv", "x"],
  ["diff.img.command", "x"],
  ["merge.ours.driver", "x"],
  ["filter.evil.clean", "x"],
  ["filter.evil.process", "x"],
  ["filter.lfs.process", "sh -c x"], // lfs's name, someone else's program
  ["filter.lfs.clean", "git-lfs clean -- %f; touch x"],
  ["alias.st", "!sh -c x"],
  ["include.path", "/tmp/more"],
  ["includeif.gitdir:/.path", "/tmp/more"],
  ["submodule.x.update", "!touch x"],
  ["remote.origin.uploadpack", "touch x"],
  ["remote.origin.receivepack", "touch x"],
  ["remote.origin.vcs", "x"],
  ["credential.helper", "!x"],
  ["credential.https://h.helper", "!x"],
  ["gpg.program", "x"],
  ["gpg.ssh.program", "x"],
  ["pager.log", "x"],
  ["difftool.x.cmd", "x"],
  ["mergetool.x.cmd", "x"],
  ["web.browser", "x"],
  ["uploadpack.packobjectshook", "x"],
  ["receive.procreceiverefs", "x"],
  ["protocol.ext.allow", "always"],
  ["user.name.extra", "x"], // user.* has no three-part settings
  ["nodot", "x"],
  ["core.", "x"],
];

const RUNS_NOTHING: Array<[string, string | undefined]> = [
  ["core.repositoryformatversion", "0"],
  ["core.bare", undefined],
  ["core.autocrlf", "input"],
  ["user.name", "model"],
  ["user.email", "m@x"],
  ["color.ui", "auto"],
  ["remote.origin.url", "https://example.invalid/x.git"],
  ["remote.Or.ig.fetch", "+refs/heads/*:refs/remotes/origin/*"],
  ["branch.main.merge", "refs/heads/main"],
  ["submodule.lib.url", "../lib"],
  ["init.defaultbranch", "main"],
  ["filter.lfs.process", "git-lfs filter-process"],
  ["filter.lfs.required", "true"],
  ["extensions.objectformat", "sha256"],
  ["core.splitindex", "true"],
  ["splitindex.maxpercentchange", "100"],
  ["index.version", "4"],
];

describe("settings of a repository's own git config", () => {
  it.each(RUNS_A_PROGRAM)("%s = %s may run a program: taken out", (key, value) => {
    expect(isInertGitSetting(key, value)).toBe(false);
  });
  it.each(RUNS_NOTHING)("%s = %s runs nothing: kept", (key, value) => {
    expect(isInertGitSetting(key, value)).toBe(true);
  });
});
