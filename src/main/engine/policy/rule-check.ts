import path from "node:path";
import type { ScopedRule } from "./permission-rule.ts";
import { explainVerdict, Ruleset, type RuleVerdict, type Subject } from "./ruleset.ts";

/** What a call touches, as a person describes it to see which rule decides it. */
interface RuleProbe {
  capability: "fs.read" | "fs.write" | "shell.run" | "net.fetch";
  /** The tool making the call; a rule may name it instead of the capability. */
  toolId?: string;
  /** A path (relative to the workspace or absolute), a command line, or a host. */
  value: string;
}

interface RuleCheckResult {
  verdict: RuleVerdict;
  /** Every rule that matched, the winner among them. */
  matches: ScopedRule[];
  /** Why it came out so, in the words the policy uses for a refusal. */
  explanation: string;
}

const KINDS = { "fs.read": "path", "fs.write": "path", "shell.run": "command", "net.fetch": "host" } as const;

/** The subject the policy would judge for such a call (as call-policy.ts builds it). */
function probeSubject(probe: RuleProbe, root: string): Subject {
  const permissions = probe.toolId ? [probe.toolId, probe.capability] : [probe.capability];
  const kind = KINDS[probe.capability];
  if (kind === "path") {
    const absolute = path.resolve(root, probe.value);
    const relative = path.relative(root, absolute);
    const display = relative.startsWith("..") || path.isAbsolute(relative) ? absolute : relative;
    return {
      permissions,
      kind,
      values: [display, absolute],
      label: `${probe.capability === "fs.read" ? "reading" : "writing"} "${display}"`,
    };
  }
  return {
    permissions,
    kind,
    values: [probe.value],
    label: kind === "command" ? `the command "${probe.value}"` : `fetching from ${probe.value}`,
  };
}

/**
 * Which of `rules` decides a call, the way the policy decides it (most specific pattern, then tool
 * id over capability over `*`, then the stricter action, then the more authoritative scope; a
 * manifest deny is final), with every rule that matched. For the rules editor, before saving.
 */
export function checkRules(rules: readonly ScopedRule[], probe: RuleProbe, root: string): RuleCheckResult {
  const ruleset = new Ruleset(rules);
  const subject = probeSubject(probe, root);
  const verdict = ruleset.evaluate(subject);
  return { verdict, matches: ruleset.matching(subject), explanation: explainVerdict(verdict) };
}
