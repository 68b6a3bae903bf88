/**
 * The shapes the shell analysis produces and passes between its parts. A leaf: it imports
 * nothing, so every part of the analysis can depend on it without an import circle.
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

/** A file the command opens through a redirection. */
export interface ShellRedirection {
  access: "read" | "write";
  target: ShellWord;
  operator: string;
  source: string;
  /** Absent: relative targets are relative to the folder the command line starts in. */
  runsIn?: RunsIn;
}

/** Everything a bash command would run and open, and why it cannot be fully seen. */
export interface ShellAnalysis {
  /** EVERY simple command anywhere in the source, in source order. */
  commands: SimpleCommand[];
  /** Every file redirection target (not here-docs, here-strings or fd duplications). */
  redirections: ShellRedirection[];
  /** Human-readable reasons the command cannot be fully seen through; empty when fully visible. */
  opaque: string[];
  /**
   * The source of every job the command starts in the background (`cmd &`, `coproc`). Lathe
   * stops them when the call ends; noted so a reader knows the call does not wait for them.
   */
  background?: string[];
}

/** Why a word's value is only known when the shell runs. */
export type DynamicCause = "expansion" | "glob" | "brace" | "tilde" | "locale";

/** One word of a command line, with its place in the source it came from. */
export interface ArgvItem {
  word: ShellWord;
  pos: number;
  end: number;
  /** Why the word is dynamic, when the parser told us. */
  cause?: DynamicCause | undefined;
}
