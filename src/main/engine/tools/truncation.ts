import type { Truncation } from "./contract.ts";

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
  const head = bytes.subarray(0, end).toString("utf8");
  const lastNewline = head.lastIndexOf("\n");
  return lastNewline > 0 ? head.slice(0, lastNewline + 1) : head;
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
  return { data: { ...data, [field]: head }, full: text };
}

/** An item as a sidecar line: a string as it is, anything else as JSON. */
function asLine(item: unknown): string {
  return typeof item === "string" ? item : JSON.stringify(item);
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
    format === asLine && items.every((item) => typeof item === "string") ? items : items.map(format);
  return { data: { ...data, [field]: items.slice(0, max) }, full: lines.join("\n") + "\n" };
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
}

export function selfTruncated<Data>(data: Data, outputPath: string): SelfTruncated<Data> {
  return { [SELF_TRUNCATED]: true, data, outputPath };
}

export function isSelfTruncated(value: unknown): value is SelfTruncated<unknown> {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SELF_TRUNCATED] === true
  );
}
