import { z } from "zod";
import { didYouMean } from "../plugins/did-you-mean.ts";
import { lockedLookalike } from "../tools/locked-tools.ts";
import { TOOL_ID } from "../tools/tool-id.ts";

const ACTIONS = ["allow", "deny", "ask"] as const;
export type Action = (typeof ACTIONS)[number];

const CAPABILITIES = ["fs.read", "fs.write", "shell.run", "net.fetch"] as const;

/** `Bash(git push:*)`: another agent's way of writing a tool and its pattern in one string. */
const TOOL_WITH_PATTERN = /^([A-Za-z][A-Za-z0-9_-]*)\((.*)\)$/s;

/**
 * Why no call can ever have this permission, or undefined when one can. Such a rule would match
 * nothing, so a deny written `"Bash"` (as other agents spell it) would deny nothing, silently.
 */
export function permissionProblem(permission: string): string | undefined {
  if (permission === "*" || (CAPABILITIES as readonly string[]).includes(permission)) return undefined;
  if (TOOL_ID.test(permission)) {
    const locked = lockedLookalike(permission);
    if (locked === undefined || locked === permission) return undefined;
    return `"${permission}" is no tool's id (ids are written exactly, and no other tool may take a built-in's name in another case): write "${locked}"`;
  }
  const combined = TOOL_WITH_PATTERN.exec(permission);
  if (combined) {
    const tool = lockedLookalike(combined[1] as string) ?? (combined[1] as string);
    return `"${permission}" puts the pattern in the permission: write {"permission": "${tool}", "pattern": "${combined[2] as string}"}`;
  }
  const dotted = permission.replace(/[:_/]/g, ".");
  const near = (CAPABILITIES as readonly string[]).includes(dotted)
    ? dotted
    : didYouMean(dotted, CAPABILITIES);
  const hint = near ? ` — did you mean "${near}"?` : "";
  return `"${permission}" is not a tool id, a capability (${CAPABILITIES.join(", ")}) or "*"${hint}`;
}

export const PermissionRuleSchema = z.lazy(() =>
  z.strictObject({
    permission: z
      .string()
      .min(1)
      .superRefine((permission, ctx) => {
        const problem = permissionProblem(permission);
        if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
      })
      .describe('A tool id ("bash"), a capability ("fs.write", "fs.read", "net.fetch", "shell.run") or "*".'),
    pattern: z
      .string()
      .min(1)
      .default("*")
      .describe(
        'A glob ("src/**", "git *") or a prefix ("npm run test:*") matched against the call\'s argument.',
      ),
    action: z.enum(ACTIONS),
  }),
);
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;

/** Where a rule came from; listed from the most to the least authoritative. */
export const SCOPES = ["manifest", "session", "project", "user"] as const;
type Scope = (typeof SCOPES)[number];

export interface ScopedRule extends PermissionRule {
  scope: Scope;
  /** The file (or "agent manifest", "session") the rule was read from, for messages. */
  source: string;
}

export function describeRule(rule: ScopedRule): string {
  return `${rule.scope} rule {permission: "${rule.permission}", pattern: "${rule.pattern}", action: "${rule.action}"} from ${rule.source}`;
}
