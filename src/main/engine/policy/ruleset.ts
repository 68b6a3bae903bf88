import { describeRule, SCOPES, type Action, type ScopedRule } from "./permission-rule.ts";
import { RuleIndex } from "./rule-index.ts";
import { compilePattern, type CompiledPattern, type SubjectKind } from "./rule-pattern.ts";

/** One thing a call touches, as the ruleset sees it. */
export interface Subject {
  /** The names a rule's `permission` may use for it: the tool id and the capability. */
  permissions: readonly string[];
  kind: SubjectKind;
  /** Values the pattern is tried against (e.g. the relative and the absolute path); any match counts. */
  values: readonly string[];
  /**
   * Other spellings of the same thing that deny and ask rules match too, but allow rules do not
   * (git without its global options: see command-spellings.ts).
   */
  denyOnly?: readonly string[];
  /** How to name it in messages, e.g. `write to "src/a.ts"`. */
  label: string;
}

export interface RuleVerdict {
  action: Action;
  /** The rule that decided, or undefined when no rule matched (the default, ask). */
  rule: ScopedRule | undefined;
  subject: Subject;
  /** Decided by the rules of the run that started this task (its ceiling), stricter than its own. */
  inherited?: true;
}

const SEVERITY: Record<Action, number> = { allow: 0, ask: 1, deny: 2 };

interface Compiled {
  rule: ScopedRule;
  byKind: Partial<Record<SubjectKind, CompiledPattern>>;
}

function permissionRank(rule: ScopedRule, subject: Subject): number {
  if (rule.permission === "*") return 1;
  return rule.permission === subject.permissions[0] ? 3 : 2;
}

/**
 * The more severe of two verdicts (deny > ask > allow); in a tie, one a rule decided over the
 * default (an explicit "ask" asks even for a tool that is not gated), else the first.
 */
export function stricterVerdict(a: RuleVerdict, b: RuleVerdict): RuleVerdict {
  if (SEVERITY[b.action] !== SEVERITY[a.action]) return SEVERITY[b.action] > SEVERITY[a.action] ? b : a;
  return a.rule === undefined && b.rule !== undefined ? b : a;
}

/**
 * Permission rules from every scope. For each subject the most specific matching rule wins
 * (pattern first, then tool id over capability over `*`, then the stricter action, then the
 * more authoritative scope); a manifest `deny` can never be outvoted. No match means `ask`.
 *
 * A task's session has the ruleset of the run that started it as its `ceiling`: each verdict is
 * the stricter of its own and the ceiling's, so a task's agent may do without asking only what
 * the run above may (its own allow rules narrow nothing and widen nothing past that).
 */
export class Ruleset {
  private readonly compiled: Compiled[];
  private readonly ceiling: Ruleset | undefined;
  /** The positions of the rules of each permission, in the order they were given. */
  private readonly byPermission = new Map<string, number[]>();
  /** Built on first use, per kind of subject and permission (see rule-index.ts). */
  private readonly indexes = new Map<string, RuleIndex>();

  constructor(rules: readonly ScopedRule[], ceiling?: Ruleset) {
    this.compiled = rules.map((rule) => ({ rule, byKind: {} }));
    this.ceiling = ceiling;
    this.compiled.forEach((c, position) => {
      const positions = this.byPermission.get(c.rule.permission);
      if (positions) positions.push(position);
      else this.byPermission.set(c.rule.permission, [position]);
    });
  }

  /** Its own rules, then those of the runs above it (for a task). */
  get rules(): ScopedRule[] {
    return [...this.compiled.map((c) => c.rule), ...(this.ceiling?.rules ?? [])];
  }

  /** Whether an allow rule satisfying `test` is among its own rules and, for a task, among every run's above. */
  hasAllow(test: (rule: ScopedRule) => boolean): boolean {
    return (
      this.compiled.some((c) => c.rule.action === "allow" && test(c.rule)) &&
      (this.ceiling?.hasAllow(test) ?? true)
    );
  }

  private pattern(c: Compiled, kind: SubjectKind): CompiledPattern {
    let p = c.byKind[kind];
    if (!p) {
      p = compilePattern(c.rule.pattern, kind);
      c.byKind[kind] = p;
    }
    return p;
  }

  private index(kind: SubjectKind, permission: string): RuleIndex | undefined {
    const positions = this.byPermission.get(permission);
    if (!positions) return undefined;
    const name = `${kind}\0${permission}`;
    let index = this.indexes.get(name);
    if (!index) {
      index = new RuleIndex(
        kind,
        positions.map((position) => ({
          position,
          pattern: this.pattern(this.compiled[position] as Compiled, kind),
        })),
      );
      this.indexes.set(name, index);
    }
    return index;
  }

  /**
   * The rules that may speak for the subject, in the order they were given: those of its
   * permissions and of `*` whose pattern's key is among its values' (and the keyless ones).
   */
  private candidates(subject: Subject): Compiled[] {
    const values = subject.denyOnly ? [...subject.values, ...subject.denyOnly] : subject.values;
    const positions = new Set<number>();
    for (const permission of new Set([...subject.permissions, "*"]))
      this.index(subject.kind, permission)?.collect(values, positions);
    return [...positions].sort((a, b) => a - b).map((position) => this.compiled[position] as Compiled);
  }

  /** Whether the rule speaks for the subject: its permission, and its pattern on a value. */
  private matches(c: Compiled, subject: Subject): CompiledPattern | undefined {
    const { rule } = c;
    if (rule.permission !== "*" && !subject.permissions.includes(rule.permission)) return undefined;
    const pattern = this.pattern(c, subject.kind);
    const values =
      rule.action === "allow" || !subject.denyOnly
        ? subject.values
        : [...subject.values, ...subject.denyOnly];
    return values.some((v) => pattern.test(v)) ? pattern : undefined;
  }

  evaluate(subject: Subject): RuleVerdict {
    const own = this.evaluateOwn(subject);
    if (!this.ceiling || own.action === "deny") return own;
    const above = this.ceiling.evaluate(subject);
    return SEVERITY[above.action] > SEVERITY[own.action] ? { ...above, inherited: true } : own;
  }

  private evaluateOwn(subject: Subject): RuleVerdict {
    let best: { rule: ScopedRule; score: number[] } | undefined;
    for (const c of this.candidates(subject)) {
      const { rule } = c;
      const pattern = this.matches(c, subject);
      if (!pattern) continue;
      if (rule.scope === "manifest" && rule.action === "deny") return { action: "deny", rule, subject };
      const score = [
        pattern.specificity,
        permissionRank(rule, subject),
        SEVERITY[rule.action],
        SCOPES.length - SCOPES.indexOf(rule.scope),
      ];
      if (!best || compareScores(score, best.score) > 0) best = { rule, score };
    }
    return best
      ? { action: best.rule.action, rule: best.rule, subject }
      : { action: "ask", rule: undefined, subject };
  }

  /** Every rule that matches the subject, in the order they were given (the winner is `evaluate`'s). */
  matching(subject: Subject): ScopedRule[] {
    const own = this.candidates(subject)
      .filter((c) => this.matches(c, subject) !== undefined)
      .map((c) => c.rule);
    return [...own, ...(this.ceiling?.matching(subject) ?? [])];
  }

  /** The most severe verdict over all subjects; a call with no subjects is judged by `fallback`. */
  evaluateAll(subjects: readonly Subject[], fallback: Subject): RuleVerdict {
    if (subjects.length === 0) return this.evaluate(fallback);
    let worst: RuleVerdict | undefined;
    for (const s of subjects) {
      const v = this.evaluate(s);
      worst = worst ? stricterVerdict(worst, v) : v;
      if (worst.action === "deny") break;
    }
    return worst as RuleVerdict;
  }
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** Why a verdict came out as it did, and for a refusal, how to allow it. */
export function explainVerdict(v: RuleVerdict): string {
  const own = v.rule
    ? `${v.subject.label} matched the ${describeRule(v.rule)}`
    : `${v.subject.label} matched no permission rule, so it needs approval (the default is "ask")`;
  if (!v.inherited) return own;
  const where = v.rule
    ? `${own} in the run that started this task`
    : `${v.subject.label} matched no permission rule in the run that started this task, so it needs approval there (the default is "ask")`;
  return `${where}; a task may do without asking only what that run may, whatever its own agent's rules allow`;
}
