import { execFile, type ChildProcess, type ExecFileException } from "node:child_process";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { commandText } from "../tools/call-plan.ts";
import type { SimpleCommand } from "../policy/shell/shell-analysis.ts";
import { undoneNotice } from "../sandbox/process-sandbox.ts";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { planPluginCommand } from "./plugin-shell-plan.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

interface ShellResult {
  /** The exit status, or null when the command was killed (timeout, output limit, abort). */
  exit_code: number | null;
  /** stdout, then stderr, cut at the output limit. */
  output: string;
  truncated?: true;
}

const PASSED_ENV = /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|TZ|TMPDIR|TERM|LC_[A-Z_]+)$/;

function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What a plugin's command sees of the environment: locale, PATH and HOME, no secrets. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { GIT_TERMINAL_PROMPT: "0" };
  for (const [key, value] of Object.entries(process.env)) if (PASSED_ENV.test(key)) env[key] = value;
  return env;
}

/** The command a plugin asks for, as the shell policy sees one: a literal name and literal words. */
export function pluginCommand(cmd: string, argv: readonly string[]): SimpleCommand {
  return {
    name: cmd,
    args: argv.map((text) => ({ text, literal: true })),
    source: [cmd, ...argv].map(quote).join(" "),
    via: [],
  };
}

/**
 * Authorize a plugin's command as a whole (see plugin-shell-plan.ts): every command it runs,
 * wrappers seen through, must be declared; the files it writes and the paths it is given must
 * be within the plugin's `fs` scope; options that make a known command run other programs need
 * a person; then rules, watchdog and approval, once for the lot.
 */
async function authorizeCommand(
  runtime: ToolRuntime,
  command: SimpleCommand,
  requires: RequirementSet,
): Promise<void> {
  const plan = await planPluginCommand(command, requires, runtime.root);
  await runtime.authorizePlan(plan, `shell.run:${commandText(command)}`);
}

/**
 * `runtime.shell.run` on the host: the command is authorized first (above), then run with
 * execFile — no shell, so no globbing, pipes or substitutions — in the workspace root, with a
 * trimmed environment, stdin closed, a timeout and an output cap.
 */
export async function pluginShellRun(
  runtime: ToolRuntime,
  cmd: string,
  argv: readonly string[],
  requires: RequirementSet,
): Promise<ShellResult> {
  const command = pluginCommand(cmd, argv);
  await authorizeCommand(runtime, command, requires);
  const cap = PLUGIN_LIMITS.shellOutputBytes;
  // In the OS sandbox when it is active (through bash, which runs the sandbox's launcher); when
  // not, the policy has had a person approve this command.
  const confined = runtime.sandbox.status.active
    ? await runtime.sandbox.confine(command.source, { signal: runtime.signal })
    : undefined;
  const [file, args] = confined ? ["/bin/bash", ["-c", confined.line]] : [cmd, [...argv]];
  // Before execFile's own abort handling: the sandbox goes down with its launcher, whole.
  let child: ChildProcess | undefined;
  const stopSandbox = (): void => {
    if (child?.pid !== undefined) killSandboxTree(child.pid);
  };
  if (confined) runtime.signal.addEventListener("abort", stopSandbox, { once: true });
  return new Promise<ShellResult>((resolve, reject) => {
    child = execFile(
      file,
      args,
      {
        cwd: runtime.root,
        env: { ...childEnv(), ...confined?.env },
        encoding: "buffer",
        maxBuffer: cap,
        timeout: PLUGIN_LIMITS.shellTimeoutMs,
        killSignal: "SIGKILL",
        signal: runtime.signal,
        windowsHide: true,
        shell: false,
      },
      (error: ExecFileException | null, stdout: Buffer, stderr: Buffer) => {
        runtime.signal.removeEventListener("abort", stopSandbox);
        const undone = undoneNotice(runtime.root, confined?.release() ?? []);
        if (error?.code === "ENOENT") {
          reject(new ToolCallError(`"${cmd}" was not found on PATH; install it, or ask the user to.`));
          return;
        }
        if (error?.name === "AbortError") {
          reject(new ToolCallError(`"${command.source}" was stopped because the call was aborted.`));
          return;
        }
        const all = Buffer.concat([stdout, stderr, Buffer.from(undone)]);
        const overflow = error?.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" || all.length > cap;
        const exitCode = typeof error?.code === "number" ? error.code : error ? null : 0;
        let output = all.subarray(0, cap).toString("utf8");
        if (error?.killed && !overflow) output += `\n[stopped after ${PLUGIN_LIMITS.shellTimeoutMs} ms]`;
        resolve({ exit_code: exitCode, output, ...(overflow ? { truncated: true as const } : {}) });
      },
    );
    child.stdin?.end();
  });
}
