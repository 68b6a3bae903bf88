import type { Confinement } from "../sandbox/process-sandbox.ts";
import { isLatheKeyVariable } from "../config/key-variables.ts";
import { withoutHiddenEnv } from "../sandbox/hidden-env.ts";
import type { RemotePty } from "../spawner/spawner-client.ts";

interface PtyCommand {
  /** The shell command line, run by `bash --noprofile --norc -c`. */
  command: string;
  /**
   * Run it inside the OS sandbox, confined this way (with the environment that needs). The pty,
   * the process-group kill and backpressure stay the same; the sandbox ends the whole tree
   * inside with its first process.
   */
  confine?: Confinement;
  /** Variables of the host's environment the command starts without (ProcessSandbox.hiddenEnv). */
  hideEnv?: readonly string[];
  /** Canonical absolute working directory. */
  cwd: string;
  /** Aborting kills the command's whole process group. */
  signal: AbortSignal;
  /**
   * Where its output (stdout and stderr combined, as the terminal gives them) goes: the first
   * `maxBytes` come back as text; past that every byte goes to `sidecarPath` (see
   * spawner/capped-output.ts). `root` is the workspace, against which the notice of removed
   * protected files (appended to the output) names them. Past `maxSidecarBytes` the command is
   * stopped and `exited` says `outputCapped`.
   */
  output: { maxBytes: number; sidecarPath: string; root: string; maxSidecarBytes?: number };
  /**
   * Stop it (its whole process group, as an abort does) this long after it started, keeping its
   * output: `exited` then settles with `timedOut` and what it printed until then.
   */
  stopAfterMs?: number;
}

/**
 * A command running on its own pseudo-terminal, in its own session and process group. `exited`
 * settles once it has exited and every byte it wrote has been captured, with its exit code
 * (128 + the signal number when a signal killed it), the protected files it created (which have
 * been removed) and its output.
 */
export type PtyProcess = RemotePty;

/**
 * Prepended to every command: a newline is `\n` rather than `\r\n` (the terminal's newline
 * translation costs 20× the throughput on line-heavy output), and stdin is /dev/null so a
 * program that reads it (`cat` with no file) sees end-of-file instead of waiting for a user.
 * The terminal stays open on fd 19 of the command and what it runs: bash execs a command's last
 * program, and one that closes its stdout and stderr before it exits (coreutils' `ls`, `cat`…
 * do) would otherwise leave the terminal with no process holding it, and its hang-up would kill
 * that program, turning an exit 0 into 129 (SIGHUP) and dropping output.
 * On SIGTERM (a timeout or a stop: its programs get one too) bash waits for the program it is
 * running to finish before it exits with 128 + 15, as it would have: in the OS sandbox its exit
 * ends everything inside at once, before that program could clean up (git its index.lock).
 * Background jobs still running when bash exits are stopped with it (see spawner-pty.ts): bash
 * names them on its way out, so the model learns that its server did not stay up.
 * All of it sits on the command's first line, so bash's line numbers in messages stay right.
 */
const PRELUDE =
  "stty -onlcr 2>/dev/null; exec 19<&0 </dev/null; trap 'exit 143' TERM; " +
  `trap '__lathe_jobs=$(jobs -r); [ -z "$__lathe_jobs" ] || printf "\\n[Lathe stopped these background jobs, still running when the command ended (nothing outlives a bash call: do not start servers or watchers):\\n%s]\\n" "$__lathe_jobs" >&2' EXIT; `;

/** What bash runs for a command: the prelude, then the command on the same first line. */
export function ptyScript(command: string): string {
  return PRELUDE + command;
}

/**
 * Variables of the host's environment that would make bash run code or read a command line
 * differently from what the shell policy analysed: a file sourced before the command
 * (`BASH_ENV`, `ENV`), exported functions (`BASH_FUNC_name%%`), hooks (`PROMPT_COMMAND`, `PS4`
 * with xtrace), options (`SHELLOPTS`, `BASHOPTS`), word splitting and globbing (`IFS`,
 * `GLOBIGNORE`) and where `cd` goes (`CDPATH`). The command starts without them.
 */
const SHELL_STEERING =
  /^(BASH_ENV|ENV|CDPATH|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|GLOBIGNORE|BASH_FUNC_.*)$/;

/**
 * Editors for programs that would open one, since nobody can type in it: git takes the message
 * it was given or its default (a commit without `-m` stops with "Aborting commit due to empty
 * commit message", a merge keeps its message, `rebase -i` its plan), and anything else that
 * starts `$EDITOR` or `$VISUAL` sees it fail. The user's own editor (a `vi` from their shell's
 * profile) would wait on the terminal until the timeout, and leave git's lock behind.
 */
const NO_EDITOR = {
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  EDITOR: "false",
  VISUAL: "false",
};

/**
 * The environment bash starts with: the host's, less what steers the shell (above), less the
 * keys Lathe itself reaches models and search with (config/key-variables.ts: the default
 * variables always) and less `hidden` (those settings name, and `sandbox.denyEnv`'s names and
 * patterns: see hidden-env.ts); no pager and no editor.
 */
function commandEnv(hidden: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(withoutHiddenEnv(process.env, hidden)))
    if (!SHELL_STEERING.test(key) && !isLatheKeyVariable(key)) env[key] = value;
  // The terminal's real size is the pty's; stale values from the host would contradict it.
  delete env.COLUMNS;
  delete env.LINES;
  return {
    ...env,
    TERM: "dumb",
    NO_COLOR: "1",
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    ...NO_EDITOR,
    LATHE: "1",
  };
}

/**
 * Run one command line under bash on a fresh pseudo-terminal (resolves once it has started),
 * started by the process spawner (spawner/), never by this process, which also writes its output
 * where `output` says: the bulk of it never passes through this process. `exited` settles after
 * the last byte. When the command ends, or the signal aborts, its whole process group is stopped,
 * so no background job outlives the call. Throws a SandboxError when the sandbox cannot wrap it
 * (it did not run), a SpawnerError when the spawner stopped.
 */
export async function runInPty(options: PtyCommand): Promise<PtyProcess> {
  options.signal.throwIfAborted();
  // The spawner's client (and its protocol) load with the first command, not with every start.
  const { processSpawner } = await import("../spawner/process-spawner.ts");
  return processSpawner().pty(
    {
      script: ptyScript(options.command),
      cwd: options.cwd,
      env: { ...commandEnv(options.hideEnv ?? []), ...options.confine?.env },
      ...(options.confine ? { confine: options.confine.spec } : {}),
      output: options.output,
      ...(options.stopAfterMs === undefined ? {} : { stopAfterMs: options.stopAfterMs }),
    },
    options.signal,
  );
}
