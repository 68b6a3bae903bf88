// The model's markdown as a tree the chat renders with React elements (never as HTML: nothing the
// model writes can become markup or script). It covers what chat models write: headings,
// paragraphs, lists (nested by indentation), block quotes, fenced code (a fence still open while
// text streams is a code block too), tables, rules, and inline code, bold, italics, strike-through
// and links (http, https and mailto only).

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong" | "em" | "del"; children: Inline[] }
  | { kind: "link"; href: string; children: Inline[] }
  | { kind: "break" };

export type Block =
  | { kind: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: "paragraph"; children: Inline[] }
  | { kind: "code"; language: string; text: string; closed: boolean }
  | { kind: "list"; ordered: boolean; start: number; items: Block[][] }
  | { kind: "quote"; children: Block[] }
  | {
      kind: "table";
      align: Array<"left" | "center" | "right" | undefined>;
      head: Inline[][];
      rows: Inline[][][];
    }
  | { kind: "rule" };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;
const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** The safe target of a link, or undefined (javascript:, data:, relative paths… stay plain text). */
export function safeHref(href: string): string | undefined {
  const trimmed = href.trim();
  return SAFE_LINK.test(trimmed) ? trimmed : undefined;
}

function splitRow(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const cells: string[] = [];
  let cell = "";
  let inCode = false;
  for (let i = 0; i < row.length; i++) {
    const c = row[i] as string;
    if (c === "\\" && row[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (c === "`") {
      inCode = !inCode;
      cell += c;
    } else if (c === "|" && !inCode) {
      cells.push(cell.trim());
      cell = "";
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

function alignOf(cell: string): "left" | "center" | "right" | undefined {
  const left = cell.startsWith(":");
  const right = cell.endsWith(":");
  return left && right ? "center" : right ? "right" : left ? "left" : undefined;
}

const DELIMITERS: Array<{ marker: string; kind: "strong" | "em" | "del" }> = [
  { marker: "**", kind: "strong" },
  { marker: "__", kind: "strong" },
  { marker: "~~", kind: "del" },
  { marker: "*", kind: "em" },
  { marker: "_", kind: "em" },
];

function pushText(out: Inline[], text: string): void {
  if (text === "") return;
  const last = out.at(-1);
  if (last?.kind === "text") out[out.length - 1] = { kind: "text", text: last.text + text };
  else out.push({ kind: "text", text });
}

const WORD = /[\p{L}\p{N}]/u;

/** Parse inline markdown. Unclosed markers stay as the characters they are. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!~|>]/.test(text[i + 1] as string)) {
      pushText(out, text[i + 1] as string);
      i += 2;
      continue;
    }
    if (c === "\n") {
      out.push({ kind: "break" });
      i++;
      continue;
    }
    if (c === "`") {
      const run = /^`+/.exec(text.slice(i))?.[0] ?? "`";
      const end = text.indexOf(run, i + run.length);
      if (end !== -1) {
        out.push({ kind: "code", text: text.slice(i + run.length, end).replace(/^ (.+) $/, "$1") });
        i = end + run.length;
        continue;
      }
      pushText(out, run);
      i += run.length;
      continue;
    }
    if (c === "[") {
      const link = /^\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/.exec(text.slice(i));
      if (link) {
        const href = safeHref(link[2] ?? "");
        const children = parseInline(link[1] ?? "");
        if (href) out.push({ kind: "link", href, children });
        else {
          // An unsafe target is dropped: the words stay, as text.
          for (const child of children) {
            if (child.kind === "text") pushText(out, child.text);
            else out.push(child);
          }
        }
        i += link[0].length;
        continue;
      }
    }
    if (c === "<") {
      const auto = /^<((?:https?:\/\/|mailto:)[^>\s]+)>/i.exec(text.slice(i));
      if (auto?.[1]) {
        out.push({ kind: "link", href: auto[1], children: [{ kind: "text", text: auto[1] }] });
        i += auto[0].length;
        continue;
      }
    }
    if (c === "h" && (i === 0 || !WORD.test(text[i - 1] as string))) {
      const bare = /^https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"]/.exec(text.slice(i));
      if (bare) {
        out.push({ kind: "link", href: bare[0], children: [{ kind: "text", text: bare[0] }] });
        i += bare[0].length;
        continue;
      }
    }
    const delimiter = DELIMITERS.find(({ marker }) => text.startsWith(marker, i));
    if (delimiter) {
      const { marker, kind } = delimiter;
      const after = text[i + marker.length];
      // `_` inside a word (snake_case) is not emphasis; a marker must touch its text.
      const intraword = marker[0] === "_" && i > 0 && WORD.test(text[i - 1] as string);
      if (after !== undefined && !/\s/.test(after) && !intraword) {
        let end = text.indexOf(marker, i + marker.length);
        while (end !== -1) {
          const before = text[end - 1] as string;
          const next = text[end + marker.length];
          const closesWord = marker[0] === "_" && next !== undefined && WORD.test(next);
          const doubled = marker.length === 1 && next === marker;
          if (!/\s/.test(before) && !closesWord && !doubled) break;
          end = text.indexOf(marker, end + (doubled ? 2 : 1));
        }
        if (end !== -1 && end > i + marker.length) {
          out.push({ kind, children: parseInline(text.slice(i + marker.length, end)) });
          i = end + marker.length;
          continue;
        }
      }
      pushText(out, marker);
      i += marker.length;
      continue;
    }
    pushText(out, c);
    i++;
  }
  return out;
}

function isBlockStart(line: string): boolean {
  return (
    FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line)
  );
}

/** Parse markdown into blocks. */
export function parseMarkdown(text: string): Block[] {
  return parseLines(text.replace(/\r\n?/g, "\n").split("\n"));
}

function parseLines(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const body: string[] = [];
      let closed = false;
      i++;
      while (i < lines.length) {
        const close = FENCE.exec(lines[i] as string);
        if (close?.[1] && close[1][0] === marker[0] && close[1].length >= marker.length && close[2] === "") {
          closed = true;
          i++;
          break;
        }
        body.push(lines[i] as string);
        i++;
      }
      blocks.push({ kind: "code", language: fence[2] ?? "", text: body.join("\n"), closed });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] as string).length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ kind: "heading", level, children: parseInline(heading[2] ?? "") });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ kind: "rule" });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (lines[i] as string).trim() !== "" && QUOTE.test(lines[i] as string)) {
        body.push(QUOTE.exec(lines[i] as string)?.[1] ?? "");
        i++;
      }
      blocks.push({ kind: "quote", children: parseLines(body) });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const indent = (item[1] as string).length;
      const ordered = /\d/.test(item[2] as string);
      const start = ordered ? Number.parseInt(item[2] as string, 10) : 1;
      const items: string[][] = [];
      const lead = (l: string): number => /^ */.exec(l)?.[0].length ?? 0;
      let previousBlank = false;
      while (i < lines.length) {
        const current = lines[i] as string;
        const next = LIST_ITEM.exec(current);
        if (next && lead(current) === indent && /\d/.test(next[2] as string) === ordered) {
          items.push([next[3] ?? ""]);
          previousBlank = false;
          i++;
          continue;
        }
        if (current.trim() === "") {
          previousBlank = true;
          items.at(-1)?.push("");
          i++;
          continue;
        }
        if (lead(current) > indent) {
          // Nested content (a sub-list, a code block, more text of the item).
          items.at(-1)?.push(current.replace(new RegExp(`^ {0,${indent + 4}}`), ""));
          previousBlank = false;
          i++;
          continue;
        }
        if (!previousBlank && !isBlockStart(current)) {
          // A lazy continuation line of the item's text.
          items.at(-1)?.push(current.trim());
          i++;
          continue;
        }
        break;
      }
      blocks.push({ kind: "list", ordered, start, items: items.map((body) => parseLines(body)) });
      continue;
    }
    const separator = lines[i + 1];
    if (
      line.includes("|") &&
      separator !== undefined &&
      TABLE_SEPARATOR.test(separator) &&
      separator.includes("-")
    ) {
      const head = splitRow(line);
      const align = splitRow(separator).map(alignOf);
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && (lines[i] as string).includes("|") && (lines[i] as string).trim() !== "") {
        rows.push(
          splitRow(lines[i] as string)
            .slice(0, head.length)
            .map(parseInline),
        );
        i++;
      }
      blocks.push({ kind: "table", align, head: head.map(parseInline), rows });
      continue;
    }
    const paragraph: string[] = [];
    while (
      i < lines.length &&
      (lines[i] as string).trim() !== "" &&
      (paragraph.length === 0 || !isBlockStart(lines[i] as string))
    ) {
      paragraph.push((lines[i] as string).trim());
      i++;
    }
    blocks.push({ kind: "paragraph", children: parseInline(paragraph.join("\n")) });
  }
  return blocks;
}
