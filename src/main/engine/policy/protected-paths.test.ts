import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpServerSchema } from "../config/lathe-settings.ts";
import { ProtectedPaths, type ProtectedServer } from "./protected-paths.ts";

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-protected-")));
  root = path.join(base, "ws");
  home = path.join(base, "lathe-home");
  await mkdir(path.join(root, ".git/hooks"), { recursive: true });
  await writeFile(path.join(root, ".git/config"), "[core]\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const server = (name: string, config: unknown): ProtectedServer => ({
  name,
  config: McpServerSchema.parse(config),
});

describe("protected paths: what no write may reach", () => {
  it.each([
    [".git/config", /git's configuration/],
    [".git/config.worktree", /git's configuration/],
    [".git/commondir", /git's configuration/],
    [".git/hooks/pre-commit", /git hook/],
    [".git/info/attributes", /attributes can name filter programs/],
    [".git/modules/lib/config", /submodule's git folder/],
    [".git", /git folder as a whole/],
    [".gitmodules", /submodule configuration/],
    [".lathe/settings.json", /project's Lathe folder/],
    [".lathe/tools/new-plugin/index.js", /project's Lathe folder/],
    [".lathe", /project's Lathe folder/],
    ["vendor/lib/.git/config", /repository/],
    ["vendor/lib/.git/hooks/post-checkout", /repository/],
    ["src/.git", /git folder or the pointer to one/],
    ["vendor/lib/.git", /git folder or the pointer to one/],
  ])("%s is protected, whether or not it exists", (relative, what) => {
    const paths = new ProtectedPaths({ root, latheHome: home });
    expect(paths.reason(path.join(root, relative))).toMatch(what);
  });

  it.each([
    "src/a.ts",
    ".git/index",
    ".git/HEAD",
    ".git/refs/heads/main",
    ".gitignore",
    "lathe/x",
    ".lathe2/x",
    "src/.gitignore",
    "src/a.git",
    "src/.git.bak",
    "planted/config",
  ])("%s is not", (relative) => {
    expect(new ProtectedPaths({ root, latheHome: home }).reason(path.join(root, relative))).toBeUndefined();
  });

  // macOS (APFS) and Windows (NTFS) ignore case: there `.GIT/config` opens .git/config, and a
  // write to `.Lathe/tools/x/index.js` lands in .lathe/tools. Linux keeps them apart, so the
  // same spellings are other files there (the second table), which is what makes this testable
  // here: the folding is what protects them, not the disk.
  const otherCase = [
    [".GIT/config", /git's configuration/],
    [".git/CONFIG", /git's configuration/],
    [".Git/hooks/pre-commit", /git hook/],
    [".git/Info/attributes", /attributes can name filter programs/],
    [".GIT", /git folder as a whole/],
    [".GITMODULES", /submodule configuration/],
    [".LATHE/settings.json", /project's Lathe folder/],
    [".Lathe/tools/new-plugin/index.js", /project's Lathe folder/],
    ["vendor/lib/.GIT/config", /repository/],
    ["vendor/lib/.git/HOOKS/post-checkout", /repository/],
    ["src/.GIT", /git folder or the pointer to one/],
  ] as const;

  it.each(otherCase)("%s is protected where the disk ignores case", (relative, what) => {
    const paths = new ProtectedPaths({ root, latheHome: home, caseInsensitive: true });
    expect(paths.reason(path.join(root, relative))).toMatch(what);
  });

  it.each(otherCase)("%s is another file where the disk keeps case apart", (relative) => {
    const paths = new ProtectedPaths({ root, latheHome: home, caseInsensitive: false });
    expect(paths.reason(path.join(root, relative))).toBeUndefined();
  });

  it("protects $LATHE_HOME spelled in another case where the disk ignores case", () => {
    const paths = new ProtectedPaths({ root, latheHome: home, caseInsensitive: true });
    expect(paths.reason(path.join(home.toUpperCase(), "settings.json"))).toMatch(/Lathe's own data folder/);
  });

  it("protects all of $LATHE_HOME, wherever it is", () => {
    const paths = new ProtectedPaths({ root, latheHome: home });
    expect(paths.reason(path.join(home, "settings.json"))).toMatch(/Lathe's own data folder/);
    expect(paths.reason(path.join(home, "trust.json"))).toMatch(/Lathe's own data folder/);
    expect(paths.reason(home)).toMatch(/Lathe's own data folder/);
  });

  it("follows a .git file to the git folder it names (a worktree), and that folder's commondir", async () => {
    const main = path.join(base, "main-repo/.git");
    const linked = path.join(main, "worktrees/ws");
    await mkdir(linked, { recursive: true });
    await writeFile(path.join(linked, "commondir"), "../..\n");
    await rm(path.join(root, ".git"), { recursive: true });
    await writeFile(path.join(root, ".git"), `gitdir: ${linked}\n`);
    const paths = new ProtectedPaths({ root, latheHome: home });
    expect(paths.reason(path.join(root, ".git"))).toMatch(/pointer to the repository's git folder/);
    expect(paths.reason(path.join(linked, "config.worktree"))).toMatch(/git's configuration/);
    expect(paths.reason(path.join(main, "config"))).toMatch(/git's configuration/);
    expect(paths.reason(path.join(main, "hooks/pre-commit"))).toMatch(/git hook/);
    expect(paths.reason(path.join(main, "objects/ab/cdef"))).toBeUndefined();
  });

  it("protects a workspace file the repository's config includes, even before it exists, and only that", async () => {
    await writeFile(
      path.join(root, ".git/config"),
      '[core]\n[include]\n\tpath = ../shared.gitconfig\n[includeIf "onbranch:main"]\n\tpath = /etc/elsewhere.gitconfig\n',
    );
    const paths = new ProtectedPaths({ root, latheHome: home });
    expect(paths.reason(path.join(root, "shared.gitconfig"))).toMatch(/a file git's configuration includes/);
    expect(paths.reason(path.join(root, "other.gitconfig"))).toBeUndefined();
    // Outside the workspace the sandbox holds it anyway: it is not listed.
    expect(paths.entries().map((e) => e.path)).not.toContain("/etc/elsewhere.gitconfig");
    // The include taken out: the file is the workspace's again.
    await writeFile(path.join(root, ".git/config"), "[core]\n");
    expect(paths.reason(path.join(root, "shared.gitconfig"))).toBeUndefined();
  });

  it("protects the files an MCP server starts from, and the folder of a script below the root", async () => {
    await mkdir(path.join(root, "tools/mcp"), { recursive: true });
    await mkdir(path.join(root, "conf"), { recursive: true });
    await writeFile(path.join(root, "tools/mcp/server.js"), "");
    await writeFile(path.join(root, "tools/mcp/lib.js"), "");
    await writeFile(path.join(root, "run.sh"), "");
    await writeFile(path.join(root, "conf/mcp.json"), "{}");
    const paths = new ProtectedPaths({
      root,
      latheHome: home,
      servers: [
        server("node-script", { command: "node", args: ["tools/mcp/server.js", "--config=conf/mcp.json"] }),
        server("local", { command: "./run.sh" }),
        server("from-npm", { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }),
        server("remote", { url: "https://mcp.example.com/mcp" }),
      ],
    });
    expect(paths.reason(path.join(root, "tools/mcp/server.js"))).toMatch(/MCP server "node-script"/);
    expect(paths.reason(path.join(root, "tools/mcp/lib.js"))).toMatch(/MCP server "node-script"/);
    expect(paths.reason(path.join(root, "conf/mcp.json"))).toMatch(/MCP server "node-script"/);
    expect(paths.reason(path.join(root, "run.sh"))).toMatch(/MCP server "local"/);
    // The workspace itself stays writable even though run.sh lies in it.
    expect(paths.reason(path.join(root, "notes.txt"))).toBeUndefined();
  });

  it("lists missing folders and files too (the sandbox holds them), each once", () => {
    const entries = new ProtectedPaths({ root, latheHome: home }).entries();
    const rel = entries.map((e) => `${e.kind}:${path.relative(base, e.path)}`);
    expect(rel).toEqual(
      expect.arrayContaining([
        "folder:lathe-home",
        "folder:ws/.lathe",
        "file:ws/.gitmodules",
        "file:ws/.git/config",
        "file:ws/.git/commondir",
        "folder:ws/.git/hooks",
        "folder:ws/.git/info",
        "folder:ws/.git/modules",
      ]),
    );
    expect(new Set(rel).size).toBe(rel.length);
  });
});

describe("protected paths: a home folder inside the workspace", () => {
  // The person opened their home folder (or a folder above it): what there makes programs run
  // outside Lathe later — at the next login, terminal, git or npm command — must not change.
  it.each([
    [".bashrc", /shell startup file/],
    [".profile", /shell startup file/],
    [".zshrc", /shell startup file/],
    [".config/fish/config.fish", /shell startup file/],
    [".gitconfig", /your git configuration/],
    [".config/git/config", /your git configuration/],
    [".npmrc", /npm configuration/],
    [".config/autostart/evil.desktop", /desktop starts at login/],
    [".config/systemd/user/evil.service", /systemd user services/],
    [".local/bin/git", /programs on your PATH/],
    ["bin/ls", /programs on your PATH/],
  ])("%s, missing or not, is protected when the workspace is the home folder", (relative, what) => {
    const paths = new ProtectedPaths({ root, latheHome: home, home: root });
    expect(paths.reason(path.join(root, relative))).toMatch(what);
  });

  it("covers the home folder below a workspace that holds it (a person opened /)", () => {
    const paths = new ProtectedPaths({ root: base, latheHome: home, home: root });
    expect(paths.reason(path.join(root, ".bashrc"))).toMatch(/shell startup file/);
    expect(paths.reason(path.join(base, ".bashrc"))).toBeUndefined();
  });

  it.each([".bashrc", ".gitconfig", "bin/tool", ".local/bin/x", ".config/git/config"])(
    "leaves %s alone in a project that is not the home folder",
    (relative) => {
      const paths = new ProtectedPaths({ root, latheHome: home, home: path.join(base, "someone") });
      expect(paths.reason(path.join(root, relative))).toBeUndefined();
    },
  );

  it("leaves a project inside the home folder alone", () => {
    const paths = new ProtectedPaths({ root, latheHome: home, home: base });
    expect(paths.reason(path.join(root, ".bashrc"))).toBeUndefined();
    expect(paths.entries().map((e) => e.path)).not.toContain(path.join(base, ".bashrc"));
  });
});

describe("protected paths: $XDG_CONFIG_HOME", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.XDG_CONFIG_HOME;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
  });

  it("protects git's, fish's and the desktop's folders where $XDG_CONFIG_HOME puts them", () => {
    process.env.XDG_CONFIG_HOME = path.join(root, ".cfg");
    const paths = new ProtectedPaths({ root, latheHome: home, home: root });
    expect(paths.reason(path.join(root, ".cfg/git/config"))).toMatch(/your git configuration/);
    expect(paths.reason(path.join(root, ".cfg/autostart/x.desktop"))).toMatch(/desktop starts at login/);
    // ~/.config is then an ordinary folder; ~/.gitconfig is still read.
    expect(paths.reason(path.join(root, ".config/git/config"))).toBeUndefined();
    expect(paths.reason(path.join(root, ".gitconfig"))).toMatch(/your git configuration/);
  });

  it("takes a relative $XDG_CONFIG_HOME as unset, as the XDG spec says", () => {
    process.env.XDG_CONFIG_HOME = "cfg";
    const paths = new ProtectedPaths({ root, latheHome: home, home: root });
    expect(paths.reason(path.join(root, ".config/git/config"))).toMatch(/your git configuration/);
  });
});
