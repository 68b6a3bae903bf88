import { createWriteStream, rmSync, type WriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { partialPathOf } from "../session/partial-file.ts";
import { ScreenText, visibleBytes, withoutControls } from "./screen-text.ts";

interface CappedOutputOptions {
  /**
   * How much of the output as shown (see `CappedOutput`) is kept in memory and returned; past it
   * (or once the command printed more than this) every byte printed also goes to the sidecar.
   */
  maxBytes: number;
  /**
   * How much output is kept at all (the sidecar's size at most, in bytes printed): past it the
   * rest is dropped and `overflow` is told once, so a command printing without end cannot fill
   * the disk.
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

/** How much of the end of the output as shown is kept besides its head (see `CapturedOutput.tail`). */
export const CAPTURED_TAIL_BYTES = 16 * 1024;

export interface CapturedOutput {
  /** The whole output as shown, or, past the cap, its head (cut on a whole line where possible). */
  text: string;
  /** Every byte the command printed, as it printed them, when the output as shown passed the cap. */
  sidecarPath?: string;
  /** With a sidecar: the last `CAPTURED_TAIL_BYTES` of the output as shown (from a whole character). */
  tail?: string;
  /** The size of the output as shown. */
  totalBytes: number;
  /** How many lines the whole output holds (its newlines, plus one for a last line without one). */
  totalLines: number;
  /** How many bytes the command printed (what the sidecar holds, escape sequences and all). */
  printedBytes: number;
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
 * A command's combined output with flat memory however much it prints, kept twice over:
 * - as shown: what the terminal's screen would show (see screen-text.ts: escape sequences
 *   removed, `\r` progress lines collapsed to their last state, controls that show nothing
 *   dropped), which is what the model reads: its first `maxBytes` stay in memory as the head,
 *   its last `CAPTURED_TAIL_BYTES` as the tail, and the limits apply to it;
 * - as printed, in the sidecar: once the output as shown passes `maxBytes` (or what was printed
 *   does), a sidecar file is opened and every byte printed (from the first) is streamed to it,
 *   pausing the producer while the file lags. Only terminal newlines (`\r\n`, even split across
 *   chunks) become `\n` there. An output whose shown form fits after all loses its sidecar.
 */
export class CappedOutput {
  private readonly options: CappedOutputOptions;
  private readonly screen = new ScreenText();
  /**
   * The output as shown, read as the model reads it: as UTF-8, each byte that is not part of a
   * character becoming U+FFFD (three bytes). Counted before that, 200 KB of binary output came
   * back as up to 600 KB of replacement characters, past the cap and with no sidecar.
   */
  private readonly decoder = new TextDecoder("utf-8");
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  /** The end of the output as shown: at least its last `CAPTURED_TAIL_BYTES`, in pieces. */
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** The size of the output as shown. */
  private totalBytes = 0;
  private newlines = 0;
  private endsWithNewline = true;
  /** What was printed, until the sidecar is asked for (then it is its backlog). */
  private printed: Buffer[] = [];
  private printedBytes = 0;
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
    if (limit !== undefined && this.printedBytes + chunk.length > limit) {
      chunk = chunk.subarray(0, Math.max(0, limit - this.printedBytes));
      this.overflowed = true;
      this.carriageReturnHeld = false;
    }
    if (chunk.length > 0) this.append(chunk, this.screen.write(chunk));
    if (this.overflowed) this.options.overflow?.();
  }

  /** Lathe's own note at the end of the output (kept even past `maxTotalBytes`, which it may pass). */
  writeNote(text: string): void {
    this.endOutput();
    const note = Buffer.from(text);
    this.append(note, note);
  }

  /** The output once the producer is done; fails when the sidecar could not be written. */
  async finish(): Promise<CapturedOutput> {
    this.endOutput();
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
      printedBytes: this.printedBytes,
    };
    if (this.totalBytes <= this.options.maxBytes) {
      // What was printed was larger than the cap, what it shows is not: the model has it all.
      if (this.sidecarPath !== undefined) await rm(this.sidecarPath, { force: true });
      return { text: withoutControls(bytes.toString("utf8")), ...totals };
    }
    const text = withoutControls(bytes.subarray(0, headEnd(bytes)).toString("utf8"));
    return { text, sidecarPath: this.sidecarPath as string, tail: this.tailText(), ...totals };
  }

  /** The output has ended: what the screen still held (its last line) and a held `\r`. */
  private endOutput(): void {
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false;
      this.append(CR_ONLY, this.screen.write(CR_ONLY));
    }
    this.append(undefined, this.screen.end());
    // A character cut off by the end of the output reads as U+FFFD.
    const rest = this.decoder.decode();
    if (rest !== "") this.append(undefined, Buffer.from(rest, "utf8"));
  }

  /** The last `CAPTURED_TAIL_BYTES` of the output as shown, from its first whole character. */
  private tailText(): string {
    const end = Buffer.concat(this.tail, this.tailBytes);
    let start = Math.max(0, end.length - CAPTURED_TAIL_BYTES);
    while (start < end.length && ((end[start] as number) & 0xc0) === 0x80) start++;
    return withoutControls(end.subarray(start).toString("utf8"));
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

  /** What was printed (none for the screen's last line) and what of it the screen now shows. */
  private append(printed: Buffer | undefined, shown: Buffer): void {
    if (printed !== undefined && printed.length > 0) this.keepPrinted(printed);
    // Counted and kept as the model reads it: without the controls that show nothing, as text.
    const visible = shown.length > 0 ? this.asRead(visibleBytes(shown)) : shown;
    if (visible.length > 0) this.keepShown(visible);
    const { maxBytes } = this.options;
    const needed = this.totalBytes > maxBytes || this.printedBytes > maxBytes;
    if (!needed || this.stream || this.opening || this.failure || this.discarded) return;
    this.backlog = this.printed;
    this.printed = [];
    this.options.pause();
    this.opening = this.options.openSidecar().then(
      (file) => this.startSidecar(file),
      (err: unknown) => this.fail(err),
    );
  }

  /** `bytes` as UTF-8 text reads them (a character split across chunks waits for its end). */
  private asRead(bytes: Buffer): Buffer {
    if (bytes.length === 0) return bytes;
    return Buffer.from(this.decoder.decode(bytes, { stream: true }), "utf8");
  }

  private keepPrinted(chunk: Buffer): void {
    this.printedBytes += chunk.length;
    if (this.failure || this.discarded) return;
    if (this.stream) {
      if (!this.stream.write(chunk)) this.options.pause();
    } else if (this.opening) this.backlog.push(chunk);
    else this.printed.push(chunk);
  }

  private keepShown(chunk: Buffer): void {
    const { maxBytes } = this.options;
    this.totalBytes += chunk.length;
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) this.newlines++;
    this.endsWithNewline = chunk[chunk.length - 1] === LF;
    if (this.headBytes < maxBytes) {
      const part = chunk.subarray(0, maxBytes - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    if (this.tailBytes > 2 * CAPTURED_TAIL_BYTES || this.tail.length > 64) {
      const end = Buffer.concat(this.tail, this.tailBytes);
      const kept = Math.min(end.length, CAPTURED_TAIL_BYTES);
      this.tail = [Buffer.from(end.subarray(end.length - kept))];
      this.tailBytes = kept;
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
