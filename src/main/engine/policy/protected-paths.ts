import { lstatSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isWithin } from "../capability/canonical-path.ts";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import { configIncludes } from "../git/config-includes.ts";
import { commonDirOf, gitDirOf } from "../git/git-pointer.ts";

/** A location no tool, plugin or command may write, whether or not it exists yet. */
export interface ProtectedEntry {
  /** Canonical absolute path. */
  path: string;
  /** What it is, for messages ("git's configuration"). */
  what: string;
  /** What it is or would be; a folder is protected with everything below it. */
  kind: "folder" | "file";
}

/** The MCP servers whose files are protected: every configured one, trusted or not. */
export interface ProtectedServer {
  name: string;
  config: McpServerConfig;
}

interface ProtectedPathsInput {
  /** Canonical workspace root. */
  root: string;
  /** Canonical `$LATHE_HOME`. */
  latheHome: string;
  servers?: readonly ProtectedServer[];
  /** The person's home folder (default: the process's, canonical); see HOME_STARTUP. */
  home?: string;
  /**
   * Whether names differ only in case (and Unicode normalisation) on this disk: true on macOS
   * and Windows, whose usual file systems (APFS, NTFS) treat `.LATHE` as `.lathe`; false on Linux.
   */
  caseInsensitive?: boolean;
}

const CASE_INSENSITIVE_BY_DEFAULT = process.platform === "darwin" || process.platform === "win32";

/**
 * What git executes or reads as configuration inside a git directory: a hook runs on the next
 * commit, and a config line such as `core.fsmonitor` runs on the next `git status` (for whoever
 * runs it, inside Lathe or not). `info` holds `attributes`, which can name filter programs;
 * `modules` holds each submodule's own git directory, config and hooks included; `commondir`
 * points git at another directory whose config it then reads.
 */
const GIT_DIR_ENTRIES: ReadonlyArray<readonly [string, ProtectedEntry["kind"], string]> = [
  ["config", "file", "git's configuration"],
  ["config.worktree", "file", "git's configuration"],
  ["commondir", "file", "git's configuration"],
  ["hooks", "folder", "a git hook folder"],
  ["info", "folder", "git's info folder (its attributes can name filter programs)"],
  ["modules", "folder", "a submodule's git folder"],
];

const SHELL_STARTUP =
  "a shell startup file of your home folder (a shell runs it at every login or new terminal, outside Lathe)";

/**
 * What in a home folder makes programs run outside Lathe, for the person, later: the shells run
 * their startup files at every login and new terminal, git reads the user's configuration in every
 * repository (core.pager, aliases), npm its user configuration before every script (node-options,
 * script-shell), the desktop starts what autostart and systemd's user units name, and a folder
 * early on PATH shadows every program. Protected only when the workspace holds the home folder (a
 * person opened `~` or `/`): elsewhere a `.bashrc` in a project is just a file.
 */
const HOME_STARTUP: ReadonlyArray<readonly [string, ProtectedEntry["kind"], string]> = [
  ...[".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile"].map(
    (name) => [name, "file", SHELL_STARTUP] as const,
  ),
  ...[".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout", ".xprofile", ".xsessionrc"].map(
    (name) => [name, "file", SHELL_STARTUP] as const,
  ),
  [".gitconfig", "file", "your git configuration (git reads it in every repository, outside Lathe too)"],
  [".npmrc", "file", "your npm configuration (it can name programs npm runs for every script)"],
  [".local/bin", "folder", "a folder of programs on your PATH (one there stands in for a system program)"],
  ["bin", "folder", "a folder of programs on your PATH (one there stands in for a system program)"],
];

/** The same kind, in the person's configuration folder ($XDG_CONFIG_HOME, else ~/.config). */
const CONFIG_STARTUP: ReadonlyArray<readonly [string, ProtectedEntry["kind"], string]> = [
  ["fish", "folder", SHELL_STARTUP],
  ["git", "folder", "your git configuration (git reads it in every repository, outside Lathe too)"],
  ["autostart", "folder", "the programs your desktop starts at login"],
  ["systemd", "folder", "your systemd user services (they start programs outside Lathe)"],
];

/** The configuration folder programs read: $XDG_CONFIG_HOME when it is absolute, else ~/.config. */
function configHome(home: string): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return xdg !== undefined && path.isAbsolute(xdg) ? real(path.resolve(xdg)) : path.join(home, ".config");
}

/** The same inside any `.git` below the root (nested repositories), matched by name. */
const NESTED_GIT =
  /(^|\/)\.git\/(config|config\.worktree|commondir|(hooks|info|modules)(\/.*)?|worktrees\/[^/]+\/(config\.worktree|commondir))$/;

function kindOf(p: string): "folder" | "file" | "missing" {
  try {
    return lstatSync(p).isDirectory() ? "folder" : "file";
  } catch {
    return "missing";
  }
}

/** A path's canonical form when it exists; the path itself otherwise (the root is canonical). */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function gitDirEntries(root: string, gitDir: string, out: ProtectedEntry[], seen: Set<string>): void {
  if (seen.has(gitDir)) return;
  seen.add(gitDir);
  for (const [name, kind, what] of GIT_DIR_ENTRIES) out.push({ path: path.join(gitDir, name), kind, what });
  // A file the config includes from the workspace (`include.path = ../.gitconfig`) is config too.
  for (const name of ["config", "config.worktree"]) {
    for (const included of configIncludes(path.join(gitDir, name))) {
      const canonical = real(included);
      if (isWithin(root, canonical))
        out.push({
          path: canonical,
          kind: "file",
          what: `a file git's configuration includes (from .git/${name})`,
        });
    }
  }
  // A linked worktree's git directory names the main one, whose config git reads as well.
  // (A name that is not UTF-8 cannot be given to the sandbox: that folder stays unlisted.)
  const common = commonDirOf(gitDir);
  if (typeof common === "string") gitDirEntries(root, real(common), out, seen);
}

/** Words of an MCP server's command line that name files: the command and its file arguments. */
function serverFiles(server: ProtectedServer, root: string): ProtectedEntry[] {
  const out: ProtectedEntry[] = [];
  const what = `a file of MCP server "${server.name}"`;
  for (const canonical of serverCommandFiles(server.config, root)) {
    out.push({ path: canonical, kind: "file", what });
    // The modules a script loads from beside it run too: its folder, unless that is the
    // workspace itself (or above it), which must stay writable.
    const dir = path.dirname(canonical);
    if (isWithin(root, dir) && dir !== root) out.push({ path: dir, kind: "folder", what });
  }
  return out;
}

/** The files an MCP server's command line names (the command and its file arguments), canonical. */
export function serverCommandFiles(config: ProtectedServer["config"], root: string): string[] {
  if (!("command" in config)) return [];
  const cwd = config.cwd ? path.resolve(root, config.cwd) : root;
  const words = [config.command, ...config.args].flatMap((w) =>
    w.includes("=") && !w.startsWith("/") ? [w, w.slice(w.indexOf("=") + 1)] : [w],
  );
  const out: string[] = [];
  for (const word of words) {
    if (word === "" || (word.startsWith("-") && !word.includes("/"))) continue;
    const file = path.resolve(
      cwd,
      word.startsWith("~/") ? path.join(process.env.HOME ?? "/", word.slice(2)) : word,
    );
    let isFile: boolean;
    try {
      isFile = statSync(file).isFile();
    } catch {
      continue;
    }
    if (!isFile) continue;
    out.push(real(file));
  }
  return out;
}

/**
 * The paths no write may reach, through any tool, plugin or command: Lathe's data folder
 * (`$LATHE_HOME`), the project's `.lathe/` (settings, trust, tools, agents, skills), `.gitmodules`,
 * what git executes or reads as configuration inside the repository's git directory (and a
 * `.git` file that points elsewhere), the files of every configured MCP server, and, when the
 * workspace holds the home folder, what there runs programs outside Lathe (HOME_STARTUP). The
 * watchdog refuses named writes to them; the OS sandbox mounts them read-only. Missing ones are
 * protected too: creating `.lathe/tools/x` is as refused as changing it.
 */
export class ProtectedPaths {
  readonly root: string;
  readonly latheHome: string;
  private readonly servers: readonly ProtectedServer[];
  private readonly home: string;
  /** How a path is compared: as it is, or folded where the disk ignores case. */
  private readonly key: (p: string) => string;

  constructor(input: ProtectedPathsInput) {
    this.root = input.root;
    this.latheHome = input.latheHome;
    this.servers = input.servers ?? [];
    this.home = input.home ?? real(os.homedir());
    this.key =
      (input.caseInsensitive ?? CASE_INSENSITIVE_BY_DEFAULT)
        ? (p) => p.normalize("NFC").toLowerCase()
        : (p) => p;
  }

  /** Every protected location as the disk stands now (it decides which git directory is used). */
  entries(): ProtectedEntry[] {
    const { root } = this;
    const out: ProtectedEntry[] = [
      {
        path: this.latheHome,
        kind: "folder",
        what: "Lathe's own data folder ($LATHE_HOME: settings, trust, plugins)",
      },
      {
        path: path.join(root, ".lathe"),
        kind: "folder",
        what: "the project's Lathe folder (.lathe: Lathe's own settings, trust, tools, agents and skills)",
      },
      { path: path.join(root, ".gitmodules"), kind: "file", what: "git's submodule configuration" },
    ];
    const dotGit = path.join(root, ".git");
    const seen = new Set<string>();
    if (kindOf(dotGit) === "file") {
      out.push({ path: dotGit, kind: "file", what: "git's pointer to the repository's git folder" });
      const target = gitDirOf(dotGit);
      if (typeof target === "string") gitDirEntries(root, real(target), out, seen);
    } else {
      gitDirEntries(root, dotGit, out, seen);
    }
    for (const server of this.servers) out.push(...serverFiles(server, root));
    if (isWithin(root, this.home))
      for (const [name, kind, what] of HOME_STARTUP)
        out.push({ path: path.join(this.home, name), kind, what });
    const config = configHome(this.home);
    if (isWithin(root, config))
      for (const [name, kind, what] of CONFIG_STARTUP)
        out.push({ path: path.join(config, name), kind, what });
    return out;
  }

  /**
   * What `absolute` (canonical) is when no write may reach it, else undefined. Besides the
   * entries, a nested repository's git configuration and hooks below the root count, and so
   * does the repository's `.git` itself (replacing it swaps in another configuration), and any
   * `.git` below the root (a nested one, or a `.git` file pointing at a planted git folder).
   */
  reason(absolute: string, entries: readonly ProtectedEntry[] = this.entries()): string | undefined {
    // On a disk that ignores case, `.GIT/config` and `.Lathe/tools` are the protected paths.
    const target = this.key(absolute);
    const root = this.key(this.root);
    for (const entry of entries) {
      const protectedPath = this.key(entry.path);
      if (entry.kind === "folder" ? isWithin(protectedPath, target) : protectedPath === target)
        return entry.what;
    }
    if (target === path.join(root, ".git")) return "the repository's git folder as a whole";
    // A `.git` below the root is a nested repository's git folder or, as a file, a pointer
    // (`gitdir: ../elsewhere`) to a git folder anywhere: written, it makes a folder of the
    // workspace a repository whose configuration (core.fsmonitor, core.pager) was never
    // protected, and git (or an editor scanning for repositories) runs it there.
    if (isWithin(root, target) && /(^|\/)\.git$/.test(path.relative(root, target)))
      return "a repository's git folder or the pointer to one (.git)";
    if (isWithin(root, target) && NESTED_GIT.test(path.relative(root, target)))
      return "git's configuration or hooks of a repository";
    return undefined;
  }
}
