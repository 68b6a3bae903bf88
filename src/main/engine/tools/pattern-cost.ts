/**
 * How much work a schema's regular expression can make the backtracking engine do on a value,
 * when that is bounded by a polynomial of the value's length: for a pattern without a quantified
 * group holding a quantifier or an alternative (`(\w+\s?)*`, `(a|aa)+`), without backreferences
 * and without lookaround, each match attempt tries at most one count per quantifier and one
 * branch per alternative, so the paths tried are at most the product of those choices.
 * Undefined for any other pattern: its cost cannot be bounded this way.
 */
export interface PatternCost {
  /** Starts with `^` outside any alternative: the engine tries it at the start only. */
  anchored: boolean;
  /** Quantifiers with no upper bound (`*`, `+`, `{2,}`): each may take any count up to the length. */
  unbounded: number;
  /** The number of choices of each other choice point (`?`: 2, `{1,3}`: 3, three alternatives: 3). */
  choices: number[];
}

interface Frame {
  quantified: boolean;
  branches: number;
}

/** The quantifier at `at` (its end and the choices it gives), or undefined when there is none. */
function quantifierAt(source: string, at: number): { end: number; choices: number } | undefined {
  const c = source[at];
  let end: number;
  let choices: number;
  if (c === "*" || c === "+") {
    end = at + 1;
    choices = Infinity;
  } else if (c === "?") {
    end = at + 1;
    choices = 2;
  } else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
    if (m === null) return undefined;
    end = at + m[0].length;
    const least = Number(m[1]);
    choices = m[2] === undefined ? 1 : m[3] === "" ? Infinity : Number(m[3]) - least + 1;
  } else return undefined;
  if (source[end] === "?") end += 1;
  return { end, choices };
}

/** Where the escape starting at `at` (a backslash) ends; undefined for a backreference. */
function escapeEnd(source: string, at: number): number | undefined {
  const c = source[at + 1];
  if (c === undefined) return at + 1;
  if (/[1-9]/.test(c) || (c === "k" && source[at + 2] === "<")) return undefined;
  if ((c === "p" || c === "P" || c === "u") && source[at + 2] === "{") {
    const close = source.indexOf("}", at + 3);
    return close === -1 ? source.length : close + 1;
  }
  if (c === "u") return at + 6;
  if (c === "x") return at + 4;
  if (c === "c") return at + 3;
  return at + 2;
}

/** Where the character class starting at `at` (a `[`) ends. */
function classEnd(source: string, at: number): number {
  let i = at + 1;
  if (source[i] === "^") i += 1;
  while (i < source.length && source[i] !== "]") i = source[i] === "\\" ? i + 2 : i + 1;
  return i + 1;
}

export function patternCost(source: string): PatternCost | undefined {
  const cost: PatternCost = { anchored: source.startsWith("^"), unbounded: 0, choices: [] };
  const frames: Frame[] = [{ quantified: false, branches: 1 }];
  const top = (): Frame => frames[frames.length - 1] as Frame;
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    let atomEnd: number;
    let group: Frame | undefined;
    if (c === "\\") {
      const end = escapeEnd(source, i);
      if (end === undefined) return undefined;
      atomEnd = end;
    } else if (c === "[") {
      atomEnd = classEnd(source, i);
    } else if (c === "(") {
      if (source[i + 1] === "?") {
        const named = source[i + 2] === "<" && source[i + 3] !== "=" && source[i + 3] !== "!";
        if (source[i + 2] !== ":" && !named) return undefined;
      }
      frames.push({ quantified: false, branches: 1 });
      i += 1;
      continue;
    } else if (c === ")") {
      group = frames.pop();
      if (group === undefined || frames.length === 0) return undefined;
      if (group.branches > 1) cost.choices.push(group.branches);
      atomEnd = i + 1;
    } else if (c === "|") {
      top().branches += 1;
      if (frames.length === 1) cost.anchored = false;
      i += 1;
      continue;
    } else {
      atomEnd = i + 1;
    }
    const quantifier = quantifierAt(source, atomEnd);
    if (group !== undefined && (group.quantified || group.branches > 1)) {
      // A group that chooses, itself repeated: the ways to match multiply without bound.
      if (quantifier !== undefined) return undefined;
      top().quantified = true;
    }
    if (quantifier !== undefined && quantifier.choices !== 1) {
      top().quantified = true;
      if (quantifier.choices === Infinity) cost.unbounded += 1;
      else cost.choices.push(quantifier.choices);
    }
    i = quantifier?.end ?? atomEnd;
  }
  if (frames.length !== 1) return undefined;
  if (top().branches > 1) cost.choices.push(top().branches);
  return cost;
}

/**
 * The most steps (paths tried, times the pattern's length) a schema's pattern may take on this
 * thread. Irregexp takes well under 100 ms for this many on a busy machine; a pattern that may
 * take more, on all the strings of a value together, is run on a worker (tools/argument-check.ts).
 */
export const MAIN_THREAD_STEPS = 10_000_000;

/** The most steps a pattern of `chars` characters with this cost can take on a string of `length`. */
function stepsOn(cost: PatternCost, chars: number, length: number): number {
  const count = length + 1;
  let steps = (cost.anchored ? 1 : count) * Math.max(chars, 1);
  for (let k = 0; k < cost.unbounded; k++) steps *= count;
  for (const choices of cost.choices) steps *= Math.min(choices, count);
  return steps;
}

/** The most steps `source` can take on a string of `length` characters (Infinity: unbounded). */
export function worstSteps(source: string, length: number): number {
  const cost = patternCost(source);
  return cost === undefined ? Infinity : stepsOn(cost, source.length, length);
}

/** The length of every string in `value`, property names included (walked without recursion). */
export function* stringLengths(value: unknown): Generator<number> {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "string") yield node.length;
    else if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (typeof node === "object" && node !== null)
      for (const [key, item] of Object.entries(node)) {
        yield key.length;
        stack.push(item);
      }
  }
}

/**
 * Whether checking `value` against these patterns is bounded well enough to run on this thread:
 * every pattern bounded (patternCost), and their worst steps on every string in it (as if each
 * pattern checked each string) at most MAIN_THREAD_STEPS in all.
 */
export function quickOnThisThread(patterns: readonly string[], value: unknown): boolean {
  const costs: Array<{ cost: PatternCost; chars: number }> = [];
  for (const source of patterns) {
    const cost = patternCost(source);
    if (cost === undefined) return false;
    costs.push({ cost, chars: source.length });
  }
  let steps = 0;
  for (const length of stringLengths(value)) {
    for (const { cost, chars } of costs) steps += stepsOn(cost, chars, length);
    if (steps > MAIN_THREAD_STEPS) return false;
  }
  return true;
}
