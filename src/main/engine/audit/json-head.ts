/**
 * The part of `value` whose JSON text starts its JSON text, up to about `chars` characters: arrays
 * and objects keep their first entries until that many characters are spent, and drop the rest.
 * What is kept is whole (a string is not cut here), so a secret in it can still be masked whole
 * before the text is cut. `cut` says whether anything was dropped. Work and memory follow `chars`, not the value's size: the audit keeps
 * the head of an envelope, and a glob's may list a hundred thousand paths.
 */
export function jsonHead(value: unknown, chars: number): { head: unknown; cut: boolean } {
  const budget = { left: chars, cut: false };
  return { head: headOf(value, budget, 0), cut: budget.cut };
}

function headOf(value: unknown, budget: { left: number; cut: boolean }, depth: number): unknown {
  if (depth > 32) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      if (budget.left <= 0) {
        budget.cut = true;
        break;
      }
      budget.left -= 1; // the comma
      out.push(headOf(item, budget, depth + 1));
    }
    return out;
  }
  if (value !== null && typeof value === "object") {
    // Anything JSON writes through toJSON (a Date) is kept as it is.
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (budget.left <= 0) {
        budget.cut = true;
        break;
      }
      budget.left -= key.length + 4; // the quotes, the colon and the comma
      out[key] = headOf(item, budget, depth + 1);
    }
    return out;
  }
  budget.left -= typeof value === "string" ? value.length + 2 : String(value).length;
  return value;
}
