/**
 * A command as a call plan names it (a `shell.run` access): what the shell analysis
 * (policy/shell/) finds in a command line, and what rules, approval keys and the watchdog judge.
 */

/** A word of a command line. */
export interface ShellWord {
  /** The value after quote removal when literal; the source slice when it expands at run time. */
  text: string;
  literal: boolean;
}

/**
 * Where a command runs, relative to the folder the whole command line starts in, when a
 * directory change (`cd`, `pushd`, `env -C`, …) comes before it. Every folder it may run in is
 * listed (a `cd` inside a subshell or a branch may or may not have happened); `unknown` says why
 * the folder cannot be known at all (`cd "$D"`, `cd -`, `popd`, `find -execdir`).
 */
export interface RunsIn {
  /** Paths relative to the starting folder (or absolute); "." is the starting folder. */
  dirs: readonly string[];
  unknown?: string;
}

/** One program (or builtin) that the command runs. */
export interface SimpleCommand {
  /** argv[0] after quote/escape removal (`\curl`, `c""url`, `'curl'` → "curl"); a path stays a path. */
  name: string;
  /** argv[1..] */
  args: ShellWord[];
  /** The source slice of this simple command (for messages and rule matching). */
  source: string;
  /** Wrappers unwrapped to reach it, outermost first (e.g. ["sudo", "env"], ["find -exec"], ["sh -c"]). */
  via: string[];
  /** Absent: it runs in the folder the command line starts in. */
  runsIn?: RunsIn;
}
