import { z } from "zod";
import type { SourcedHook } from "../config/policy-config.ts";
import { hostEnv } from "../spawner/host-env.ts";
import type { RemoteExecResult } from "../spawner/spawner-client.ts";
import type { WatchdogVerdict } from "./watchdog.ts";
import { errorMessage } from "../errors/error-message.ts";

const HookAnswerSchema = z.lazy(() =>
  z.object({
    decision: z.enum(["allow", "deny", "ask"]),
    reason: z.string().optional(),
  }),
);

interface HookInput {
  tool: string;
  args: unknown;
  session_id: string;
  agent: string;
  cwd: string;
}

/** What a hook may print on each of stdout and stderr; more stops it, and the call is refused. */
const HOOK_OUTPUT_BYTES = 65_536;

/**
 * Run a user's pre-tool hook: the call goes in as JSON on stdin, the hook answers with JSON
 * `{decision: "allow"|"deny"|"ask", reason?}` on stdout (exit 2 with a reason on stderr also
 * denies, as Claude Code's PreToolUse hooks do). A hook that fails, times out or answers
 * nonsense denies the call: a broken guard must not open the door. The process spawner starts
 * it (`sh -c`), in a process group of its own that a timeout or an abort ends whole, so this
 * process never forks for it.
 */
export async function runUserHook(
  hook: SourcedHook,
  input: HookInput,
  signal: AbortSignal = new AbortController().signal,
): Promise<WatchdogVerdict> {
  const name = `hook "${hook.command}" (${hook.source})`;
  let result: RemoteExecResult;
  try {
    // The spawner's client loads with the first hook, not with every start.
    const { processSpawner } = await import("../spawner/process-spawner.ts");
    result = await processSpawner().exec(
      {
        file: "/bin/sh",
        args: ["-c", hook.command],
        line: hook.command,
        cwd: input.cwd,
        env: hostEnv(),
        timeoutMs: hook.timeoutMs,
        maxBytes: HOOK_OUTPUT_BYTES,
        stdin: JSON.stringify(input),
        group: true,
      },
      signal,
    );
  } catch (err) {
    if (signal.aborted)
      return {
        decision: "deny",
        reason: `The ${name} was stopped because the call was aborted; the call is refused.`,
      };
    return {
      decision: "deny",
      reason: `The ${name} could not run: ${errorMessage(err)}`,
    };
  }
  const { end } = result;
  const stdout = result.stdout.toString("utf8");
  const stderr = result.stderr.toString("utf8");
  if (end.name === "AbortError") {
    return {
      decision: "deny",
      reason: `The ${name} was stopped because the call was aborted; the call is refused.`,
    };
  }
  if (end.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
    return {
      decision: "deny",
      reason: `The ${name} printed more than ${HOOK_OUTPUT_BYTES} bytes, so it was stopped; the call is refused.`,
    };
  }
  if (end.killed) {
    return {
      decision: "deny",
      reason: `The ${name} was stopped after ${hook.timeoutMs} ms; the call is refused.`,
    };
  }
  if (typeof end.code === "string") {
    return { decision: "deny", reason: `The ${name} could not run (${end.code}); the call is refused.` };
  }
  if (end.code === null) {
    return { decision: "deny", reason: `The ${name} was stopped by a signal; the call is refused.` };
  }
  if (end.code === 2) return { decision: "deny", reason: stderr.trim() || `The ${name} refused the call.` };
  if (end.code !== 0) {
    return {
      decision: "deny",
      reason: `The ${name} failed with exit code ${end.code}: ${stderr.trim() || "no message"}`,
    };
  }
  let parsed: z.infer<typeof HookAnswerSchema>;
  try {
    parsed = HookAnswerSchema.parse(JSON.parse(stdout));
  } catch {
    return {
      decision: "deny",
      reason: `The ${name} answered ${JSON.stringify(stdout.slice(0, 200))}, not JSON like {"decision":"allow"}; the call is refused.`,
    };
  }
  return parsed.decision === "allow"
    ? { decision: "allow" }
    : { decision: parsed.decision, reason: parsed.reason ?? `The ${name} answered ${parsed.decision}.` };
}
