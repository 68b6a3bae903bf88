import { appendFile, mkdir, rename, stat } from "node:fs/promises";
import path from "node:path";
import { formatBytes } from "../checkpoints/checkpoint-limits.ts";

interface McpServerLogOptions {
  /** When the file would grow past this, it is moved to `<file>.1` and a new one started. */
  maxBytes?: number;
  /** Lines kept in memory for the UI. */
  tailLines?: number;
}

/**
 * One server's log: its stderr and Lathe's notes about it (starts, exits, reconnects), appended
 * to a size-capped file in `$LATHE_HOME/logs/` and kept as an in-memory tail the UI can show.
 */
/** Characters of a line kept in memory for the tail (the file keeps every line whole). */
const KEPT_CHARS = 4000;
/** Characters of the server's last line quoted in a message. */
const QUOTED_CHARS = 300;

/**
 * Lines that say no reason of their own: stack frames (JavaScript's `at …`, Python's `File "…"`),
 * a caret under the failing code, a traceback's heading, and Node's version after an uncaught error.
 */
const NO_REASON = /^(at\s|File "|\^+$|Traceback \(most recent call last\)|\.\.\. \d+ more|Node\.js v\d)/;
/** A line that says something failed, and why. */
const FAILURE =
  /\b(error|exception|fatal|panic|failed|failure|cannot|can't|could not|unable|not found|no such|denied|invalid|missing|refused|not set)\b/i;
/** Lines looked back over (stack frames aside) for one that says what failed. */
const REASON_LINES = 20;

/** A line as kept in memory: its start, and how long it really is. */
interface KeptLine {
  text: string;
  length: number;
}

/**
 * A copy of `text` that holds nothing else: the start of a large chunk, sliced off, would keep
 * the whole chunk alive (V8 shares the parent's memory), so the tail's 500 lines could hold 500
 * of a flooding server's chunks.
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function shown(line: KeptLine, chars: number): string {
  if (line.length <= chars) return line.text.slice(0, chars);
  return `${line.text.slice(0, chars)}… (${line.length - chars} more characters in the log)`;
}

/** Text waiting to be written: the server's, or a note of Lathe's. */
interface Waiting {
  text: string;
  bytes: number;
}

/** What was left out of the file, from when. */
interface LeftOut {
  bytes: number;
  at: Date;
}

/** The line that stands in the file for what was left out. */
function leftOutLine({ bytes, at }: LeftOut): string {
  return `[lathe ${at.toISOString()}] ${formatBytes(bytes)} of the server's output (or Lathe's notes about it) were not written here: it wrote faster than its log could be saved\n`;
}

export class McpServerLog {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly tailLines: number;
  private readonly lines: KeptLine[] = [];
  private partial: KeptLine = { text: "", length: 0 };
  private size: number | undefined;
  /**
   * Text not yet in the file, oldest first. A server can write faster than the file is written:
   * past `maxBytes` waiting (what the file holds before it moves to `.1`), its oldest output is
   * left out, and the file says how much in its place.
   */
  private readonly waiting: Waiting[] = [];
  private waitingBytes = 0;
  /** What was left out since the last write, for the line that says so. */
  private leftOut: LeftOut | undefined;
  private writing: Promise<void> | undefined;
  private failure: string | undefined;

  constructor(file: string, options: McpServerLogOptions = {}) {
    this.file = file;
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.tailLines = options.tailLines ?? 500;
  }

  /** Raw output from the server (stderr). */
  write(text: string): void {
    if (text === "") return;
    text.split("\n").forEach((piece, i) => {
      if (i > 0) this.endLine();
      const room = KEPT_CHARS - this.partial.text.length;
      this.partial = {
        text: room > 0 ? this.partial.text + piece.slice(0, room) : this.partial.text,
        length: this.partial.length + piece.length,
      };
    });
    this.append(text);
  }

  /** A line from Lathe itself, timestamped. */
  note(message: string): void {
    const line = `[lathe ${new Date().toISOString()}] ${message}`;
    if (this.partial.length > 0) {
      this.endLine();
      this.append("\n");
    }
    this.keep({ text: line.slice(0, KEPT_CHARS), length: line.length }, true);
    this.append(`${line}\n`);
  }

  /** The last `count` lines (a line still being written included), a huge one cut short. */
  tail(count: number): string[] {
    const kept = this.lines.slice(-this.tailLines);
    const all = this.partial.length === 0 ? kept : [...kept, this.partial];
    return count <= 0 ? [] : all.slice(-count).map((line) => shown(line, KEPT_CHARS));
  }

  /**
   * What the server last said, for error messages: the start of the last complete line it wrote
   * (else the one it is writing), a stack frame or a runtime's sign-off ("Node.js v24.1.0")
   * passed over; and when an earlier line says what failed ("Error: …", "fatal: …") and the last
   * does not, that one too: `shutting down; before that: error: no config file`.
   */
  lastOutput(): string | undefined {
    const newestFirst = [...this.lines.slice(-this.tailLines).toReversed(), this.partial];
    let last: KeptLine | undefined;
    let seen = 0;
    for (const line of newestFirst) {
      const text = line.text.trim();
      if (text === "" || line.text.startsWith("[lathe ") || NO_REASON.test(text)) continue;
      const kept = { text, length: line.length - (line.text.length - text.length) };
      last ??= kept;
      if (FAILURE.test(text)) {
        const reason = shown(kept, QUOTED_CHARS);
        return kept === last ? reason : `${shown(last, QUOTED_CHARS)}; before that: ${reason}`;
      }
      if (++seen >= REASON_LINES) break;
    }
    return last === undefined ? undefined : shown(last, QUOTED_CHARS);
  }

  /** Wait until everything written so far is on disk. */
  flush(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private endLine(): void {
    this.keep(this.partial);
    this.partial = { text: "", length: 0 };
  }

  /** Keep a line for the tail (`fresh`: its text is a string of its own, not a piece of a chunk). */
  private keep(line: KeptLine, fresh = false): void {
    this.lines.push(fresh ? line : { text: ownCopy(line.text), length: line.length });
    // Trimmed in one go once twice as many as the tail are kept, not one line at a time.
    if (this.lines.length >= 2 * this.tailLines) this.lines.splice(0, this.lines.length - this.tailLines);
  }

  private append(text: string): void {
    const bytes = Buffer.byteLength(text);
    this.waiting.push({ text, bytes });
    this.waitingBytes += bytes;
    // Past the cap, the oldest waiting text is left out (never the text just written); the file
    // says how much in its place.
    while (this.waitingBytes > this.maxBytes && this.waiting.length > 1) {
      const piece = this.waiting.shift() as Waiting;
      this.waitingBytes -= piece.bytes;
      this.leftOut = { bytes: (this.leftOut?.bytes ?? 0) + piece.bytes, at: this.leftOut?.at ?? new Date() };
    }
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  /**
   * Write what waits, as much at once as the file takes before it moves to `.1`. What was left
   * out came after what is being written and before what waits, so its line is written between.
   */
  private async drain(): Promise<void> {
    while (this.waiting.length > 0 || this.leftOut) {
      if (this.leftOut) {
        const line = leftOutLine(this.leftOut);
        this.leftOut = undefined;
        await this.appendNow(line);
        continue;
      }
      const room = this.maxBytes - (this.size ?? 0);
      let batch = "";
      let bytes = 0;
      do {
        const piece = this.waiting.shift() as Waiting;
        batch += piece.text;
        bytes += piece.bytes;
        this.waitingBytes -= piece.bytes;
      } while (this.waiting.length > 0 && bytes + (this.waiting[0] as Waiting).bytes <= room);
      await this.appendNow(batch);
    }
  }

  private async appendNow(text: string): Promise<void> {
    try {
      const bytes = Buffer.byteLength(text);
      if (this.size === undefined) {
        await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
        this.size = await stat(this.file).then(
          (s) => s.size,
          () => 0,
        );
      }
      if (this.size > 0 && this.size + bytes > this.maxBytes) {
        await rename(this.file, `${this.file}.1`);
        this.size = 0;
      }
      await appendFile(this.file, text, { mode: 0o600 });
      this.size += bytes;
      this.failure = undefined;
    } catch (err) {
      // Tell the UI once, through the tail, that the file is not being written.
      const message = `[lathe] cannot write ${this.file}: ${(err as Error).message}`;
      if (this.failure !== message) {
        this.failure = message;
        this.keep({ text: message, length: message.length }, true);
      }
    }
  }
}
