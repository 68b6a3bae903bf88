/**
 * The shapes the shell analysis produces and passes between its parts. A leaf but for the
 * command a call plan names (tools/shell-command.ts), so every part of the analysis can depend
 * on it without an import circle.
 */
import type { RunsIn, ShellWord, SimpleCommand } from "../../tools/shell-command.ts";

export type { RunsIn, ShellWord, SimpleCommand };

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
