// Git repositories a confined command made or changed below the workspace, made inert when it
// ends. The OS sandbox holds the workspace's own git configuration, but a command may `git init
// sub` and write `sub/.git/config` (or move a prepared `.git` in, or write a `.git` file pointing
// elsewhere): git then runs that repository's `core.fsmonitor`, hooks, pagers and filters for
// whoever works there next — an editor that opens nested repositories on its own does, outside
// every sandbox. So after each command the `.git` entries below the root are looked at, and what
// the command added that makes git run a program is taken out, saying so.
import {
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { isWithin } from "../capability/canonical-path.ts";
import { walkWorkspace } from "../capability/workspace-walker.ts";
import { errorMessage } from "../errors/error-message.ts";
import { fileIdentity } from "./file-identity.ts";
import { IgnoredFolders, MAX_IGNORED_FOLDERS } from "./ignored-repositories.ts";
import { readGitConfig, writeGitConfig, type GitSetting } from "../git/git-config-file.ts";
import { isBareRepository } from "../git/bare-repository.ts";
import { configIncludes } from "../git/config-includes.ts";
import { commonDirName, gitDirOf, type GitDirName } from "../git/git-pointer.ts";
import { isInertGitSetting } from "../git/inert-git-config.ts";

/** The files of a git folder that decide what git runs (the hooks apart). */
const CONFIG_FILES = ["config", "config.worktree"] as const;

/** What one `.git` entry below the root held when last looked at. */
interface GitEntryState {
  id: string | undefined;
  /** A `.git` file's bytes or a `.git` link's target, as latin1 (exact; only compared). */
  pointer?: string;
  /** A `.git` folder's config files and `commondir`, as bytes. */
  files: Map<string, Buffer>;
  /** The workspace files its config files include (`include.path = ../shared.gitconfig`), by absolute path, as bytes. */
  included: Map<string, Buffer>;
  /** A `.git` folder's hooks, by name: their identities. */
  hooks: Map<string, string>;
  /** The identity of its `hooks` entry (a folder, or a link to one elsewhere). */
  hooksId?: string | undefined;
}

/** The `.git` entries below one workspace root, by absolute path. */
type Snapshot = Map<string, GitEntryState>;

/**
 * Files walked before the look gives up: the workspace is walked before and after each command
 * (as many as the checkpoints' scan takes).
 */
const MAX_FILES = 50_000;
/**
 * How far before a command's start a change still counts as the command's: the kernel stamps
 * change times from a coarse clock that may lag the one read at the start by a tick.
 */
const CLOCK_SLACK_MS = 100;
/** How many `commondir` links are followed from one git folder. */
const MAX_HOPS = 4;

function statOf(p: string): Stats | undefined {
  return lstatSync(p, { throwIfNoEntry: false });
}

function bytesOf(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** The files inside the root that a git folder's config files include, directly or through each other. */
function includedFiles(root: string, gitDir: string): string[] {
  return CONFIG_FILES.flatMap((name) => configIncludes(path.join(gitDir, name))).filter((file) =>
    isWithin(root, file),
  );
}

function capture(root: string, dotGit: string): GitEntryState {
  const id = fileIdentity(dotGit);
  const stat = statOf(dotGit);
  const state: GitEntryState = { id, files: new Map(), included: new Map(), hooks: new Map() };
  if (stat?.isSymbolicLink()) {
    state.pointer = readlinkSync(dotGit, { encoding: "buffer" }).toString("latin1");
  } else if (stat?.isFile()) {
    state.pointer = bytesOf(dotGit)?.toString("latin1") ?? "";
  } else if (stat?.isDirectory()) {
    for (const name of [...CONFIG_FILES, "commondir"]) {
      const bytes = bytesOf(path.join(dotGit, name));
      if (bytes) state.files.set(name, bytes);
    }
    for (const file of includedFiles(root, dotGit)) {
      const bytes = bytesOf(file);
      if (bytes) state.included.set(file, bytes);
    }
    state.hooksId = fileIdentity(path.join(dotGit, "hooks"));
    for (const hook of hookNames(dotGit)) {
      const hookId = fileIdentity(path.join(dotGit, "hooks", hook));
      if (hookId) state.hooks.set(hook, hookId);
    }
  }
  return state;
}

/** The hooks git would run from a git folder: every entry of `hooks/` but the samples. */
function hookNames(gitDir: string): string[] {
  try {
    return readdirSync(path.join(gitDir, "hooks")).filter((name) => !name.endsWith(".sample"));
  } catch {
    return [];
  }
}

/** The workspace's own git folder (held by the sandbox; never changed here). */
function rootGitDir(root: string): string | undefined {
  const dotGit = path.join(root, ".git");
  const gitDir = gitDirOf(dotGit, statOf(dotGit));
  return typeof gitDir === "string" ? gitDir : undefined;
}

/** Where a pointer leads that the look does not follow: outside the workspace, or unnameable. */
function outside(target: Exclude<GitDirName, undefined>): string {
  return typeof target === "string"
    ? `${target}, outside the workspace`
    : `a folder Lathe cannot name (${target.unspellable})`;
}

function signature(setting: GitSetting): string {
  return `${setting.key}\0${setting.value ?? "\u0001"}`;
}

/** One look after a command: what it changed, and what was taken out of it. */
class Disarm {
  readonly notes: string[] = [];
  private readonly seen = new Set<string>();
  readonly root: string;
  readonly since: number;
  /** The root repository's git folder, looked up once per look: it is never disarmed. */
  private readonly rootGit: string | undefined;

  constructor(root: string, since: number) {
    this.root = root;
    this.since = since;
    this.rootGit = rootGitDir(root);
  }

  private name(p: string): string {
    return isWithin(this.root, p) ? path.relative(this.root, p) : p;
  }

  /** Whether the command wrote a path (its change time is after the command started). */
  private touched(p: string): boolean {
    const stat = statOf(p);
    return stat !== undefined && stat.ctimeMs >= this.since;
  }

  /**
   * Take out of a git folder what the command added that runs a program. `before` is the folder
   * as the command started: "new" when the command made it (or moved it here, or pointed a `.git`
   * at it), when everything in it is the command's; "unseen" for a folder a `.git` file sends git
   * to that was not read before, when what changed during the command (by its change time) is.
   */
  gitDir(gitDir: string, before: GitEntryState | "new" | "unseen", hops = 0): void {
    if (this.seen.has(gitDir)) return;
    this.seen.add(gitDir);
    const known = typeof before === "string" ? undefined : before;
    // A known folder was read as the command started, so whatever differs is what it (or something
    // beside it while it ran) did: no change time is trusted there, as a file moved in keeps its
    // own on some file systems. An unseen one is judged by change times.
    const ours = (file: string, previous: Buffer | undefined, now: Buffer): boolean =>
      before === "new" || (known ? !(previous && now.equals(previous)) : this.touched(file));
    for (const name of CONFIG_FILES) {
      const file = path.join(gitDir, name);
      const bytes = bytesOf(file);
      if (bytes && ours(file, known?.files.get(name), bytes))
        this.config(file, bytes, known?.files.get(name));
    }
    // A workspace file the config includes is config too (git reads it where the include
    // stands), and the command may write it: what it added there is taken out as well. Included
    // files are judged as the folder is, but one is never the command's merely because the
    // repository is (a new repository's includes were just taken out of its config).
    for (const file of includedFiles(this.root, gitDir)) {
      if (this.seen.has(file)) continue;
      this.seen.add(file);
      const bytes = bytesOf(file);
      const previous = known?.included.get(file);
      if (bytes && (known ? !(previous && bytes.equals(previous)) : this.touched(file)))
        this.config(file, bytes, previous);
    }
    const commondir = path.join(gitDir, "commondir");
    const text = bytesOf(commondir);
    const target = text && commonDirName(gitDir, text);
    if (text && target !== undefined) {
      const changed = ours(commondir, known?.files.get("commondir"), text);
      if (typeof target !== "string" || !isWithin(this.root, target)) {
        const previous = known?.files.get("commondir");
        const where = outside(target);
        if (changed && previous) {
          writeFileSync(commondir, previous);
          this.notes.push(
            `put back ${this.name(commondir)}, which the command changed to send git to read the configuration of ${where}`,
          );
        } else if (changed) {
          rmSync(commondir, { force: true });
          this.notes.push(
            `removed ${this.name(commondir)}, which sent git to read the configuration of ${where}`,
          );
        }
      } else if (target !== this.rootGit && hops < MAX_HOPS) {
        this.gitDir(target, changed ? "new" : "unseen", hops + 1);
      }
    }
    const hooks = path.join(gitDir, "hooks");
    if (statOf(hooks)?.isSymbolicLink()) {
      // Hooks kept elsewhere: the link is taken out when it is the command's, never what it leads to.
      if (before === "new" || (known ? known.hooksId !== fileIdentity(hooks) : this.touched(hooks))) {
        const target = readlinkSync(hooks);
        rmSync(hooks, { force: true });
        this.notes.push(`removed ${this.name(hooks)}, a link sending git to the hooks in ${target}`);
      }
      return;
    }
    for (const hook of hookNames(gitDir)) {
      const file = path.join(gitDir, "hooks", hook);
      if (before !== "new" && (known ? known.hooks.get(hook) === fileIdentity(file) : !this.touched(file)))
        continue;
      rmSync(file, { recursive: true, force: true });
      this.notes.push(`removed the hook ${this.name(file)}`);
    }
  }

  /** Take out of a config file the settings that run a program and were not there before. */
  private config(file: string, bytes: Buffer, previous: Buffer | undefined): void {
    const now = readGitConfig(bytes);
    if (now.kind === "refused") return; // git refuses to work in that repository at all
    if (now.kind === "no-git") {
      renameSync(file, `${file}.lathe-disarmed`);
      this.notes.push(
        `moved ${this.name(file)} aside to ${this.name(file)}.lathe-disarmed: git could not be run to tell what it would make git do (${now.reason})`,
      );
      return;
    }
    const old = previous ? readGitConfig(previous) : undefined;
    const kept = new Set(old?.kind === "settings" ? old.settings.map(signature) : []);
    const added = now.settings.filter((s) => !isInertGitSetting(s.key, s.value) && !kept.has(signature(s)));
    if (added.length === 0) return;
    writeGitConfig(
      file,
      now.settings.filter((s) => !added.includes(s)),
    );
    const keys = [...new Set(added.map((s) => s.key))];
    this.notes.push(`took ${keys.join(", ")} out of ${this.name(file)}`);
  }

  /**
   * A `.git` file or link: one the command wrote that sends git outside the workspace is removed;
   * the git folder one sends git to inside it is looked at as one of its own.
   */
  pointer(dotGit: string, stat: Stats, changed: boolean): void {
    const target = gitDirOf(dotGit, stat);
    if (target === undefined) return;
    if (typeof target !== "string" || !isWithin(this.root, target)) {
      if (!changed) return;
      rmSync(dotGit, { force: true });
      this.notes.push(`removed ${this.name(dotGit)}, which sent git to ${outside(target)}`);
    } else if (target !== this.rootGit) {
      this.gitDir(target, changed ? "new" : "unseen");
    }
  }
}

/**
 * The folders of the root repository's linked worktrees (`.git/worktrees/<name>`): the sandbox
 * leaves them writable, so that `git worktree add` works, and a worktree outside the workspace
 * reads its `commondir` and `config.worktree` from there.
 */
function worktreeFolders(root: string): string[] {
  const gitDir = rootGitDir(root);
  if (gitDir === undefined) return [];
  try {
    return readdirSync(path.join(gitDir, "worktrees")).map((name) => path.join(gitDir, "worktrees", name));
  } catch {
    return [];
  }
}

/** What one walk of the workspace found: the git folders to look at, and where it stopped early. */
interface GitEntries {
  entries: string[];
  /** Those found inside ignored folders (see IgnoredFolders). */
  ignored: ReadonlySet<string>;
  /** A folder inside an ignored one left unread (see IgnoredFolders). */
  cut?: string;
}

/** What the ignored folders below each root held at its last look, kept from one command to the next. */
const ignoredFolders = new Map<string, IgnoredFolders>();

/**
 * Every `.git` below the root (the root's own left out), bare repositories (`x.git` folders),
 * those inside ignored folders (node_modules/x/y/z/.git), and the root repository's worktree
 * folders, by absolute path. `fresh`: the ignored folders are looked at again (after a command);
 * otherwise what the last look found there serves (before one: the command has not run yet).
 */
async function gitEntries(root: string, fresh: boolean): Promise<GitEntries> {
  const found = new Set<string>();
  const tops: string[] = [];
  let files = 0;
  await walkWorkspace(
    root,
    { root, mayRead: () => true },
    {
      onFile: ({ relative }) => {
        if (++files > MAX_FILES) throw new TooManyFiles();
        // A bare repository is walked as any folder: its HEAD file tells it.
        if (relative === "HEAD" || relative.endsWith("/HEAD")) {
          const folder = path.join(root, path.dirname(relative));
          if (folder !== root && isBareRepository(folder)) found.add(folder);
        }
      },
      onGitEntry: (folder) => {
        if (folder !== "") found.add(path.join(root, folder, ".git"));
      },
      onIgnoredFolder: (folder) => tops.push(path.join(root, folder)),
    },
  );
  let kept = ignoredFolders.get(root);
  if (kept === undefined) ignoredFolders.set(root, (kept = new IgnoredFolders()));
  const below = fresh || !kept.looked ? kept.look(tops) : kept.known;
  const ignored = new Set(below.found.filter((entry) => !found.has(entry)));
  return {
    entries: [...found, ...ignored, ...worktreeFolders(root)],
    ignored,
    ...(below.cut !== undefined ? { cut: below.cut } : {}),
  };
}

class TooManyFiles extends Error {}

function snapshotOf(root: string, entries: readonly string[]): Snapshot {
  return new Map(entries.map((dotGit) => [dotGit, capture(root, dotGit)]));
}

/** Look at one `.git` below the root after a command, as it was before it (`known`, if it was there). */
function look(disarm: Disarm, dotGit: string, known: GitEntryState | undefined, unseen: boolean): void {
  const stat = statOf(dotGit);
  if (!stat) return;
  // One in an ignored folder, not known before (those are read between commands only when they
  // change), that the command did not make: judged by change times, as a folder a .git file
  // sends git to is.
  if (known === undefined && unseen && stat.ctimeMs < disarm.since) {
    if (stat.isDirectory()) disarm.gitDir(dotGit, "unseen");
    else disarm.pointer(dotGit, stat, false);
    return;
  }
  // Not there before, or another one now (made, or moved in): all of it is the command's.
  const replaced = known === undefined || known.id !== fileIdentity(dotGit);
  if (stat.isDirectory()) disarm.gitDir(dotGit, replaced ? "new" : known);
  else disarm.pointer(dotGit, stat, replaced || known.pointer !== capture(disarm.root, dotGit).pointer);
}

/** The look in progress below each root (one at a time per root: both may change the same files). */
const turns = new Map<string, Promise<unknown>>();

function inTurn<T>(root: string, work: () => Promise<T>): Promise<T> {
  const run = (turns.get(root) ?? Promise.resolve()).then(work, work);
  turns.set(
    root,
    run.catch(() => undefined),
  );
  return run;
}

/** Roots whose size was said to be past the look's limit, by this process (said once each). */
const toldTooLarge = new Set<string>();

/** A command's watch over the repositories below its workspace. */
export interface RepoWatch {
  /** Once the command has ended: take out what it planted; the notice to show ("" when none). */
  disarm(): Promise<string>;
}

function notice(notes: readonly string[]): string {
  if (notes.length === 0) return "";
  return `\n[Lathe ${notes.join("; ")}. Git runs such settings and hooks outside the sandbox, for whoever works in that repository next (an editor does on its own), so a command cannot add them. A person can add them outside the agent.]\n`;
}

/** Why the look could not be made, for the command's output ("" when it was said before). */
function unlooked(root: string, err: unknown): string {
  if (err instanceof TooManyFiles) {
    if (toldTooLarge.has(root)) return "";
    toldTooLarge.add(root);
  }
  const why =
    err instanceof TooManyFiles
      ? `the workspace has more than ${MAX_FILES} files outside .gitignore, too many to walk after every command (said once)`
      : errorMessage(err);
  return `\n[Lathe could not look for git repositories the command made or changed in the workspace (${why}): check any new .git folder's config and hooks before running git there.]\n`;
}

/** Roots whose ignored folders were said to be past what the look reads, by this process (said once each). */
const toldIgnoredCut = new Set<string>();

/** That the look left folders inside ignored ones unread ("" when none were, or it was said before). */
function partlyLooked(root: string, cut: string | undefined): string {
  if (cut === undefined || toldIgnoredCut.has(root)) return "";
  toldIgnoredCut.add(root);
  return `\n[Lathe looked for git repositories the command made in the folders .gitignore leaves out up to ${MAX_IGNORED_FOLDERS} folders, and left the rest unread (from ${path.relative(root, cut)}; said once): check any new .git or bare repository there before running git in it.]\n`;
}

/**
 * Start watching the repositories below a (canonical) workspace root for one command: call just
 * before it starts. The `.git` entries there are found and read now, so that after the command
 * what differs is what it did (or what was done beside it while it ran).
 */
export async function watchRepos(root: string): Promise<RepoWatch> {
  const since = Date.now() - CLOCK_SLACK_MS;
  let before: Snapshot | undefined;
  let failure: unknown;
  try {
    before = snapshotOf(root, (await gitEntries(root, false)).entries);
  } catch (err) {
    failure = err;
  }
  return {
    disarm: () =>
      inTurn(root, async () => {
        // Without the repositories as they were, everything would look planted: nothing is touched.
        if (before === undefined) return unlooked(root, failure);
        let after: GitEntries;
        try {
          after = await gitEntries(root, true);
        } catch (err) {
          return unlooked(root, err);
        }
        const disarm = new Disarm(root, since);
        try {
          for (const dotGit of after.entries)
            look(disarm, dotGit, before.get(dotGit), after.ignored.has(dotGit));
        } catch (err) {
          const done = disarm.notes.length > 0 ? ` after it ${disarm.notes.join("; ")}` : "";
          return `\n[Lathe could not finish making inert the git repositories the command made or changed in the workspace (${errorMessage(err)})${done}: check any new .git folder's config and hooks before running git there.]\n`;
        }
        return notice(disarm.notes) + partlyLooked(root, after.cut);
      }),
  };
}
