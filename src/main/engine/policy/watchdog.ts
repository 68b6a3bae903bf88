import type { ResolvedAccess } from "../tools/call-plan.ts";
import type { ProtectedPaths } from "./protected-paths.ts";

export type WatchdogVerdict = { decision: "allow" } | { decision: "deny" | "ask"; reason: string };

/** What every watchdog check sees of a call (after the capability check passed). */
export interface WatchdogCall {
  toolId: string;
  args: unknown;
  sessionId: string;
  agent: string;
  accesses: readonly ResolvedAccess[];
  /** Canonical working directory of the call. */
  cwd: string;
  root: string;
  latheHome: string;
  home: string;
  /** What no write may reach: Lathe's own files, git's configuration and hooks, MCP servers' files. */
  protectedPaths: ProtectedPaths;
  /** Whether an explicit allow rule names this exact command (for guards a rule may lift). */
  ruleAllows(commandText: string, mustMention: string): boolean;
  /** Whether the network host is one the user allowed. */
  hostAllowed(host: string): boolean;
}

export interface WatchdogCheck {
  readonly name: string;
  check(call: WatchdogCall, signal?: AbortSignal): WatchdogVerdict | Promise<WatchdogVerdict>;
}

interface WatchdogOutcome {
  decision: "allow" | "deny" | "ask";
  /** Which check decided and why (empty for allow). */
  reasons: string[];
}

/**
 * The pre-execute hook chain. It runs after the capability check and can only refuse: a deny
 * from any check denies, an ask from any check asks, and "allow" never lifts anything.
 */
export async function runWatchdog(
  checks: readonly WatchdogCheck[],
  call: WatchdogCall,
  signal?: AbortSignal,
): Promise<WatchdogOutcome> {
  const asks: string[] = [];
  for (const c of checks) {
    let verdict: WatchdogVerdict;
    try {
      verdict = await c.check(call, signal);
    } catch (err) {
      return {
        decision: "deny",
        reasons: [`watchdog check ${c.name} failed (${(err as Error).message}); refusing.`],
      };
    }
    if (verdict.decision === "deny") return { decision: "deny", reasons: [`${c.name}: ${verdict.reason}`] };
    if (verdict.decision === "ask") asks.push(`${c.name}: ${verdict.reason}`);
  }
  return asks.length > 0 ? { decision: "ask", reasons: asks } : { decision: "allow", reasons: [] };
}
