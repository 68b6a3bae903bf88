import type { ResolvedPath } from "../capability/fs-capability.ts";
import type { SimpleCommand } from "./shell-command.ts";

/** What a tool says a call will touch, before anything runs (from its validated arguments). */
export type PlannedAccess =
  | { capability: "fs.read" | "fs.write"; path: string }
  | { capability: "shell.run"; command: SimpleCommand }
  | { capability: "net.fetch"; url: string };

/**
 * A path a command line names that the program may read (a word of its arguments, or a glob
 * the shell will expand): relative to the plan's folder, or absolute.
 */
export interface MentionedPath {
  text: string;
  /** An unquoted glob (`.e*`, `src/*.env`): judged as the files it matches when the call is decided. */
  glob: boolean;
  /** Given to a program that reads whole folders (`grep -r`, `rg`): everything below it may be read. */
  recursive?: boolean;
  /**
   * The program does not follow it when it is itself a symbolic link (`find homelink` lists the
   * link, not the folder it leads to; `find homelink/` does follow it).
   */
  linkNotFollowed?: boolean;
  /**
   * A lister that prints names only this many levels below it (`find -maxdepth 1`): a hidden
   * folder deeper than that is never entered, its own name at most is printed (as `ls` does).
   */
  depth?: number;
  /** Given to a lister (find, ls -R, du, tree), which prints names (and du sizes), not contents. */
  lister?: boolean;
  /**
   * Given to a program that prints only its total size (`du -s`, following no link inside it): a
   * `sandbox.denyRead` entry named itself shows what `du -d 1` of its parent shows, no name inside.
   */
  totalOnly?: boolean;
}

export interface CallPlan {
  accesses: PlannedAccess[];
  /**
   * Paths a shell command names that its programs may read. Whether a program reads its
   * arguments is its own affair, so these are not checked against what the tool declared; they
   * answer only to `fs.read` deny rules: one that matches refuses the call (`cat .env` under
   * `{"permission": "fs.read", "pattern": "**\/.env", "action": "deny"}`).
   */
  mentions?: MentionedPath[];
  /** Reasons the call cannot be fully seen through; such a call is never allowed without a person. */
  unclear: string[];
  /** The working directory, relative to the root, for paths in the plan (default: the root). */
  cwd?: string;
  /**
   * For a call that starts a shell command (bash): undefined when the command provably changes
   * nothing, else why not. Without the OS sandbox only a provably read-only command runs
   * without a person.
   */
  notReadOnly?: string | undefined;
  /** Whether the call starts a process (bash, a plugin's command); see `notReadOnly`. */
  startsProcess?: boolean;
}

/** A planned access after the capability check: canonical paths, parsed hosts. */
export type ResolvedAccess =
  | {
      capability: "fs.read" | "fs.write";
      input: string;
      path: ResolvedPath;
      /**
       * The other names the call reaches that file by (absolute): the path as written and each
       * symlink on the way (see namesOnTheWay). Deny and ask rules judge them too; present only
       * when some rule could.
       */
      via?: readonly string[];
    }
  | { capability: "shell.run"; command: SimpleCommand; text: string }
  | { capability: "net.fetch"; url: string; host: string };

/**
 * A plan after the capability check: its accesses resolved, in the plan's order, and its folder.
 * `execute` uses these paths (`runtime.resolved`) rather than resolving its arguments again.
 */
export interface ResolvedPlan {
  accesses: ResolvedAccess[];
  /** The plan's `cwd`, resolved for read; absent when the plan names none (the root). */
  cwd?: ResolvedPath;
}

/** The one-line form of a simple command that rules and approval keys match against. */
export function commandText(command: SimpleCommand): string {
  return [command.name, ...command.args.map((a) => a.text)].join(" ");
}
