import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import path from "node:path";

interface RotatingLogFileOptions {
  /**
   * The current log file, e.g. `<logs>/lathe.log`, in a folder that holds logs only: the folder
   * is created, and made private (0700).
   */
  file: string;
  /** Start a new file before one grows past this many bytes (default 5 MiB). */
  maxBytes?: number;
  /** How many older files to keep: `lathe.1.log` (newest) … `lathe.<keep>.log` (default 3). */
  keep?: number;
}

const DEFAULT_LOG_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_LOG_KEEP = 3;

/**
 * An append-only log file capped in size: when a write would take it past `maxBytes`, the file
 * becomes `<name>.1<ext>`, older ones move up a number, the oldest past `keep` is dropped, and a new
 * file starts. Writes are synchronous (lines are short and rare, or batched by the caller, and
 * nothing is lost when the process exits right after). Files are private (0600, in a 0700
 * folder), those an older Lathe made readable to others included. Errors (a full disk, a folder
 * that cannot be created) are thrown to the caller. The app's own log and every plugin's log use it.
 */
export class RotatingLogFile {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private fd: number | undefined;
  private size = 0;

  constructor(options: RotatingLogFileOptions) {
    const maxBytes = options.maxBytes ?? DEFAULT_LOG_MAX_BYTES;
    const keep = options.keep ?? DEFAULT_LOG_KEEP;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) {
      throw new RangeError(`maxBytes must be a positive whole number of bytes, not ${maxBytes}.`);
    }
    if (!Number.isInteger(keep) || keep < 1) {
      throw new RangeError(`keep must be at least 1 older file, not ${keep}.`);
    }
    this.file = path.resolve(options.file);
    this.maxBytes = maxBytes;
    this.keep = keep;
    // Logs hold what plugins, servers and the agent printed (paths, output, sometimes secrets
    // a command echoed): readable by their owner only, like sessions and settings.
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    // A folder and older files an earlier Lathe made readable by others become private too.
    if (process.platform !== "win32") {
      narrowMode(path.dirname(this.file), 0o700);
      for (let n = 1; n <= this.keep; n++) narrowMode(this.rotatedFile(n), 0o600);
    }
    this.open();
  }

  /** The file that holds the `n`th older log (1 = the newest of them). */
  rotatedFile(n: number): string {
    const ext = path.extname(this.file);
    return `${this.file.slice(0, this.file.length - ext.length)}.${n}${ext}`;
  }

  write(text: string): void {
    if (this.fd === undefined) throw new Error(`The log file ${this.file} is closed.`);
    const bytes = Buffer.from(text, "utf8");
    if (this.size > 0 && this.size + bytes.length > this.maxBytes) this.rotate();
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    this.size += bytes.length;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): void {
    this.fd = openSync(this.file, "a", 0o600);
    const stats = fstatSync(this.fd);
    // The mode above applies to a new file only: one an older Lathe created keeps its own.
    if (process.platform !== "win32" && (stats.mode & 0o077) !== 0) fchmodSync(this.fd, 0o600);
    this.size = stats.size;
  }

  private rotate(): void {
    this.close();
    rmSync(this.rotatedFile(this.keep), { force: true });
    for (let n = this.keep - 1; n >= 1; n--) {
      try {
        renameSync(this.rotatedFile(n), this.rotatedFile(n + 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    renameSync(this.file, this.rotatedFile(1));
    this.open();
  }
}

/** Take group and other access away from a file or folder that has any (a missing one is skipped). */
function narrowMode(file: string, mode: number): void {
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats !== undefined && (stats.mode & 0o077) !== 0) chmodSync(file, mode);
}
