import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { watchRepos } from "./planted-repos.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-planted-")));
  made.push(dir);
  return dir;
}

/** A shell line run as a command would be (in the workspace), with git's own config left out. */
function sh(root: string, line: string): void {
  execFileSync("bash", ["-c", line], {
    cwd: root,
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@b",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@b",
    },
    stdio: "pipe",
  });
}

/** Whether `git status` in a folder runs a program its repository names (it touches `marker`). */
function gitStatusRunsCode(folder: string, marker: string): boolean {
  rmSync(marker, { force: true });
  sh(folder, "git status --short >/dev/null 2>&1; git commit -q --allow-empty -m x >/dev/null 2>&1; true");
  return existsSync(marker);
}

/**
 * Whether updating a branch in a bare repository (as a push into it does) runs a program it
 * names: git runs the reference-transaction hook there (it touches `marker`).
 */
function refUpdateRunsCode(folder: string, marker: string): boolean {
  rmSync(marker, { force: true });
  sh(
    folder,
    "c=$(git commit-tree $(git mktree </dev/null) -m x) && git update-ref refs/heads/lathe-check $c >/dev/null 2>&1; true",
  );
  return existsSync(marker);
}

/** A workspace that is a git repository, a fsmonitor line that touches `marker` when git runs it. */
function workspace(): { root: string; marker: string; fsmonitor: string } {
  const root = tempDir();
  const marker = path.join(tempDir(), "ran");
  sh(root, "git init -q . && git config user.email a@b && git config user.name a");
  return { root, marker, fsmonitor: `touch ${marker}; false` };
}

interface Row {
  name: string;
  /** What the command does (bash, in the workspace). */
  command: (w: { root: string; marker: string; fsmonitor: string; outside: string }) => string;
  /** The folder where git would run the planted code. */
  repo: string;
  /** Words the notice must hold. */
  notice: string[];
  /** How git is made to run what was planted there: `git status` and a commit, unless told. */
  runsCode?: (folder: string, marker: string) => boolean;
}

const rows: Row[] = [
  {
    name: "git init, then core.fsmonitor written with git config",
    command: (w) => `git init -q sub && git -C sub config core.fsmonitor '${w.fsmonitor}'`,
    repo: "sub",
    notice: ["core.fsmonitor", "sub/.git/config"],
  },
  {
    name: "a config written by hand into a new .git, with include.path and a ! alias",
    command: (w) =>
      `mkdir -p sub && git init -q sub && printf '[core]\\n\\tfsmonitor = "${w.fsmonitor}"\\n[alias]\\n\\tst = !sh\\n[include]\\n\\tpath = /nonexistent/lathe-x\\n' >> sub/.git/config`,
    repo: "sub",
    notice: ["core.fsmonitor", "alias.st", "include.path"],
  },
  {
    name: "a hook added to a new repository",
    command: (w) =>
      `git init -q sub && printf '#!/bin/sh\\ntouch ${w.marker}\\n' > sub/.git/hooks/post-commit && chmod +x sub/.git/hooks/post-commit`,
    repo: "sub",
    notice: ["hook sub/.git/hooks/post-commit"],
  },
  {
    name: "a .git prepared outside the workspace and moved in",
    command: (w) =>
      `git init -q ${w.outside}/prep && git -C ${w.outside}/prep config core.fsmonitor '${w.fsmonitor}' && mkdir -p src && mv ${w.outside}/prep/.git src/.git`,
    repo: "src",
    notice: ["core.fsmonitor", "src/.git/config"],
  },
  {
    name: "a folder left out by .gitignore, then made a repository",
    command: (w) =>
      `echo vendor/ >> .gitignore && git init -q vendor && git -C vendor config core.pager '${w.fsmonitor}' && git -C vendor config core.fsmonitor '${w.fsmonitor}'`,
    repo: "vendor",
    notice: ["core.fsmonitor", "core.pager"],
  },
  {
    name: "a .git file sending git to a folder inside the workspace that is not called .git",
    command: (w) =>
      `mkdir -p meta && git init -q --separate-git-dir=$PWD/meta/store sub && git --git-dir=meta/store config core.fsmonitor '${w.fsmonitor}'`,
    repo: "sub",
    notice: ["core.fsmonitor", "meta/store/config"],
  },
  {
    name: 'a .git file naming " store" (git keeps the space) beside a clean "store"',
    command: (w) =>
      `git init -q prep && mkdir sub && mv prep/.git "sub/ store" && git init -q --bare sub/store && printf 'gitdir:  store\\n' > sub/.git && git -C sub config core.fsmonitor '${w.fsmonitor}'`,
    repo: "sub",
    notice: ["core.fsmonitor", "sub/ store/config"],
  },
  {
    name: "a .git link to a prepared git folder inside the workspace",
    command: (w) =>
      `git init -q prep && mkdir meta && mv prep/.git meta/store && git --git-dir=meta/store config core.fsmonitor '${w.fsmonitor}' && mkdir sub && ln -s ../meta/store sub/.git`,
    repo: "sub",
    notice: ["core.fsmonitor", "meta/store/config"],
  },
  {
    name: "a repository made deep inside a folder .gitignore leaves out (node_modules/x/y/z)",
    command: (w) =>
      `echo node_modules/ >> .gitignore && mkdir -p node_modules/x/y && git init -q node_modules/x/y/z && git -C node_modules/x/y/z config core.fsmonitor '${w.fsmonitor}'`,
    repo: "node_modules/x/y/z",
    notice: ["core.fsmonitor", "node_modules/x/y/z/.git/config"],
  },
  {
    name: "a bare repository (tools.git) with a hook",
    command: (w) =>
      `git init -q --bare tools.git && printf '#!/bin/sh\\ntouch ${w.marker}\\n' > tools.git/hooks/reference-transaction && chmod +x tools.git/hooks/reference-transaction`,
    repo: "tools.git",
    notice: ["hook tools.git/hooks/reference-transaction"],
    runsCode: refUpdateRunsCode,
  },
  {
    name: "a bare repository inside an ignored folder, its config naming a hooks folder",
    command: (w) =>
      `echo build/ >> .gitignore && mkdir -p build/h && git init -q --bare build/cache/r.git && printf '#!/bin/sh\\ntouch ${w.marker}\\n' > build/h/reference-transaction && chmod +x build/h/reference-transaction && git -C build/cache/r.git config core.hooksPath "$PWD/build/h"`,
    repo: "build/cache/r.git",
    notice: ["core.hookspath", "build/cache/r.git/config"],
    runsCode: refUpdateRunsCode,
  },
];

describe("repositories a command plants below the workspace", () => {
  it.each(rows)("$name: git runs the planted program without Lathe, and not after it", async (row) => {
    // Positive control: the same command, with nothing looking, makes git run the program.
    const control = workspace();
    const controlOutside = tempDir();
    const runsCode = row.runsCode ?? gitStatusRunsCode;
    sh(control.root, row.command({ ...control, outside: controlOutside }));
    expect(runsCode(path.join(control.root, row.repo), control.marker)).toBe(true);

    const w = workspace();
    const outside = tempDir();
    const watch = await watchRepos(w.root);
    sh(w.root, row.command({ ...w, outside }));
    const notice = await watch.disarm();
    for (const words of row.notice) expect(notice).toContain(words);
    expect(runsCode(path.join(w.root, row.repo), w.marker)).toBe(false);
    // What runs nothing stays: the repository still works as one.
    sh(path.join(w.root, row.repo), "git rev-parse --git-dir >/dev/null");
  });

  it("removes a .git file that sends git outside the workspace", async () => {
    const w = workspace();
    const outside = tempDir();
    sh(outside, `git init -q . && git config core.fsmonitor '${w.fsmonitor}'`);
    const watch = await watchRepos(w.root);
    sh(w.root, `mkdir sub && echo "gitdir: ${outside}/.git" > sub/.git`);
    expect(gitStatusRunsCode(path.join(w.root, "sub"), w.marker)).toBe(true); // the damage, unwatched
    const notice = await watch.disarm();
    expect(notice).toContain("removed sub/.git");
    expect(existsSync(path.join(w.root, "sub/.git"))).toBe(false);
    expect(readFileSync(path.join(outside, ".git/config"), "utf8")).toContain("fsmonitor"); // not ours to change
  });

  it("leaves alone what a person set up, and what a command adds that runs nothing", async () => {
    const w = workspace();
    // A nested repository the person made, with their own hooks path and hook.
    sh(
      w.root,
      "git init -q lib && git -C lib config core.hooksPath .husky && printf '#!/bin/sh\\n' > lib/.git/hooks/pre-push",
    );
    await sleep(150);
    const watch = await watchRepos(w.root);
    // The command works in it: a setting that runs nothing, a remote, a commit.
    sh(
      w.root,
      "git -C lib config user.name model && git -C lib remote add origin https://example.invalid/x.git && git -C lib config filter.lfs.process 'git-lfs filter-process'",
    );
    expect(await watch.disarm()).toBe("");
    const config = readFileSync(path.join(w.root, "lib/.git/config"), "utf8");
    expect(config).toContain("hooksPath = .husky");
    expect(config).toContain("example.invalid");
    expect(config).toContain("filter-process");
    expect(existsSync(path.join(w.root, "lib/.git/hooks/pre-push"))).toBe(true);
  });

  it("leaves a change a person made between two commands, and catches the next command's", async () => {
    const w = workspace();
    sh(w.root, "git init -q lib");
    await (await watchRepos(w.root)).disarm();
    sh(w.root, `git -C lib config core.fsmonitor 'echo person'`); // the person, between commands
    await sleep(150);
    const watch = await watchRepos(w.root);
    sh(w.root, "git -C lib config core.editor vim-of-the-model");
    const notice = await watch.disarm();
    expect(notice).toContain("core.editor");
    expect(notice).not.toContain("core.fsmonitor");
    const config = readFileSync(path.join(w.root, "lib/.git/config"), "utf8");
    expect(config).toContain("echo person");
    expect(config).not.toContain("vim-of-the-model");
  });

  it("leaves a repository a person cloned between two commands that the next one works in", async () => {
    const w = workspace();
    await (await watchRepos(w.root)).disarm(); // an earlier command: the list of repositories is known
    // The person, in a terminal: a repository with its own hooks path (as husky sets it).
    sh(w.root, "git init -q lib && git -C lib config core.hooksPath .husky && echo x > lib/f");
    await sleep(150);
    const watch = await watchRepos(w.root);
    sh(w.root, "git -C lib status --short >/dev/null && git -C lib add f && echo y > lib/src.txt"); // the command
    expect(await watch.disarm()).toBe("");
    expect(readFileSync(path.join(w.root, "lib/.git/config"), "utf8")).toContain("hooksPath = .husky");
  });

  it("takes out what a command adds to a workspace file a nested repository's config includes", async () => {
    const w = workspace();
    // The person's nested repository, sharing settings from a file of the workspace.
    sh(w.root, "git init -q lib && git -C lib config include.path ../../shared.gitconfig");
    sh(w.root, "printf '[user]\\n\\tname = person\\n' > shared.gitconfig");
    await sleep(150);
    const command = `printf '[core]\\n\\tfsmonitor = "${w.fsmonitor}"\\n' >> shared.gitconfig`;
    // Positive control: with nothing looking, git in lib runs what the shared file names.
    const control = workspace();
    sh(control.root, "git init -q lib && git -C lib config include.path ../../shared.gitconfig");
    sh(control.root, command.replaceAll(w.marker, control.marker));
    expect(gitStatusRunsCode(path.join(control.root, "lib"), control.marker)).toBe(true);

    const watch = await watchRepos(w.root);
    sh(w.root, command);
    expect(await watch.disarm()).toContain("took core.fsmonitor out of shared.gitconfig");
    expect(gitStatusRunsCode(path.join(w.root, "lib"), w.marker)).toBe(false);
    expect(readFileSync(path.join(w.root, "shared.gitconfig"), "utf8")).toContain("person");
    // The next command, leaving the file alone, leaves the person's settings alone.
    const next = await watchRepos(w.root);
    sh(w.root, "git -C lib status --short >/dev/null");
    expect(await next.disarm()).toBe("");
  });

  it("leaves a bare repository and an ignored one a person made alone when the command does not change them", async () => {
    const w = workspace();
    sh(
      w.root,
      "git init -q --bare tools.git && git -C tools.git config core.hooksPath /opt/hooks && echo node_modules/ >> .gitignore && git init -q node_modules/a/b && git -C node_modules/a/b config core.pager less",
    );
    await sleep(150);
    const watch = await watchRepos(w.root);
    sh(w.root, "git -C tools.git config user.name model && echo x > node_modules/a/b/f");
    expect(await watch.disarm()).toBe("");
    expect(readFileSync(path.join(w.root, "tools.git/config"), "utf8")).toContain("/opt/hooks");
    expect(readFileSync(path.join(w.root, "node_modules/a/b/.git/config"), "utf8")).toContain("less");
  });

  it("between commands, lists again only the ignored folders that changed, and still catches a repository planted deep in one", async () => {
    const w = workspace();
    sh(
      w.root,
      "echo node_modules/ >> .gitignore && mkdir -p node_modules/pkg/lib/deep && echo x > node_modules/pkg/lib/deep/f",
    );
    await (await watchRepos(w.root)).disarm(); // an earlier command: the ignored folders are known
    // The person, between commands: a repository of their own in an ignored folder.
    sh(w.root, "git init -q node_modules/mine && git -C node_modules/mine config core.pager less");
    await sleep(150);
    const first = await watchRepos(w.root);
    sh(w.root, "echo y > node_modules/pkg/lib/deep/g");
    expect(await first.disarm()).toBe("");
    expect(readFileSync(path.join(w.root, "node_modules/mine/.git/config"), "utf8")).toContain("less");
    const second = await watchRepos(w.root);
    sh(
      w.root,
      `git init -q node_modules/pkg/lib/deep/r && git -C node_modules/pkg/lib/deep/r config core.fsmonitor '${w.fsmonitor}'`,
    );
    expect(await second.disarm()).toContain(
      "took core.fsmonitor out of node_modules/pkg/lib/deep/r/.git/config",
    );
    expect(gitStatusRunsCode(path.join(w.root, "node_modules/pkg/lib/deep/r"), w.marker)).toBe(false);
    // A config the command appends to, in a repository known from the last look.
    const third = await watchRepos(w.root);
    sh(w.root, `printf '[core]\\n\\tfsmonitor = "${w.fsmonitor}"\\n' >> node_modules/mine/.git/config`);
    expect(await third.disarm()).toContain("took core.fsmonitor out of node_modules/mine/.git/config");
    expect(gitStatusRunsCode(path.join(w.root, "node_modules/mine"), w.marker)).toBe(false);
  });

  it("catches a .git moved into a folder that was there before", async () => {
    const w = workspace();
    const outside = tempDir();
    sh(w.root, "mkdir app && echo x > app/f");
    sh(outside, `git init -q prep && git -C prep config core.fsmonitor '${w.fsmonitor}'`);
    await (await watchRepos(w.root)).disarm();
    await sleep(150);
    const watch = await watchRepos(w.root);
    sh(w.root, `mv ${outside}/prep/.git app/.git`);
    expect(await watch.disarm()).toContain("took core.fsmonitor out of app/.git/config");
    expect(gitStatusRunsCode(path.join(w.root, "app"), w.marker)).toBe(false);
  });

  it("catches a later command writing into a folder a .git file sends git to", async () => {
    const w = workspace();
    sh(w.root, "mkdir -p meta && git init -q --separate-git-dir=$PWD/meta/store sub");
    await (await watchRepos(w.root)).disarm();
    const watch = await watchRepos(w.root);
    sh(w.root, `git --git-dir=meta/store config core.fsmonitor '${w.fsmonitor}'`);
    expect(await watch.disarm()).toContain("core.fsmonitor");
    expect(gitStatusRunsCode(path.join(w.root, "sub"), w.marker)).toBe(false);
  });

  it("takes out a hooks folder swapped for a link to hooks prepared earlier, and leaves what it leads to", async () => {
    const w = workspace();
    const outside = tempDir();
    sh(w.root, "git init -q sub");
    sh(
      outside,
      `mkdir hooks && printf '#!/bin/sh\\ntouch ${w.marker}\\n' > hooks/post-commit && chmod +x hooks/post-commit`,
    );
    await sleep(150);
    const watch = await watchRepos(w.root);
    sh(w.root, `rm -rf sub/.git/hooks && ln -s ${outside}/hooks sub/.git/hooks`);
    expect(gitStatusRunsCode(path.join(w.root, "sub"), w.marker)).toBe(true); // the damage, unwatched
    sh(w.root, "git -C sub update-ref -d HEAD"); // as it was before the control's commit
    expect(await watch.disarm()).toContain("removed sub/.git/hooks, a link sending git to the hooks in");
    expect(gitStatusRunsCode(path.join(w.root, "sub"), w.marker)).toBe(false);
    expect(existsSync(path.join(outside, "hooks/post-commit"))).toBe(true);
  });

  it("looks through a link to a folder: a repository made elsewhere and linked in", async () => {
    const w = workspace();
    const outside = tempDir();
    const watch = await watchRepos(w.root);
    sh(
      w.root,
      `git init -q ${outside}/r && git -C ${outside}/r config core.fsmonitor '${w.fsmonitor}' && ln -s ${outside}/r linked`,
    );
    expect(await watch.disarm()).toContain("took core.fsmonitor out of linked/.git/config");
    expect(gitStatusRunsCode(path.join(w.root, "linked"), w.marker)).toBe(false);
  });

  it("catches a worktree outside the workspace sent to another configuration through the root's .git/worktrees", async () => {
    const w = workspace();
    const outside = tempDir();
    sh(w.root, `git commit -q --allow-empty -m base && git worktree add -q ${outside}/feature`);
    const evil = tempDir();
    sh(evil, `git init -q . && git config core.fsmonitor '${w.fsmonitor}'`);
    await sleep(150);
    const watch = await watchRepos(w.root);
    sh(w.root, `echo ${evil}/.git > .git/worktrees/feature/commondir`);
    expect(gitStatusRunsCode(path.join(outside, "feature"), w.marker)).toBe(true); // the damage, unwatched
    sh(w.root, `echo ${evil}/.git > .git/worktrees/feature/commondir`);
    expect(await watch.disarm()).toContain("put back .git/worktrees/feature/commondir");
    expect(gitStatusRunsCode(path.join(outside, "feature"), w.marker)).toBe(false);
    sh(path.join(outside, "feature"), "git status --short"); // the worktree works as before
  });

  it("says so when the workspace cannot be looked at", async () => {
    const root = tempDir();
    mkdirSync(path.join(root, "a"));
    const watch = await watchRepos(root);
    rmSync(root, { recursive: true, force: true });
    expect(await watch.disarm()).toMatch(/could not look for git repositories/);
  });
});
