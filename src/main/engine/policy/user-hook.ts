import { z } from "zod";
import type { SourcedHook } from "../config/policy-config.ts";
import type { WatchdogVerdict } from "./watchdog.ts";

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

/**
 * Run a user's pre-tool hook: the call goes in as JSON on stdin, the hook answers with JSON
 * `{decision: "allow"|"deny"|"ask", reason?}` on stdout (exit 2 with a reason on stderr also
 * denies, as Claude Code's PreToolUse hooks do). A hook that fails, times out or answers
 * nonsense denies the call: a broken guard must not open the door.
 */
export function runUserHook(
  hook: SourcedHook,
  input: HookInput,
  signal?: AbortSignal,
): Promise<WatchdogVerdict> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout or abort kills whatever the hook started too.
    // Taken with the first hook: a start that runs none never loads child_process.
    const { spawn } = process.getBuiltinModule("node:child_process");
    const child = spawn("/bin/sh", ["-c", hook.command], {
      cwd: input.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let stoppedBy: string | undefined;
    const stop = (why: string) => {
      stoppedBy ??= why;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone: nothing left to stop.
      }
    };
    const timer = setTimeout(() => stop(`after ${hook.timeoutMs} ms`), hook.timeoutMs);
    const onAbort = () => stop("because the call was aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < 65_536) stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 65_536) stderr += d;
    });
    const name = `hook "${hook.command}" (${hook.source})`;
    child.on("error", (err) =>
      resolve({ decision: "deny", reason: `The ${name} could not run: ${err.message}` }),
    );
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (stoppedBy || sig) {
        resolve({
          decision: "deny",
          reason: `The ${name} was stopped ${stoppedBy ?? `by ${sig}`}; the call is refused.`,
        });
        return;
      }
      if (code === 2) {
        resolve({ decision: "deny", reason: stderr.trim() || `The ${name} refused the call.` });
        return;
      }
      if (code !== 0) {
        resolve({
          decision: "deny",
          reason: `The ${name} failed with exit code ${code}: ${stderr.trim() || "no message"}`,
        });
        return;
      }
      let parsed: z.infer<typeof HookAnswerSchema>;
      try {
        parsed = HookAnswerSchema.parse(JSON.parse(stdout));
      } catch {
        resolve({
          decision: "deny",
          reason: `The ${name} answered ${JSON.stringify(stdout.slice(0, 200))}, not JSON like {"decision":"allow"}; the call is refused.`,
        });
        return;
      }
      resolve(
        parsed.decision === "allow"
          ? { decision: "allow" }
          : {
              decision: parsed.decision,
              reason: parsed.reason ?? `The ${name} answered ${parsed.decision}.`,
            },
      );
    });
    // A hook that exits without reading its input makes the write fail with EPIPE; its answer still counts.
    child.stdin.on("error", () => undefined);
    child.stdin.end(JSON.stringify(input));
  });
}
