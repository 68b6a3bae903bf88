// Syntax colouring for the code blocks of the chat: a small scanner that knows comments, strings,
// numbers, keywords and literals of the languages models write most. Tokens are plain text with a
// class; the chat renders them as React text, so nothing in the code can become markup.

export type TokenType =
  | "plain"
  | "comment"
  | "string"
  | "number"
  | "keyword"
  | "literal"
  | "type"
  | "function"
  | "variable"
  | "tag"
  | "attr"
  | "add"
  | "remove"
  | "meta";

export interface Token {
  type: TokenType;
  text: string;
}

interface Language {
  lineComments: string[];
  blockComments: Array<[string, string]>;
  /** Quote marks; a triple quote (""" or ''') is tried before its single form. */
  quotes: string[];
  keywords: ReadonlySet<string>;
  literals: ReadonlySet<string>;
  /** Capitalised identifiers are types (JS, Rust, Java…). */
  capitalisedTypes: boolean;
  /** `$NAME` and `${…}` are variables (shells). */
  dollarVariables: boolean;
  caseInsensitive: boolean;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

const C_LIKE_LITERALS = words("true false null undefined nil None True False this self super NaN Infinity");

function language(partial: Partial<Language>): Language {
  return {
    lineComments: ["//"],
    blockComments: [["/*", "*/"]],
    quotes: ['"', "'"],
    keywords: new Set(),
    literals: C_LIKE_LITERALS,
    capitalisedTypes: true,
    dollarVariables: false,
    caseInsensitive: false,
    ...partial,
  };
}

const JS = language({
  quotes: ['"', "'", "`"],
  keywords: words(
    "async await break case catch class const continue debugger default delete do else enum export extends finally for from function get if implements import in instanceof interface let new of private protected public readonly return set static switch throw try type typeof var void while with yield as satisfies declare namespace keyof abstract override",
  ),
});
const PYTHON = language({
  lineComments: ["#"],
  blockComments: [],
  quotes: ['"""', "'''", '"', "'"],
  keywords: words(
    "and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case",
  ),
});
const RUST = language({
  keywords: words(
    "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return static struct trait type unsafe use where while Self",
  ),
});
const GO = language({
  quotes: ['"', "'", "`"],
  keywords: words(
    "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
  ),
  capitalisedTypes: false,
});
const C_FAMILY = language({
  keywords: words(
    "auto break case catch char class const continue default delete do double else enum extends final finally float for fun goto if implements import include int interface long namespace new override package private protected public return short signed sizeof static struct switch template throw throws try typedef union unsigned using val var virtual void volatile when while",
  ),
});
const SHELL = language({
  lineComments: ["#"],
  blockComments: [],
  keywords: words(
    "if then else elif fi for while until do done case esac in function return export local readonly unset set shift exit break continue source alias",
  ),
  literals: words("true false"),
  capitalisedTypes: false,
  dollarVariables: true,
});
const JSON_LANGUAGE = language({
  lineComments: [],
  blockComments: [],
  quotes: ['"'],
  literals: words("true false null"),
  capitalisedTypes: false,
});
const YAML = language({
  lineComments: ["#"],
  blockComments: [],
  literals: words("true false null yes no on off ~"),
  capitalisedTypes: false,
});
const SQL = language({
  lineComments: ["--"],
  keywords: words(
    "select from where and or not insert into values update set delete create table index view drop alter add primary key foreign references join left right inner outer on group by order having limit offset as distinct union all case when then else end begin commit rollback with returning if exists default unique",
  ),
  literals: words("null true false"),
  capitalisedTypes: false,
  caseInsensitive: true,
});
const CSS = language({
  lineComments: [],
  keywords: words("important media import supports keyframes font-face"),
  capitalisedTypes: false,
});

const LANGUAGES: Record<string, Language> = {
  js: JS,
  jsx: JS,
  mjs: JS,
  cjs: JS,
  javascript: JS,
  ts: JS,
  tsx: JS,
  mts: JS,
  typescript: JS,
  py: PYTHON,
  python: PYTHON,
  rs: RUST,
  rust: RUST,
  go: GO,
  golang: GO,
  c: C_FAMILY,
  h: C_FAMILY,
  cpp: C_FAMILY,
  "c++": C_FAMILY,
  cs: C_FAMILY,
  csharp: C_FAMILY,
  java: C_FAMILY,
  kotlin: C_FAMILY,
  kt: C_FAMILY,
  swift: C_FAMILY,
  sh: SHELL,
  bash: SHELL,
  shell: SHELL,
  zsh: SHELL,
  console: SHELL,
  json: JSON_LANGUAGE,
  jsonc: JS,
  yaml: YAML,
  yml: YAML,
  toml: YAML,
  sql: SQL,
  css: CSS,
  scss: CSS,
};

/** Whether a fence's language is one the scanner colours. */
export function knownLanguage(name: string): boolean {
  const key = name.toLowerCase();
  return (
    key in LANGUAGES || key === "diff" || key === "patch" || key === "html" || key === "xml" || key === "svg"
  );
}

function push(out: Token[], type: TokenType, text: string): void {
  if (text === "") return;
  const last = out.at(-1);
  if (last && last.type === type) last.text += text;
  else out.push({ type, text });
}

function diffTokens(code: string): Token[] {
  const out: Token[] = [];
  const lines = code.split("\n");
  lines.forEach((line, index) => {
    const type: TokenType =
      line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@")
        ? "meta"
        : line.startsWith("+")
          ? "add"
          : line.startsWith("-")
            ? "remove"
            : "plain";
    push(out, type, line);
    if (index < lines.length - 1) push(out, "plain", "\n");
  });
  return out;
}

function markupTokens(code: string): Token[] {
  const out: Token[] = [];
  const pattern = /<!--[\s\S]*?(?:-->|$)|<\/?[A-Za-z][^\s/>]*|\/?>|"[^"]*"|'[^']*'|[A-Za-z-:]+(?==)/g;
  let last = 0;
  let inTag = false;
  for (const match of code.matchAll(pattern)) {
    const text = match[0];
    push(out, "plain", code.slice(last, match.index));
    if (text.startsWith("<!--")) push(out, "comment", text);
    else if (text.startsWith("<")) {
      push(out, "tag", text);
      inTag = true;
    } else if (text.endsWith(">")) {
      push(out, "tag", text);
      inTag = false;
    } else if (inTag && (text.startsWith('"') || text.startsWith("'"))) push(out, "string", text);
    else if (inTag) push(out, "attr", text);
    else push(out, "plain", text);
    last = match.index + text.length;
  }
  push(out, "plain", code.slice(last));
  return out;
}

const NUMBER = /^(?:0[xX][\da-fA-F_]+|0[bB][01_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[a-zA-Z]*/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/** Split code into coloured tokens; an unknown language is one plain token. */
export function highlight(code: string, languageName: string): Token[] {
  const name = languageName.toLowerCase();
  if (name === "diff" || name === "patch") return diffTokens(code);
  if (name === "html" || name === "xml" || name === "svg") return markupTokens(code);
  const lang = LANGUAGES[name];
  if (!lang) return code === "" ? [] : [{ type: "plain", text: code }];
  const out: Token[] = [];
  let i = 0;
  scan: while (i < code.length) {
    const rest = code.slice(i, i + 3);
    for (const [open, close] of lang.blockComments) {
      if (code.startsWith(open, i)) {
        const end = code.indexOf(close, i + open.length);
        const stop = end === -1 ? code.length : end + close.length;
        push(out, "comment", code.slice(i, stop));
        i = stop;
        continue scan;
      }
    }
    for (const marker of lang.lineComments) {
      // `#` in a shell word (a#b) or after `$` is not a comment.
      if (
        code.startsWith(marker, i) &&
        !(marker === "#" && i > 0 && /[^\s;|&(]/.test(code[i - 1] as string))
      ) {
        const end = code.indexOf("\n", i);
        const stop = end === -1 ? code.length : end;
        push(out, "comment", code.slice(i, stop));
        i = stop;
        continue scan;
      }
    }
    for (const quote of lang.quotes) {
      if (!rest.startsWith(quote)) continue;
      let j = i + quote.length;
      while (j < code.length && !code.startsWith(quote, j)) {
        if (code[j] === "\\") j++;
        else if (code[j] === "\n" && quote.length === 1 && quote !== "`") break;
        j++;
      }
      const stop = Math.min(code.length, code.startsWith(quote, j) ? j + quote.length : j);
      push(out, "string", code.slice(i, stop));
      i = stop;
      continue scan;
    }
    const c = code[i] as string;
    if (lang.dollarVariables && c === "$") {
      const variable = /^\$(?:\{[^}\n]*\}?|[A-Za-z_]\w*|[0-9#?@*!$-])/.exec(code.slice(i));
      if (variable) {
        push(out, "variable", variable[0]);
        i += variable[0].length;
        continue;
      }
    }
    if (/\d/.test(c) && (i === 0 || !/[\w$]/.test(code[i - 1] as string))) {
      const number = NUMBER.exec(code.slice(i));
      if (number) {
        push(out, "number", number[0]);
        i += number[0].length;
        continue;
      }
    }
    const identifier = IDENTIFIER.exec(code.slice(i));
    if (identifier) {
      const word = identifier[0];
      const key = lang.caseInsensitive ? word.toLowerCase() : word;
      const after = code.slice(i + word.length).match(/^\s*\(/);
      const type: TokenType = lang.keywords.has(key)
        ? "keyword"
        : lang.literals.has(key)
          ? "literal"
          : after
            ? "function"
            : lang.capitalisedTypes && /^[A-Z][a-z]/.test(word)
              ? "type"
              : "plain";
      push(out, type, word);
      i += word.length;
      continue;
    }
    push(out, "plain", c);
    i++;
  }
  return out;
}
