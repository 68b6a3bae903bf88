import type { Truncation } from "./contract.ts";
import { needsQuoting, oneLinePath } from "./one-line-path.ts";
import { byteSize } from "./byte-size.ts";
import { counted } from "./counted.ts";

/** Default output caps; hosts may tune them, the head + sidecar shape is fixed. */
export const OUTPUT_LIMITS = {
  readBytes: 200 * 1024,
  globEntries: 1000,
  grepMatches: 200,
  bashBytes: 200 * 1024,
  webFetchBytes: 200 * 1024,
} as const;

/**
 * The longest prefix of `text` within `maxBytes` of UTF-8, cut after the last newline inside the
 * limit when there is one, so the head ends on a whole line.
 */
export function utf8Head(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  const bytes = Buffer.from(text, "utf8");
  let end = maxBytes;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  // Taken from the text itself, not decoded from the bytes: a lone surrogate (a stray byte of a
  // file read as UTF-8) was encoded as U+FFFD, and decoding would put that in its place. Both are
  // one UTF-16 unit, so the decoded prefix is as long as the text's.
  const head = text.slice(0, bytes.subarray(0, end).toString("utf8").length);
  const lastNewline = head.lastIndexOf("\n");
  return lastNewline > 0 ? head.slice(0, lastNewline + 1) : head;
}

/**
 * What a cut result leaves out: text (its bytes and lines, at its end or, when the head and the
 * tail are shown, in its middle), or the items of a list past the ones shown.
 */
export type LeftOut =
  | { kind: "text"; bytes: number; lines: number; at: "end" | "middle"; file?: FileLines }
  | { kind: "items"; shown: number; total: number };

/**
 * A cut text that is lines of a file (a read): where the rest is read from the file itself, and
 * which line of the file the sidecar's first line is (the sidecar numbers its lines from 1).
 */
export interface FileLines {
  path: string;
  firstLine: number;
  /** The line to go on at (the one after the last line shown). */
  next: number;
}

/** How many lines `text` holds: its newlines, plus one for a last line without one. */
export function lineCount(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.length > 0 && !text.endsWith("\n") ? lines + 1 : lines;
}

/** What is left out when only `head` of `text` is shown. */
export function textLeftOut(text: string, head: string): LeftOut {
  const rest = text.slice(head.length);
  return { kind: "text", bytes: Buffer.byteLength(rest, "utf8"), lines: lineCount(rest), at: "end" };
}

/**
 * The left-out text as a count, e.g. "1200 lines (48.2 KB)"; "part of a line (9.4 MB)" when no
 * whole line is left out (the middle of one long line).
 */
export function leftOutSize(bytes: number, lines: number): string {
  return `${lines === 0 && bytes > 0 ? "part of a line" : counted(lines, "line")} (${byteSize(bytes)})`;
}

/** The two notes of a truncated envelope's metadata (see leftOutNotes). */
export interface LeftOutNotes {
  /** What the result does not show, and the file holding all of it (or that it could not be kept). */
  left_out: string;
  /** How to see the rest: the commands that read that file, or to narrow the call. */
  read_rest: string;
}

/**
 * The notes every truncated envelope carries: `left_out`, what the result does not show and
 * where all of it is (the sidecar at `outputPath`, or that it could not be kept), which is what
 * a person is shown too; and `read_rest`, how the model reads the rest. Kept apart, so neither
 * is cut out of the other by its wording.
 */
export function leftOutNotes(leftOut: LeftOut | undefined, outputPath: string | undefined): LeftOutNotes {
  let what: string;
  if (leftOut === undefined) what = "The result was cut to its head; the rest is not shown.";
  else if (leftOut.kind === "items") {
    const rest = leftOut.total - leftOut.shown;
    what = `Only the first ${leftOut.shown} of ${leftOut.total} entries are shown; ${rest} ${rest === 1 ? "is" : "are"} left out.`;
  } else {
    const are = leftOut.lines > 1 ? "are" : "is";
    what =
      leftOut.at === "middle"
        ? `The output was cut: ${leftOutSize(leftOut.bytes, leftOut.lines)} in its middle ${are} left out; its head and its last lines are shown.`
        : `The output was cut: its last ${leftOutSize(leftOut.bytes, leftOut.lines)} ${are} left out, so its end is not shown.`;
  }
  const file = leftOut?.kind === "text" ? leftOut.file : undefined;
  // Lines of a file go on in the file, numbered as read numbers them.
  const goOn = file === undefined ? undefined : `Go on with read (path "${file.path}", offset ${file.next}).`;
  if (outputPath === undefined)
    return {
      left_out: `${what} The whole output could not be saved.`,
      read_rest: goOn ?? "Narrow the call to see the rest.",
    };
  if (file !== undefined && goOn !== undefined) {
    const numbering =
      file.firstLine > 1 ? ` (line 1 of ${outputPath} is line ${file.firstLine} of ${file.path})` : "";
    return {
      left_out: `${what} All of it is in ${outputPath}.`,
      read_rest: `${goOn} Search all of it with grep (path "${outputPath}")${numbering}, or see its end with bash \`tail -n 100 ${outputPath}\`.`,
    };
  }
  return {
    left_out: `${what} All of it is in ${outputPath}.`,
    read_rest: `Search it with grep (path "${outputPath}"), read it in parts with read (offset, limit), or see its end with bash \`tail -n 100 ${outputPath}\`.`,
  };
}

/** Cut a string field of the data to `maxBytes`; the sidecar gets the whole string. */
export function truncateTextField<D extends Record<K, string>, K extends keyof D>(
  data: D,
  field: K,
  maxBytes: number,
): Truncation<D> | undefined {
  const text = data[field];
  const head = utf8Head(text, maxBytes);
  if (head.length === text.length) return undefined;
  return { data: { ...data, [field]: head }, full: text, leftOut: textLeftOut(text, head) };
}

/** An item as a sidecar line: a string as one line (see oneLinePath), anything else as JSON. */
function asLine(item: unknown): string {
  return typeof item === "string" ? oneLinePath(item) : JSON.stringify(item);
}

/** Keep the first `max` items of a list field; the sidecar gets every item, one per line. */
export function truncateListField<D extends Record<K, readonly unknown[]>, K extends keyof D>(
  data: D,
  field: K,
  max: number,
  format: (item: D[K][number]) => string = asLine,
): Truncation<D> | undefined {
  const items = data[field];
  if (items.length <= max) return undefined;
  // A list of strings (glob's tens of thousands of paths) is joined as it is, without a copy.
  const lines =
    format === asLine && items.every((item) => typeof item === "string" && !needsQuoting(item))
      ? items
      : items.map(format);
  return {
    data: { ...data, [field]: items.slice(0, max) },
    full: lines.join("\n") + "\n",
    leftOut: { kind: "items", shown: max, total: items.length },
  };
}

const SELF_TRUNCATED = Symbol.for("lathe.self-truncated");

/**
 * What a tool returns when it streamed its whole output to a sidecar itself (bash, so memory
 * stays flat however much a command prints): the head as data, and where the rest is.
 */
export interface SelfTruncated<Data> {
  readonly [SELF_TRUNCATED]: true;
  readonly data: Data;
  readonly outputPath: string;
  readonly leftOut?: LeftOut;
}

export function selfTruncated<Data>(data: Data, outputPath: string, leftOut?: LeftOut): SelfTruncated<Data> {
  return { [SELF_TRUNCATED]: true, data, outputPath, ...(leftOut ? { leftOut } : {}) };
}

export function isSelfTruncated(value: unknown): value is SelfTruncated<unknown> {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SELF_TRUNCATED] === true
  );
}
