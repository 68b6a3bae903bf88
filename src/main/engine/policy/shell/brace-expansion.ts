import type { Word } from "unbash";

/**
 * Bash brace expansion of a word that holds nothing else dynamic: `{-o,out}` is two words, `-o`
 * and `out`, before any command sees them, so `sort {-o,../x,f}` writes ../x. Expanding them
 * here lets every later check see the options and paths a brace produces.
 */

interface Char {
  ch: string;
  quoted: boolean;
}

/** At most this many words from one word; more is reported as dynamic. */
const MAX_WORDS = 256;
const MAX_SEQUENCE = 256;

class NotLiteral extends Error {}

/** Quoted text; an empty quote leaves a mark, since `""` is a word of its own even when empty. */
function quoted(text: string, out: Char[]): void {
  if (text === "") out.push({ ch: "", quoted: true });
  for (const ch of text) out.push({ ch, quoted: true });
}

/** Characters of raw source text (a Literal or BraceExpansion part), with quoting resolved. */
function tokenize(raw: string, out: Char[]): void {
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch === "\\") {
      const next = raw[i + 1];
      if (next === undefined) throw new NotLiteral();
      if (next !== "\n") out.push({ ch: next, quoted: true });
      i++;
    } else if (ch === "'") {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) throw new NotLiteral();
      quoted(raw.slice(i + 1, end), out);
      i = end;
    } else if (ch === '"') {
      const end = raw.indexOf('"', i + 1);
      const inner = raw.slice(i + 1, end);
      if (end < 0 || /[$`\\]/.test(inner)) throw new NotLiteral();
      quoted(inner, out);
      i = end;
    } else if (/[$`*?[\]]/.test(ch)) {
      throw new NotLiteral();
    } else {
      out.push({ ch, quoted: false });
    }
  }
}

function charsOf(word: Word): Char[] | undefined {
  const out: Char[] = [];
  try {
    for (const part of word.parts ?? []) {
      switch (part.type) {
        case "Literal":
        case "BraceExpansion":
          tokenize(part.text, out);
          break;
        case "SingleQuoted":
        case "AnsiCQuoted":
          quoted(part.value, out);
          break;
        case "DoubleQuoted":
          if (!part.parts.every((p) => p.type === "Literal")) return undefined;
          quoted(part.parts.map((p) => p.value).join(""), out);
          break;
        default:
          return undefined;
      }
    }
  } catch (error) {
    if (error instanceof NotLiteral) return undefined;
    throw error;
  }
  return out;
}

const isOpen = (c: Char | undefined): boolean => c !== undefined && !c.quoted && c.ch === "{";
const isClose = (c: Char | undefined): boolean => c !== undefined && !c.quoted && c.ch === "}";
const isComma = (c: Char | undefined): boolean => c !== undefined && !c.quoted && c.ch === ",";

/** `{1..5}`, `{05..1..2}`, `{a..e}`: the words of a sequence, or undefined when it is not one. */
function sequence(body: Char[]): Char[][] | undefined {
  const text = body.map((c) => c.ch).join("");
  if (body.some((c) => c.quoted)) return undefined;
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numbers ?? letters;
  if (match === null) return undefined;
  const from = numbers ? Number(match[1]) : (match[1] as string).charCodeAt(0);
  const to = numbers ? Number(match[2]) : (match[2] as string).charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step > MAX_SEQUENCE) throw new NotLiteral();
  const padTo =
    numbers && (/^-?0\d/.test(match[1] as string) || /^-?0\d/.test(match[2] as string))
      ? Math.max((match[1] as string).length, (match[2] as string).length)
      : 0;
  const words: Char[][] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    const shown = numbers
      ? String(Math.abs(v)).padStart(padTo - (v < 0 ? 1 : 0), "0")
      : String.fromCharCode(v);
    const value = numbers && v < 0 ? `-${shown}` : shown;
    words.push([...value].map((ch) => ({ ch, quoted: true })));
  }
  return words;
}

/** The alternatives of the brace at `open`, and where it closes; undefined when it is literal. */
function braceAt(chars: Char[], open: number): { alternatives: Char[][]; close: number } | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < chars.length; i++) {
    const c = chars[i];
    if (isOpen(c)) depth++;
    else if (isClose(c)) {
      depth--;
      if (depth === 0) {
        const body = chars.slice(open + 1, i);
        if (commas.length === 0) {
          const seq = sequence(body);
          return seq === undefined ? undefined : { alternatives: seq, close: i };
        }
        const alternatives: Char[][] = [];
        let start = open + 1;
        for (const comma of [...commas, i]) {
          alternatives.push(chars.slice(start, comma));
          start = comma + 1;
        }
        return { alternatives, close: i };
      }
    } else if (depth === 1 && isComma(c)) commas.push(i);
  }
  return undefined;
}

function expand(chars: Char[], out: Char[][]): void {
  for (let i = 0; i < chars.length; i++) {
    if (!isOpen(chars[i])) continue;
    // `${` is a parameter expansion, never a brace (tokenize already refused `$`).
    const brace = braceAt(chars, i);
    if (brace === undefined) continue;
    const before = chars.slice(0, i);
    const after = chars.slice(brace.close + 1);
    for (const alternative of brace.alternatives) {
      expand([...before, ...alternative, ...after], out);
      if (out.length > MAX_WORDS) throw new NotLiteral();
    }
    return;
  }
  out.push(chars);
}

/**
 * The words a word with brace expansions becomes, or undefined when it holds anything else that
 * only the shell can resolve (a variable, a glob, a substitution) or expands past the limit.
 */
export function expandBraces(word: Word): string[] | undefined {
  if (!word.parts?.some((p) => p.type === "BraceExpansion")) return undefined;
  const chars = charsOf(word);
  if (chars === undefined) return undefined;
  // A leading unquoted ~ is tilde expansion, done after braces.
  if (chars[0]?.ch === "~" && !chars[0].quoted) return undefined;
  const out: Char[][] = [];
  try {
    expand(chars, out);
  } catch (error) {
    if (error instanceof NotLiteral) return undefined;
    throw error;
  }
  // A word that starts with ~ (or looks like an assignment with ~ after = or :) is tilde-expanded next.
  const tilde = (w: Char[]): boolean => {
    if (w[0]?.ch === "~" && !w[0].quoted) return true;
    const eq = w.findIndex((c) => c.ch === "=" && !c.quoted);
    if (
      eq <= 0 ||
      !/^[A-Za-z_][A-Za-z0-9_]*\+?$/.test(
        w
          .slice(0, eq)
          .map((c) => c.ch)
          .join(""),
      )
    )
      return false;
    return w
      .slice(eq + 1)
      .some((c, i, rest) => c.ch === "~" && !c.quoted && (i === 0 || rest[i - 1]?.ch === ":"));
  };
  if (out.some(tilde)) return undefined;
  // Empty alternatives vanish as words (`{,-o}` gives just `-o` when nothing surrounds it).
  return out.filter((w) => w.length > 0).map((w) => w.map((c) => c.ch).join(""));
}
