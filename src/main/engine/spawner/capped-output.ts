import { createWriteStream, rmSync, type WriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { partialPathOf } from "../session/partial-file.ts";

interface CappedOutputOptions {
  /** How much output is kept in memory and returned; the rest only goes to the sidecar. */
  maxBytes: number;
  /**
   * How much output is kept at all (the sidecar's size at most): past it the rest is dropped and
   * `overflow` is told once, so a command printing without end cannot fill the disk.
   */
  maxTotalBytes?: number;
  /** The output passed `maxTotalBytes` (the producer should be stopped). */
  overflow?(): void;
  /** A fresh file for the whole output, asked for once the output passes `maxBytes`. */
  openSidecar(): Promise<string>;
  /** Ask the producer to stop for now (the sidecar cannot take more yet)... */
  pause(): void;
  /** ...and to go on. */
  resume(): void;
}

export interface CapturedOutput {
  /** The whole output, or, past the cap, its head (cut on a whole line where possible). */
  text: string;
  /** Every byte of the output, when it passed the cap. */
  sidecarPath?: string;
  totalBytes: number;
  /** How many lines the whole output holds (its newlines, plus one for a last line without one). */
  totalLines: number;
}

const LF = 0x0a;
const CR = 0x0d;
const CR_ONLY = Buffer.from([CR]);
const CRLF = Buffer.from([CR, LF]);
/** The sidecar stream's buffer: the producer pauses past it, so memory stays flat. */
const SIDECAR_BUFFER_BYTES = 1024 * 1024;

/** Where to cut a full head: after its last newline when that keeps at least half of it, else on a character boundary. */
function headEnd(bytes: Buffer): number {
  const newline = bytes.lastIndexOf(LF);
  if (newline >= bytes.length / 2) return newline + 1;
  let start = bytes.length - 1;
  while (start > 0 && ((bytes[start] as number) & 0xc0) === 0x80) start--;
  const lead = bytes[start] as number;
  const width = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + width > bytes.length ? start : bytes.length;
}

/**
 * A command's combined output with flat memory however much it prints: the first `maxBytes`
 * stay in memory as the head; once the output passes that, a sidecar file is opened and
 * everything (the head included) is streamed to it, pausing the producer while the file lags.
 * Terminal newlines (`\r\n`) become `\n`, even when split across chunks; nothing else changes.
 */
export class CappedOutput {
  private readonly options: CappedOutputOptions;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private endsWithNewline = true;
  private carriageReturnHeld = false;
  private opening: Promise<void> | undefined;
  private sidecarPath: string | undefined;
  /** Where the sidecar is written until the output is complete (then renamed to `sidecarPath`). */
  private partialPath: string | undefined;
  private stream: WriteStream | undefined;
  /** Output that arrived while the sidecar was being opened. */
  private backlog: Buffer[] = [];
  private failure: Error | undefined;
  private discarded = false;
  /** The output passed `maxTotalBytes`: the rest of what the producer writes is dropped. */
  private overflowed = false;

  constructor(options: CappedOutputOptions) {
    this.options = options;
  }

  write(raw: Buffer): void {
    if (this.overflowed) return;
    let chunk = this.normalise(raw);
    const limit = this.options.maxTotalBytes;
    if (limit !== undefined && this.totalBytes + chunk.length > limit) {
      chunk = chunk.subarray(0, Math.max(0, limit - this.totalBytes));
      this.overflowed = true;
      this.carriageReturnHeld = false;
    }
    if (chunk.length > 0) this.append(chunk);
    if (this.overflowed) this.options.overflow?.();
  }

  /** Lathe's own note at the end of the output (kept even past `maxTotalBytes`, which it may pass). */
  writeNote(text: string): void {
    this.append(Buffer.from(text));
  }

  /** The output once the producer is done; fails when the sidecar could not be written. */
  async finish(): Promise<CapturedOutput> {
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false;
      this.append(CR_ONLY);
    }
    await this.opening;
    await this.closeSidecar();
    if (this.partialPath !== undefined && this.sidecarPath !== undefined && !this.failure) {
      await rename(this.partialPath, this.sidecarPath).catch((err: unknown) => this.fail(err));
    }
    if (this.failure) {
      if (this.partialPath !== undefined) await rm(this.partialPath, { force: true });
      throw new Error(
        `the command's output passed ${this.options.maxBytes} bytes and could not be saved in full${this.sidecarPath ? ` to ${this.sidecarPath}` : ""}: ${this.failure.message}`,
        { cause: this.failure },
      );
    }
    const bytes = Buffer.concat(this.head, this.headBytes);
    const totals = {
      totalBytes: this.totalBytes,
      totalLines: this.newlines + (this.endsWithNewline ? 0 : 1),
    };
    if (this.sidecarPath === undefined) return { text: bytes.toString("utf8"), ...totals };
    const text = bytes.subarray(0, headEnd(bytes)).toString("utf8");
    return { text, sidecarPath: this.sidecarPath, ...totals };
  }

  /**
   * Give up (the call was aborted, or the host has gone): close the sidecar without waiting for
   * it, and remove it at once, before this process may exit (the spawner runs this).
   */
  discard(): void {
    this.discarded = true;
    this.backlog = [];
    // A stream still opening creates the file after the removal below: remove it again once closed.
    this.stream?.once("close", () => this.removePartial());
    this.stream?.destroy();
    this.removePartial();
  }

  private removePartial(): void {
    const partial = this.partialPath;
    if (partial === undefined) return;
    try {
      rmSync(partial, { force: true });
    } catch {
      // A file left behind all the same is cleared when the session is next opened.
    }
  }

  private normalise(raw: Buffer): Buffer {
    let chunk = raw;
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false;
      chunk = Buffer.concat([CR_ONLY, raw]);
    }
    // A trailing \r may be the first half of a \r\n split across two chunks.
    if (chunk.length > 0 && chunk[chunk.length - 1] === CR) {
      this.carriageReturnHeld = true;
      chunk = chunk.subarray(0, chunk.length - 1);
    }
    if (chunk.indexOf(CR) === -1) return chunk;
    const out = Buffer.allocUnsafe(chunk.length);
    let written = 0;
    let from = 0;
    for (let at = chunk.indexOf(CRLF); at !== -1; at = chunk.indexOf(CRLF, at + 2)) {
      written += chunk.copy(out, written, from, at);
      from = at + 1;
    }
    written += chunk.copy(out, written, from);
    return out.subarray(0, written);
  }

  private append(chunk: Buffer): void {
    const { maxBytes } = this.options;
    this.totalBytes += chunk.length;
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) this.newlines++;
    this.endsWithNewline = chunk[chunk.length - 1] === LF;
    let rest = chunk;
    if (this.headBytes < maxBytes) {
      const part = chunk.subarray(0, maxBytes - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
      rest = chunk.subarray(part.length);
    }
    if (this.totalBytes <= maxBytes || this.failure || this.discarded) return;
    if (this.stream) {
      if (!this.stream.write(rest)) this.options.pause();
    } else if (this.opening) {
      this.backlog.push(rest);
    } else {
      this.backlog = [...this.head, rest];
      this.options.pause();
      this.opening = this.options.openSidecar().then(
        (file) => this.startSidecar(file),
        (err: unknown) => this.fail(err),
      );
    }
  }

  private startSidecar(file: string): void {
    this.sidecarPath = file;
    this.partialPath = partialPathOf(file);
    const stream = createWriteStream(this.partialPath, { mode: 0o600, highWaterMark: SIDECAR_BUFFER_BYTES });
    this.stream = stream;
    stream.on("error", (err) => this.fail(err));
    stream.on("drain", () => this.options.resume());
    if (this.discarded) {
      stream.destroy();
      this.removePartial();
      return;
    }
    let room = true;
    for (const chunk of this.backlog) room = stream.write(chunk);
    this.backlog = [];
    if (room) this.options.resume();
  }

  private fail(err: unknown): void {
    this.failure ??= err instanceof Error ? err : new Error(String(err));
    this.backlog = [];
    this.options.resume();
  }

  private async closeSidecar(): Promise<void> {
    const stream = this.stream;
    if (!stream || stream.closed) return;
    const closed = new Promise<void>((resolve) => stream.once("close", () => resolve()));
    stream.end();
    await closed;
  }
}
