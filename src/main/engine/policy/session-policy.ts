import { ToolCallError } from "../errors/tool-call-error.ts";
import type { PolicyResult } from "../tools/call-decision.ts";
import type { CallPlan, PlannedAccess, ResolvedAccess } from "../tools/call-plan.ts";
import type { ToolCall } from "../tools/tool-call.ts";
import { allowlistMatches, decideCall, type PolicyContext } from "./call-policy.ts";
import { walkedFileRules, type WalkedFile } from "./walked-file-rules.ts";
import { exfiltrationGuard } from "./guards/exfiltration.ts";
import { forcePushGuard } from "./guards/force-push.ts";
import { recursiveDeleteGuard } from "./guards/recursive-delete.ts";
import { selfProtectionGuard } from "./guards/self-protection.ts";
import type { SourcedHook } from "../config/policy-config.ts";
import type { Ruleset } from "./ruleset.ts";
import { runUserHook } from "./user-hook.ts";
import type { WatchdogCheck } from "./watchdog.ts";

/** The built-in watchdog checks, in the order they run. */
const BUILTIN_GUARDS: readonly WatchdogCheck[] = [
  selfProtectionGuard,
  recursiveDeleteGuard,
  forcePushGuard,
  exfiltrationGuard,
];

function hookCheck(hook: SourcedHook): WatchdogCheck {
  return {
    name: `hook "${hook.command}"`,
    check: (call, signal) => {
      if (hook.tools && !hook.tools.includes(call.toolId)) return { decision: "allow" };
      return runUserHook(
        hook,
        { tool: call.toolId, args: call.args, session_id: call.sessionId, agent: call.agent, cwd: call.cwd },
        signal,
      );
    },
  };
}

/** Everything a session's policy needs but the watchdog chain, which it builds from the config. */
type SessionPolicyInput = Omit<PolicyContext, "watchdog" | "pendingApprovals">;

/** The session's side of the pipeline's policy hooks (see CallContext). */
export interface SessionPolicy {
  /** The rules its calls are judged by (a task's session hands them down as its tasks' ceiling). */
  readonly ruleset: Ruleset;
  decide(call: ToolCall): Promise<PolicyResult>;
  authorize(call: ToolCall, access: PlannedAccess): Promise<ResolvedAccess>;
  authorizePlan(call: ToolCall, plan: CallPlan, approvalKey: string): Promise<ResolvedAccess[]>;
  /** Absent when no rule could deny a walked file: a walk then checks nothing per file. */
  readDenied?(call: ToolCall, file: WalkedFile): string | undefined;
  /** Absent when no rule could hold a walked file back to ask about it. */
  readAsks?(call: ToolCall, file: WalkedFile): string | undefined;
}

function describeAccess(access: PlannedAccess): string {
  switch (access.capability) {
    case "fs.read":
    case "fs.write":
      return `${access.capability}:${access.path}`;
    case "net.fetch":
      return `net.fetch:${access.url}`;
    case "shell.run":
      return `shell.run:${[access.command.name, ...access.command.args.map((a) => a.text)].join(" ")}`;
  }
}

/** One session's policy: the engine's rules and hooks, the session's mode, approver and approvals. */
export function sessionPolicy(input: SessionPolicyInput): SessionPolicy {
  const ctx: PolicyContext = {
    ...input,
    watchdog: [...BUILTIN_GUARDS, ...input.config.hooks.map(hookCheck)],
    pendingApprovals: new Map(),
  };
  const walked = walkedFileRules(input.ruleset, input.mode, (toolId, verdict) =>
    allowlistMatches(input.config.allowlist, toolId, "", [verdict.subject]),
  );
  return {
    ruleset: input.ruleset,
    ...(walked.mayDeny ? { readDenied: (call, file) => walked.denied(call.entry.tool.id, file) } : {}),
    ...(walked.mayAsk ? { readAsks: (call, file) => walked.asks(call.entry.tool.id, file) } : {}),
    decide: (call) => decideCall(ctx, call),
    authorize: async (call, access) => {
      const result = await decideCall(
        ctx,
        { ...call, args: { access } },
        { plan: { accesses: [access], unclear: [] }, approvalKey: describeAccess(access) },
      );
      if (!result.allowed)
        throw new ToolCallError(
          result.errorText ?? `${call.entry.tool.id} was not allowed to ${describeAccess(access)}.`,
        );
      return result.accesses[0] as ResolvedAccess;
    },
    authorizePlan: async (call, plan, approvalKey) => {
      const result = await decideCall(
        ctx,
        { ...call, args: { accesses: plan.accesses.map(describeAccess) } },
        { plan, approvalKey },
      );
      if (!result.allowed)
        throw new ToolCallError(
          result.errorText ?? `${call.entry.tool.id} was not allowed to ${approvalKey}.`,
        );
      return result.accesses;
    },
  };
}
