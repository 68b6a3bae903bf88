import { valueKeys, type CompiledPattern, type SubjectKind } from "./rule-pattern.ts";

/**
 * The rules of one permission, compiled for one kind of subject, filed by their patterns' keys
 * (see CompiledPattern.key), so the rules that may match a value are found by looking up the
 * value's few keys rather than by trying every rule: with thousands of rules, a search that
 * meets thousands of files would otherwise try every rule on every file.
 */
export class RuleIndex {
  private readonly byKey = new Map<string, number[]>();
  /** Rules whose pattern has no key (`*`, `**\/*.ts`): tried on every value. */
  private readonly unkeyed: number[] = [];
  private readonly kind: SubjectKind;

  constructor(kind: SubjectKind, entries: ReadonlyArray<{ position: number; pattern: CompiledPattern }>) {
    this.kind = kind;
    for (const { position, pattern } of entries) {
      if (pattern.key === undefined) {
        this.unkeyed.push(position);
        continue;
      }
      const filed = this.byKey.get(pattern.key);
      if (filed) filed.push(position);
      else this.byKey.set(pattern.key, [position]);
    }
  }

  /** Add to `into` the positions of the rules that may match one of `values` (a superset of those that do). */
  collect(values: readonly string[], into: Set<number>): void {
    for (const position of this.unkeyed) into.add(position);
    if (this.byKey.size === 0) return;
    for (const value of values) {
      for (const key of valueKeys(value, this.kind)) {
        const filed = this.byKey.get(key);
        if (filed) for (const position of filed) into.add(position);
      }
    }
  }
}
