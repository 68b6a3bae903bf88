import path from "node:path";
import { z } from "zod";
import { LatheError } from "../errors/lathe-error.ts";
import { SandboxError } from "../errors/sandbox-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { ShellRunRequirement } from "../tools/requirement-set.ts";
import {
  leftOutSize,
  lineCount,
  OUTPUT_LIMITS,
  selfTruncated,
  utf8Head,
  type LeftOut,
  type SelfTruncated,
} from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { runInPty } from "./pty-runner.ts";
import type { CapturedOutput } from "../spawner/capped-output.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/**
 * The command stops itself at its timeout and hands over what it printed; the pipeline's own
 * deadline, this much later, is only the backstop for a spawner that never answers.
 */
const STOP_GRACE_MS = 10_000;
/**
 * The longest command line taken, in bytes. Linux passes it to bash as one argument, which cannot
 * pass 128 KiB; the rest is headroom for the prelude and the sandbox's wrapping (whose quoting can
 * still make a line with many quotes too long: that is reported the same way).
 */
const MAX_COMMAND_BYTES = 120_000;
/**
 * The most output a command's sidecar keeps. A command that prints without end (`yes`, a loop, a
 * log followed) wrote about 100 MB a second into `$LATHE_HOME` until its timeout, and could fill
 * the disk; past this it is stopped, as at its timeout.
 */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;
/**
 * How much of the end of a timed-out command's output its error shows: at most the tail the
 * spawner keeps (capped-output.ts CAPTURED_TAIL_BYTES; bash.test.ts holds them so). Not imported
 * from there: that module is the spawner's, and would load with every command of the CLI.
 */
export const TIMEOUT_TAIL_BYTES = 16 * 1024;
/**
 * How much of the end of a cut output the result keeps after the head (where a build's error or
 * a test run's summary usually is), and the room left for the note between them: head, note and
 * tail together stay within the output cap.
 */
export const CUT_TAIL_BYTES = 16 * 1024;
const CUT_NOTE_BYTES = 1024;

const DESCRIPTION = `Run one command line in a fresh, non-interactive bash in the workspace; returns {output, exit_code}, stdout and stderr combined. Use it for tests, builds, git and package managers; to read, search or change files prefer read, grep, glob, edit and write.

Nothing carries over between calls (no cd, no variables): pass cwd instead. Lists and pipelines are fine; every command must be one the session allows. A non-zero exit_code is not a failed call: read the output. Output past 200 KB is cut to its head and its last lines, with a line saying how much is left out; output_path holds all of it (tail or grep it). The command stops after ${DEFAULT_TIMEOUT_MS / 1000} s unless timeout_ms says otherwise, killing all it started (the call then fails, showing the end of its output); background jobs end with it, so do not start servers or watchers. stdin is empty and nobody types: a command that waits for keys (a pager, a prompt) is stopped, so use non-interactive flags (-y, git commit -m).`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    command: z.string().min(1),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
    cwd: z.string().min(1).optional().describe("Folder to run in, relative to the workspace root."),
  });

export interface BashData {
  output: string;
  exit_code: number;
}

/** Developer commands the tool declares, each with any arguments; the shell sub-policy checks every simple command against them. */
const COMMANDS = [
  "ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "sed", "awk", "sort", "uniq", "cut", "tr", "diff",
  "echo", "printf", "pwd", "true", "false", "test", "[", "env", "which", "date", "sleep", "mkdir", "touch", "cp",
  "mv", "rm", "ln", "chmod", "git", "node", "npm", "npx", "python3", "make", "tar", "gzip", "gunzip", "xargs",
  "tee", "basename", "dirname", "realpath", "seq", "yes", "jq", "sh", "bash",
  "stat", "file", "du", "df", "ps", "kill", "stty", "tput", "id", "whoami", "uname", "hostname", "md5sum",
  "sha256sum", "comm", "join", "paste", "column", "nl", "od", "hexdump", "less", "more", "zcat", "unzip",
  "time", "timeout", "nproc", "pgrep", "tree",
]; // prettier-ignore

/**
 * Shell builtins that only steer the shell itself (exit codes, variables, flow, traps whose code
 * the parser reads as commands too); `eval`, `source`, `exec`, `alias` and `enable` are not here.
 */
const BUILTINS = [
  "exit", "return", ":", "cd", "export", "unset", "set", "shift", "read", "wait", "trap", "local",
  "declare", "typeset", "readonly", "let", "break", "continue", "type", "getopts", "umask", "ulimit",
  "times", "pushd", "popd", "dirs", "shopt", "[[", "printf", "echo", "test", "exec", "command",
]; // prettier-ignore

const SHELL_REQUIREMENTS: ShellRunRequirement[] = [...new Set([...COMMANDS, ...BUILTINS])].map((cmd) => ({
  cmd,
}));

/**
 * The approval identity of a command: the command itself, runs of whitespace collapsed, and the
 * folder it runs in when that is not the root — the same words elsewhere touch other files, and
 * "always" answers what the person saw, cwd included.
 */
function bashApprovalKey(command: string, cwd: string | undefined): string {
  const key = command.trim().replace(/\s+/g, " ");
  const folder = cwd === undefined ? "." : path.posix.normalize(cwd).replace(/(.)\/+$/, "$1");
  return folder === "." ? key : `${key} (in ${folder})`;
}

/** The folder to run in: the plan's `cwd` as the capability check resolved it, else the root. */
async function resolveCwd(cwd: string | undefined, runtime: ToolRuntime): Promise<string> {
  if (cwd === undefined) return runtime.root;
  const folder = runtime.resolved.cwd;
  if (!folder)
    throw new LatheError(
      "no_planned_path",
      "the call's plan has no checked cwd (the tool ran without the policy)",
    );
  const stats = await runtime.fs.stat(folder);
  if (!stats) {
    throw new ToolCallError(
      `The folder ${folder.display} (cwd) does not exist. Give an existing folder relative to the workspace root, or leave cwd out to run in the root.`,
      "not_found",
    );
  }
  if (!stats.isDirectory()) {
    throw new ToolCallError(
      `${folder.display} (cwd) is a file, not a folder. Give the folder to run the command in, or leave cwd out to run in the workspace root.`,
      "not_a_folder",
    );
  }
  return folder.absolute;
}

function checkCommand(command: string): void {
  if (command.trim() === "") {
    throw new ToolCallError("The command is empty. Give the command line to run, e.g. `ls -la`.");
  }
  if (command.includes("\0")) {
    throw new ToolCallError(
      "The command contains a NUL character, which no shell command can hold. Remove it.",
    );
  }
  const bytes = Buffer.byteLength(command, "utf8");
  if (bytes > MAX_COMMAND_BYTES)
    throw commandTooLong(`${bytes} bytes; bash takes at most ${MAX_COMMAND_BYTES}`);
}

function commandTooLong(detail: string, cause?: unknown): ToolCallError {
  return new ToolCallError(
    `The command line is too long (${detail}): Linux passes it to bash as one argument. Put the long part in a file with write (a script to run with bash, or the data for the command to read) and call bash again with a short command.`,
    "command_too_long",
    cause === undefined ? undefined : { cause },
  );
}

/**
 * The last `maxBytes` (at most CAPTURED_TAIL_BYTES) of an output as shown: the spawner kept it
 * when the output passed the cap, else it is the end of the text.
 */
function outputTail(captured: CapturedOutput, maxBytes: number): string {
  const end = captured.tail ?? captured.text;
  const bytes = Buffer.from(end, "utf8");
  return bytes.subarray(Math.max(0, bytes.length - maxBytes)).toString("utf8");
}

/** What a command that ran out of time printed, and what to do about it. */
function timeoutMessage(timeoutMs: number, captured: CapturedOutput): Promise<string> {
  return stoppedMessage(
    `bash timed out after ${timeoutMs} ms: the command and everything it started were stopped. If it only needs longer, call again with a larger timeout_ms (at most ${MAX_TIMEOUT_MS}); if it was waiting for input, pass non-interactive flags (stdin is empty); do not start servers or watchers.`,
    captured,
  );
}

/** What a command stopped for waiting to read its terminal printed, and how to run it instead. */
function waitingMessage(program: string, captured: CapturedOutput): Promise<string> {
  return stoppedMessage(
    `bash stopped the command: \`${program}\` was waiting for someone to type on the terminal, and nobody can (stdin is empty; no prompt is answered). Run it so that it needs no input: read files with cat, head or sed -n rather than a pager, and give answers as options (-y, --yes, -m "message"), from a file or through a pipe.`,
    captured,
  );
}

/** `head`, then the end of what a stopped command printed (or that it printed nothing). */
async function stoppedMessage(head: string, captured: CapturedOutput): Promise<string> {
  if (captured.totalBytes === 0)
    return `${head}\n${captured.printedBytes === 0 ? "It printed nothing." : "Its output shows nothing (it printed only terminal control sequences)."}`;
  const tail = outputTail(captured, TIMEOUT_TAIL_BYTES).replace(/^\uFFFD+/, ""); // a character cut at the tail's start
  if (captured.totalBytes <= TIMEOUT_TAIL_BYTES) return `${head}\nIts output until then:\n${tail}`;
  const whole =
    captured.sidecarPath === undefined
      ? ""
      : ` All ${captured.printedBytes} bytes it printed are in ${captured.sidecarPath}, as printed (escape sequences included; read can open it).`;
  return `${head}${whole}\nThe last ${TIMEOUT_TAIL_BYTES / 1024} KB of the ${captured.totalBytes} bytes of its output:\n${tail}`;
}

/** What a command stopped for printing too much printed, and what to do instead. */
async function overflowMessage(captured: CapturedOutput): Promise<string> {
  const head = `bash stopped the command: its output passed ${MAX_OUTPUT_BYTES / (1024 * 1024)} MB, the most one command may print, so it and everything it started were stopped. Print less: filter it (| grep PATTERN, | head -n 100, | tail -n 100), count it (| wc -l), or use a quieter option of the program.`;
  const tail = outputTail(captured, TIMEOUT_TAIL_BYTES).replace(/^\uFFFD+/, "");
  const kept =
    captured.sidecarPath === undefined
      ? ""
      : ` The first ${captured.printedBytes} bytes are in ${captured.sidecarPath}, as printed (read, tail or grep it).`;
  return `${head}${kept}\nThe last ${TIMEOUT_TAIL_BYTES / 1024} KB kept:\n${tail}`;
}

/**
 * A cut output as the model sees it: its head, a line saying how much is left out and where all
 * of it is, and its last lines (from the first whole line in its last `CUT_TAIL_BYTES`).
 */
async function cutOutput(
  captured: CapturedOutput,
  sidecarPath: string,
): Promise<{ text: string; leftOut: LeftOut }> {
  const head = utf8Head(captured.text, OUTPUT_LIMITS.bashBytes - CUT_TAIL_BYTES - CUT_NOTE_BYTES);
  const end = outputTail(captured, CUT_TAIL_BYTES);
  const newline = end.indexOf("\n");
  // From its first whole line; an end without one starts at its first whole character.
  const tail =
    newline !== -1 && newline < end.length - 1 ? end.slice(newline + 1) : end.replace(/^\uFFFD+/, "");
  const shown = Buffer.byteLength(head, "utf8") + Buffer.byteLength(tail, "utf8");
  const lines = Math.max(0, captured.totalLines - lineCount(head) - lineCount(tail));
  const bytes = Math.max(0, captured.totalBytes - shown);
  const note = `[… ${leftOutSize(bytes, lines)} left out here; ${captured.totalLines === 1 ? "the whole line is" : `all ${captured.totalLines} lines are`} in ${sidecarPath}, as printed (tail -n, grep -n or read it) …]`;
  const text = `${head}${head.endsWith("\n") || head === "" ? "" : "\n"}${note}\n${tail}`;
  return { text, leftOut: { kind: "text", bytes, lines, at: "middle" } };
}

export const bashTool = defineBuiltin({
  id: "bash",
  description: DESCRIPTION,
  schema,
  requires: { fs: { read: ["{workspace}/**"], write: ["{workspace}/**"] }, shell: SHELL_REQUIREMENTS },
  readOnly: false,
  gated: true,
  kind: "execute",
  checkpoints: "scan",
  timeoutMs: DEFAULT_TIMEOUT_MS + STOP_GRACE_MS,
  callTimeoutMs: (args) => (args.timeout_ms ?? DEFAULT_TIMEOUT_MS) + STOP_GRACE_MS,
  deriveApprovalKey: (args) => bashApprovalKey(args.command, args.cwd),
  // The shell parser and its policy tables load with the first command, not with Lathe.
  plan: async (args) => (await import("./bash-plan.ts")).planBashCommand(args.command, args.cwd),
  async execute(args, runtime): Promise<BashData | SelfTruncated<BashData>> {
    checkCommand(args.command);
    const cwd = await resolveCwd(args.cwd, runtime);
    runtime.signal.throwIfAborted();
    // In the OS sandbox when it is active; when not, the policy has had a person approve
    // anything that is not provably read-only.
    const confine = runtime.sandbox.status.active
      ? await runtime.sandbox.confinement({ pty: true })
      : undefined;
    // The spawner writes the output: the head comes back, the rest goes straight to this file
    // (made only when the output passes the cap), so it never passes through this process.
    const output = {
      maxBytes: OUTPUT_LIMITS.bashBytes,
      sidecarPath: await runtime.session.newSidecarPath("bash"),
      root: runtime.root,
      maxSidecarBytes: MAX_OUTPUT_BYTES,
    };
    const timeoutMs = args.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const proc = await runInPty({
      command: args.command,
      cwd,
      signal: runtime.signal,
      output,
      stopAfterMs: timeoutMs,
      ...(runtime.sandbox.hiddenEnv ? { hideEnv: runtime.sandbox.hiddenEnv } : {}),
      ...(confine ? { confine } : {}),
    }).catch((err: unknown) => {
      if (err instanceof SandboxError && err.commandTooLong)
        throw commandTooLong("once the OS sandbox has quoted it, it is longer than Linux allows", err);
      throw err;
    });
    const {
      exitCode,
      output: captured,
      timedOut,
      outputCapped,
      waitingForInput,
      stoppedBecause,
    } = await proc.exited;
    if (stoppedBecause !== undefined)
      throw new ToolCallError(
        await stoppedMessage(
          `Lathe stopped the command and everything it started: ${stoppedBecause}`,
          captured,
        ),
        "sandbox_path_changed",
      );
    if (outputCapped) throw new ToolCallError(await overflowMessage(captured), "output_too_large");
    if (timedOut) throw new ToolCallError(await timeoutMessage(timeoutMs, captured), "timeout");
    if (waitingForInput !== undefined)
      throw new ToolCallError(await waitingMessage(waitingForInput, captured), "waiting_for_input");
    if (captured.sidecarPath === undefined) return { output: captured.text, exit_code: exitCode };
    const { text, leftOut } = await cutOutput(captured, captured.sidecarPath);
    return selfTruncated({ output: text, exit_code: exitCode }, captured.sidecarPath, leftOut);
  },
});
