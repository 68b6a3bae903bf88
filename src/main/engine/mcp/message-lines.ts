/**
 * The lines of a stdio MCP server's output, one JSON-RPC message each, with a cap on one
 * message: a longer line is not kept (its bytes are counted, and its first and last bytes kept so
 * the request it answers can be told) instead of the whole connection being dropped for it.
 */

/** The most of one message Lathe reads from a stdio server (the MCP SDK's own limit). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Bytes kept from each end of a line past the cap. */
const EDGE_BYTES = 512;

/** A line past the cap: how long it was, and its ends. */
export interface OversizedLine {
  bytes: number;
  head: string;
  tail: string;
}

export type ReadLine = { line: string } | { oversized: OversizedLine };

/** The `error.data.lathe` of the error answer Lathe gives a request whose answer was too large. */
export const TOO_LARGE = "message-too-large";

function lastBytes(buffer: Buffer, count: number): Buffer {
  return buffer.length <= count ? buffer : buffer.subarray(buffer.length - count);
}

export class MessageLines {
  private readonly maxBytes: number;
  private parts: Buffer[] = [];
  private size = 0;
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(maxBytes = MAX_MESSAGE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** Feed output; returns each line completed by it (blank lines left out). */
  push(chunk: Buffer): ReadLine[] {
    const out: ReadLine[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      this.add(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return out;
      const line = this.endLine();
      if (line) out.push(line);
      start = newline + 1;
    }
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = undefined;
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += piece.length;
      this.skipping.tail = Buffer.from(lastBytes(Buffer.concat([this.skipping.tail, piece]), EDGE_BYTES));
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
    if (this.size <= this.maxBytes) return;
    const all = Buffer.concat(this.parts);
    this.skipping = {
      bytes: all.length,
      head: Buffer.from(all.subarray(0, EDGE_BYTES)),
      tail: Buffer.from(lastBytes(all, EDGE_BYTES)),
    };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): ReadLine | undefined {
    const skipped = this.skipping;
    if (skipped) {
      this.skipping = undefined;
      const tail = skipped.tail.toString("utf8").replace(/\r$/, "");
      return { oversized: { bytes: skipped.bytes, head: skipped.head.toString("utf8"), tail } };
    }
    const line = Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.size = 0;
    return line.trim() === "" ? undefined : { line };
  }
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"result":…` or `{"error":…`: a response as the TypeScript SDK writes it (id last). */
const RESPONSE_FIRST = /^\s*\{\s*"(?:result|error)"\s*:/;
/** `{"jsonrpc":"2.0","id":7,"result":…`: as the Python SDK writes it (id first). */
const JSONRPC = String.raw`(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?`;
const ID_FIRST = new RegExp(
  String.raw`^\s*\{\s*${JSONRPC}"id"\s*:\s*${ID}\s*,\s*${JSONRPC}"(?:result|error)"\s*:`,
);
/** `…,"id":7}` at the very end: a member of the outermost object (a nested one would end in `}}`). */
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * The id of the request an oversized line answers, when its ends show that it is a response
 * and which; undefined for a request or notification of the server's, or when it cannot be told.
 */
export function oversizedResponseId(line: OversizedLine): string | number | undefined {
  const first = ID_FIRST.exec(line.head);
  const raw = first?.[1] ?? (RESPONSE_FIRST.test(line.head) ? ID_LAST.exec(line.tail)?.[1] : undefined);
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** "10.5 MB", "10 MB" */
export function megabytes(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}
