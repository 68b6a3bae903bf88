import { ToolCallError } from "../errors/tool-call-error.ts";
import { commandText } from "../tools/call-plan.ts";
import type { SimpleCommand } from "../policy/shell/shell-analysis.ts";
import { withoutHiddenEnv } from "../sandbox/hidden-env.ts";
import { undoneNotice } from "../sandbox/process-sandbox.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { planPluginCommand } from "./plugin-shell-plan.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { screenTextOf } from "../spawner/screen-text.ts";

interface ShellResult {
  /** The exit status, or null when the command was killed (timeout, output limit, abort). */
  exit_code: number | null;
  /** stdout, then stderr, cut at the output limit, as a terminal would show them (see screen-text.ts). */
  output: string;
  truncated?: true;
}

const PASSED_ENV = /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|TZ|TMPDIR|TERM|LC_[A-Z_]+)$/;

function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * What a plugin's command sees of the environment: locale, PATH and HOME, no secrets — and none
 * of those either when `hidden` (ProcessSandbox.hiddenEnv: `sandbox.denyEnv`) names them.
 */
function childEnv(hidden: readonly string[]): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0" };
  for (const [key, value] of Object.entries(withoutHiddenEnv(process.env, hidden)))
    if (PASSED_ENV.test(key)) env[key] = value;
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
 * `runtime.shell.run` on the host: the command is authorized first (above), then run by the
 * process spawner as a program of its own — no shell, so no globbing, pipes or substitutions —
 * in the workspace root, with a trimmed environment, empty input, a timeout and an output cap.
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
  // not, the policy has had a person approve this command. Started by the process spawner.
  const confine = runtime.sandbox.status.active ? await runtime.sandbox.confinement() : undefined;
  const { processSpawner } = await import("../spawner/process-spawner.ts");
  const { end, stdout, stderr, removed, planted, stoppedBecause } = await processSpawner().exec(
    {
      file: cmd,
      args: [...argv],
      line: command.source,
      cwd: runtime.root,
      env: { ...childEnv(runtime.sandbox.hiddenEnv ?? []), ...confine?.env },
      ...(confine ? { confine: confine.spec } : {}),
      timeoutMs: PLUGIN_LIMITS.shellTimeoutMs,
      maxBytes: cap,
    },
    runtime.signal,
  );
  const undone = undoneNotice(runtime.root, removed) + (planted ?? "");
  if (end.code === "ENOENT") {
    throw new ToolCallError(`"${cmd}" was not found on PATH; install it, or ask the user to.`);
  }
  if (end.name === "AbortError") {
    throw new ToolCallError(`"${command.source}" was stopped because the call was aborted.`);
  }
  if (stoppedBecause !== undefined)
    throw new ToolCallError(`Lathe stopped "${command.source}": ${stoppedBecause}`);
  const all = Buffer.concat([stdout, stderr, Buffer.from(undone)]);
  const overflow = end.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" || all.length > cap;
  const exitCode = typeof end.code === "number" ? end.code : end.failed ? null : 0;
  // Each stream as a terminal would show it (colours, titles, `\r` redraws gone: see
  // screen-text.ts), what the plugin most likely hands the model; the cap is of what was printed.
  const kept = all.subarray(0, cap);
  const keptOut = kept.subarray(0, Math.min(stdout.length, kept.length));
  const keptRest = kept.subarray(keptOut.length);
  let output = screenTextOf(keptOut) + screenTextOf(keptRest);
  if (end.killed && !overflow) output += `\n[stopped after ${PLUGIN_LIMITS.shellTimeoutMs} ms]`;
  return { exit_code: exitCode, output, ...(overflow ? { truncated: true as const } : {}) };
}
