import type { z } from "zod";
import type { Rule, RuleCheck, RuleProbe } from "../../shared/permission-schemas.ts";
import { RuleSchema } from "../../shared/permission-schemas.ts";
import { checkRules, type ScopedRule } from "../engine/index.ts";

type Scope = "user" | "project";
type Ref = { scope: Scope; index: number };
type Field = NonNullable<RuleCheck["problems"][number]["field"]>;

const FIELDS: readonly string[] = ["permission", "pattern", "action"] satisfies Field[];

/** A row's problems, one per field that is wrong (in the row's order), so each is said where it is. */
function rowProblems(
  scope: Scope,
  index: number,
  issues: readonly z.core.$ZodIssue[],
): RuleCheck["problems"] {
  const byField = new Map<Field | undefined, string[]>();
  for (const issue of issues) {
    const first = issue.path[0];
    const field = typeof first === "string" && FIELDS.includes(first) ? (first as Field) : undefined;
    byField.set(field, [...(byField.get(field) ?? []), issue.message]);
  }
  return [...byField].map(([field, messages]) => ({
    scope,
    index,
    ...(field !== undefined ? { field } : {}),
    message: messages.join("; "),
  }));
}

const SEVERITY = { allow: 0, ask: 1, deny: 2 } as const;

interface RulesDraft {
  user: readonly unknown[];
  project: readonly unknown[];
}

interface RulesCheckContext {
  root: string;
  files: Record<Scope, string>;
  /** The folder is trusted: the project's allow and ask rules apply (its denies always do). */
  projectTrusted: boolean;
}

/**
 * Check the rules as the person is editing them, before they are saved: which rows are not valid
 * rules and why, where the same permission and pattern appear in both scopes and which one wins,
 * and — for a probe call — which rule decides it, exactly as the policy would (engine's Ruleset).
 */
export function checkDraft(
  draft: RulesDraft,
  probe: RuleProbe | undefined,
  context: RulesCheckContext,
): RuleCheck {
  const problems: RuleCheck["problems"] = [];
  const valid: Record<Scope, Array<{ index: number; rule: Rule }>> = { user: [], project: [] };
  for (const scope of ["user", "project"] as const) {
    draft[scope].forEach((row, index) => {
      const parsed = RuleSchema.safeParse(row);
      if (parsed.success) valid[scope].push({ index, rule: parsed.data });
      else problems.push(...rowProblems(scope, index, parsed.error.issues));
    });
  }
  const applies = (rule: Rule): boolean => context.projectTrusted || rule.action === "deny";

  const conflicts: RuleCheck["conflicts"] = [];
  for (const u of valid.user) {
    for (const p of valid.project) {
      if (u.rule.permission !== p.rule.permission || u.rule.pattern !== p.rule.pattern) continue;
      if (u.rule.action === p.rule.action) continue;
      if (!applies(p.rule)) {
        conflicts.push({
          user: u.index,
          project: p.index,
          winner: "user",
          why: `the folder is not trusted, so its ${p.rule.action} rules do not apply`,
        });
        continue;
      }
      const projectWins = SEVERITY[p.rule.action] >= SEVERITY[u.rule.action];
      conflicts.push({
        user: u.index,
        project: p.index,
        winner: projectWins ? "project" : "user",
        why:
          SEVERITY[p.rule.action] === SEVERITY[u.rule.action]
            ? "same pattern and action strength: the project's scope is the more authoritative"
            : `same pattern: the stricter action (${projectWins ? p.rule.action : u.rule.action}) wins`,
      });
    }
  }
  if (!probe) return { problems, conflicts };

  const refs = new Map<ScopedRule, Ref>();
  const scoped = (scope: Scope, entries: Array<{ index: number; rule: Rule }>): ScopedRule[] =>
    entries.map(({ index, rule }) => {
      const s: ScopedRule = { ...rule, scope, source: context.files[scope] };
      refs.set(s, { scope, index });
      return s;
    });
  const user = scoped("user", valid.user);
  const project = scoped("project", valid.project);
  const active = [...project.filter(applies), ...user];
  const ignored = project.filter((r) => !applies(r));
  const result = checkRules(active, probe, context.root);
  const ignoredMatches = ignored.length > 0 ? checkRules(ignored, probe, context.root).matches : [];
  const ref = (rule: ScopedRule): Ref => refs.get(rule) as Ref;
  return {
    problems,
    conflicts,
    verdict: {
      action: result.verdict.action,
      ...(result.verdict.rule ? { decidedBy: ref(result.verdict.rule) } : {}),
      matches: [
        ...result.matches.map(ref),
        ...ignoredMatches.map((rule) => ({
          ...ref(rule),
          ignored: "the folder is not trusted: only its deny rules apply",
        })),
      ],
      explanation: result.explanation,
    },
  };
}
