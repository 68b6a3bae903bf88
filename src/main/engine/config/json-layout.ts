import { withoutByteOrderMark } from "./json-text.ts";

/** How a JSON file a person keeps is laid out: what the app keeps when it rewrites the file. */
export interface JsonLayout {
  /** One level of indentation: a tab, or some spaces; "" for a file written on one line. */
  indent: string;
  eol: "\n" | "\r\n";
  /** Whether the text ends with a line break. */
  finalNewline: boolean;
  /** Whether the text starts with a byte-order mark (Windows Notepad saves UTF-8 so). */
  byteOrderMark: boolean;
}

/** For a new file, or one whose text shows none of these (an empty object). */
export const DEFAULT_JSON_LAYOUT: JsonLayout = {
  indent: "  ",
  eol: "\n",
  finalNewline: true,
  byteOrderMark: false,
};

/** At most what JSON.stringify indents with. */
const MAX_INDENT = 10;

/** `{}` (or `[]`) and blanks: no layout chosen yet, so the first value saved gets the default one. */
const EMPTY = /^\s*(?:\{\s*\}|\[\s*\])\s*$/;

/**
 * The layout of `text` (a JSON object as written): the indentation of its first indented line
 * (one level, since that line is a key of the outer object), or none when the whole value is on
 * one line (an empty object aside); the line ending of its first line break, whether it ends with
 * one, and whether a byte-order mark comes first. What it does not show is the default's.
 */
export function jsonLayoutOf(text: string): JsonLayout {
  const body = withoutByteOrderMark(text);
  const oneLine = !body.trimEnd().includes("\n") && !EMPTY.test(body);
  const indent = oneLine ? "" : /\n([ \t]+)\S/.exec(body)?.[1];
  const firstBreak = body.indexOf("\n");
  return {
    indent: indent === undefined || indent.length > MAX_INDENT ? DEFAULT_JSON_LAYOUT.indent : indent,
    eol: firstBreak > 0 && body[firstBreak - 1] === "\r" ? "\r\n" : "\n",
    finalNewline: body.endsWith("\n"),
    byteOrderMark: body !== text,
  };
}

/** `value` as JSON text laid out as `layout` says. */
export function formatJson(value: unknown, layout: JsonLayout): string {
  const text = JSON.stringify(value, null, layout.indent);
  const lines = layout.eol === "\n" ? text : text.replaceAll("\n", layout.eol);
  const mark = layout.byteOrderMark ? "\uFEFF" : "";
  return `${mark}${lines}${layout.finalNewline ? layout.eol : ""}`;
}
