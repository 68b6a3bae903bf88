import { z } from "zod";

const ACTIONS = ["allow", "deny", "ask"] as const;
export type Action = (typeof ACTIONS)[number];

export const PermissionRuleSchema = z.lazy(() =>
  z.strictObject({
    permission: z
      .string()
      .min(1)
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
