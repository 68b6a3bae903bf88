/**
 * Where a settings file's JSON goes wrong, and why, in words a person can act on. JSON.parse says
 * "Unexpected token ']'" with no line for a trailing comma in a list, and says nothing at all
 * about a key written twice (it keeps the last one silently: a second `"permissions"` drops every
 * rule of the first). This walks the text once, without recursion (a deeply nested file cannot
 * overflow the stack), and stops at the first problem.
 */
export interface JsonProblem {
  /** 1-based, as editors count. */
  line: number;
  column: number;
  /** What is wrong there and how to fix it, as one sentence without a final period. */
  problem: string;
}

/** An open object or list; `parent` and `name` (its key or index there) give its path when a message needs it. */
type Frame = { parent: Frame | undefined; name: string } & (
  { kind: "object"; keys: Map<string, number>; key: string } | { kind: "array"; index: number }
);

function pathOf(frame: Frame | undefined): string[] {
  const path: string[] = [];
  for (let f = frame; f?.parent !== undefined; f = f.parent) path.unshift(f.name);
  return path;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
const WORD = /[A-Za-z_$][\w$]*/y;

function lineOf(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: index - start + 1 };
}

function skipSpace(text: string, index: number): number {
  let i = index;
  for (;;) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return i;
    i++;
  }
}

function matchAt(pattern: RegExp, text: string, index: number): number | undefined {
  pattern.lastIndex = index;
  const found = pattern.exec(text);
  return found && found[0].length > 0 ? index + found[0].length : undefined;
}

class Found {
  readonly index: number;
  readonly problem: string;

  constructor(index: number, problem: string) {
    this.index = index;
    this.problem = problem;
  }
}

function where(frame: Frame): string {
  const path = pathOf(frame);
  return path.length === 0 ? "the top level" : `"${path.join(".")}"`;
}

/** What stands at `index` where JSON wants something else, said so the fix is plain. */
function unexpected(text: string, index: number, wanted: string): Found {
  const c = text[index];
  if (c === undefined)
    return new Found(index, `the file ends where ${wanted} should be: something is not closed`);
  if (text.startsWith("//", index) || text.startsWith("/*", index))
    return new Found(index, "a comment: settings files are plain JSON, which has none; remove it");
  if (c === "'") return new Found(index, 'a single-quoted string: JSON needs double quotes ("…")');
  const word = matchAt(WORD, text, index);
  if (word !== undefined)
    return new Found(
      index,
      `unquoted text ${JSON.stringify(text.slice(index, word))}: put names and text in double quotes (numbers, true, false and null go without)`,
    );
  return new Found(index, `${JSON.stringify(c)} where ${wanted} should be`);
}

/** A string's characters up to its closing quote, a control character or the end of the text. */
// eslint-disable-next-line no-control-regex
const STRING_BODY = /[^"\\\u0000-\u001f]*(?:\\[^][^"\\\u0000-\u001f]*)*/y;

/** The index past the string that starts at `index` (a `"`). */
function stringEnd(text: string, index: number): number {
  STRING_BODY.lastIndex = index + 1;
  STRING_BODY.exec(text);
  const end = STRING_BODY.lastIndex;
  if (text[end] === '"') return end + 1;
  if (end < text.length)
    throw new Found(
      end,
      "a line break or control character inside a string: close the string's quote on its line, or write \\n",
    );
  throw new Found(index, 'a string that is never closed: add its closing "');
}

function closing(frame: Frame): string {
  return frame.kind === "object" ? "}" : "]";
}

function readKey(text: string, at: number, frame: Frame & { kind: "object" }): number {
  const index = skipSpace(text, at);
  if (text[index] !== '"') throw unexpected(text, index, 'a property name in double quotes ("name")');
  const end = stringEnd(text, index);
  const raw = text.slice(index + 1, end - 1);
  const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
  const path = () => [...pathOf(frame), key].join(".");
  if (key === "__proto__")
    throw new Found(index, `the name "__proto__" (at "${path()}") cannot be used in settings: rename it`);
  const first = frame.keys.get(key);
  if (first !== undefined)
    throw new Found(
      index,
      `"${path()}" is written a second time (first on line ${lineOf(text, first).line}): JSON would keep only the last one and silently drop the other; merge them into one`,
    );
  // Where, not the line: counting lines for every key would read the text once per key.
  frame.keys.set(key, index);
  frame.key = key;
  const colon = skipSpace(text, end);
  if (text[colon] !== ":") throw unexpected(text, colon, `":" after "${key}"`);
  return colon + 1;
}

function nameIn(frame: Frame | undefined): string {
  if (frame === undefined) return "";
  return frame.kind === "object" ? frame.key : String(frame.index);
}

function walk(text: string): void {
  const stack: Frame[] = [];
  let i = 0;
  for (;;) {
    // A value is expected at i.
    i = skipSpace(text, i);
    const c = text[i];
    if (c === "{" || c === "[") {
      const parent = stack[stack.length - 1];
      const name = nameIn(parent);
      const inner = skipSpace(text, i + 1);
      if (text[inner] === (c === "{" ? "}" : "]")) {
        i = inner + 1;
      } else if (c === "{") {
        const frame: Frame = { parent, name, kind: "object", keys: new Map(), key: "" };
        stack.push(frame);
        i = readKey(text, i + 1, frame);
        continue;
      } else {
        stack.push({ parent, name, kind: "array", index: 0 });
        i++;
        continue;
      }
    } else if (c === '"') {
      i = stringEnd(text, i);
    } else {
      const number = matchAt(NUMBER, text, i);
      const end = number ?? matchAt(LITERAL, text, i);
      if (end === undefined || matchAt(WORD, text, end) !== undefined) throw unexpected(text, i, "a value");
      // JSON.parse makes Infinity of 1e400, which settings would then report as "null".
      if (number !== undefined && !Number.isFinite(Number(text.slice(i, end))))
        throw new Found(i, `the number ${text.slice(i, end)} is too large to be read: write a smaller one`);
      i = end;
    }
    // After a value: a comma, or the end of one or more containers.
    for (;;) {
      i = skipSpace(text, i);
      const frame = stack[stack.length - 1];
      if (frame === undefined) {
        if (i < text.length) throw new Found(i, "more text after the settings object has ended: remove it");
        return;
      }
      const next = text[i];
      if (next === closing(frame)) {
        stack.pop();
        i++;
        continue;
      }
      if (next === ",") {
        const after = skipSpace(text, i + 1);
        if (text[after] === closing(frame))
          throw new Found(i, "a comma after the last entry: JSON allows none there; remove it");
        if (frame.kind === "object") i = readKey(text, i + 1, frame);
        else {
          frame.index++;
          i++;
        }
        break;
      }
      if (next !== undefined && /["{[\d-]/.test(next))
        throw new Found(
          i,
          `a missing "," before this entry of ${where(frame)}: add one after the entry before it`,
        );
      throw unexpected(
        text,
        i,
        `"," or "${closing(frame)}" (the end of ${frame.kind === "object" ? "the object" : "the list"} at ${where(frame)})`,
      );
    }
  }
}

/** The first problem of `text` as a settings file's JSON (without a byte-order mark), if any. */
export function jsonProblem(text: string): JsonProblem | undefined {
  try {
    walk(text);
    return undefined;
  } catch (err) {
    if (!(err instanceof Found)) throw err;
    return { ...lineOf(text, err.index), problem: err.problem };
  }
}
