import { appendFile, mkdir, rename, stat } from "node:fs/promises";
import path from "node:path";

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
export class McpServerLog {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly tailLines: number;
  private readonly lines: string[] = [];
  private partial = "";
  private size: number | undefined;
  private queue: Promise<void> = Promise.resolve();
  private failure: string | undefined;

  constructor(file: string, options: McpServerLogOptions = {}) {
    this.file = file;
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.tailLines = options.tailLines ?? 500;
  }

  /** Raw output from the server (stderr). */
  write(text: string): void {
    if (text === "") return;
    const pieces = (this.partial + text).split("\n");
    this.partial = pieces.pop() ?? "";
    for (const line of pieces) this.keep(line);
    this.append(text);
  }

  /** A line from Lathe itself, timestamped. */
  note(message: string): void {
    const line = `[lathe ${new Date().toISOString()}] ${message}`;
    if (this.partial !== "") {
      this.keep(this.partial);
      this.partial = "";
      this.append("\n");
    }
    this.keep(line);
    this.append(`${line}\n`);
  }

  /** The last `count` lines (a line still being written included). */
  tail(count: number): string[] {
    const all = this.partial === "" ? this.lines : [...this.lines, this.partial];
    return count <= 0 ? [] : all.slice(-count);
  }

  /** The last complete line the server wrote, for error messages. */
  lastLine(): string | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const line = this.lines[i] as string;
      if (line.trim() !== "" && !line.startsWith("[lathe ")) return line.trim();
    }
    return this.partial.trim() || undefined;
  }

  /** Wait until everything written so far is on disk. */
  flush(): Promise<void> {
    return this.queue;
  }

  private keep(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.tailLines) this.lines.splice(0, this.lines.length - this.tailLines);
  }

  private append(text: string): void {
    this.queue = this.queue.then(() => this.appendNow(text));
  }

  private async appendNow(text: string): Promise<void> {
    try {
      const bytes = Buffer.byteLength(text);
      if (this.size === undefined) {
        await mkdir(path.dirname(this.file), { recursive: true });
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
        this.keep(message);
      }
    }
  }
}
