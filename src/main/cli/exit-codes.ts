/** The CLI's exit codes: part of its stable contract, so scripts can branch on them. */
export const ExitCode = {
  /** The command did what was asked (for `call`: the envelope is an `output`). */
  ok: 0,
  /** A runtime failure (for `call`: the envelope is an `error`, or no call could be made). */
  failure: 1,
  /** The command line itself is wrong: unknown command or flag, missing or invalid value. */
  usage: 2,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Filled in by a command's action: the code the process exits with when it returns normally. */
export interface ExitStatus {
  exitCode: ExitCodeValue;
}
