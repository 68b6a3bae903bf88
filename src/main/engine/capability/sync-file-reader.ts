import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import type { FileIdentity } from "../sandbox/hidden-inode-index.ts";

const INITIAL_BYTES = 64 * 1024;
/** Past this the scratch buffer is not kept between files, so one huge file does not pin memory. */
const KEEP_BYTES = 8 * 1024 * 1024;

/** Errors that mean the file is no longer there to read as a file (removed, replaced, locked away). */
function isGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (
    code === "ENOENT" ||
    code === "EACCES" ||
    code === "EPERM" ||
    code === "ENOTDIR" ||
    code === "EISDIR" ||
    code === "EAGAIN" ||
    code === "ELOOP"
  );
}

/** Whether `/proc/self/fd` names open files here: undefined until the first open tells. */
let procFd: boolean | undefined = process.platform === "linux" ? undefined : false;

/**
 * Whether the open descriptor `fd` is the file at `absolute` (canonical): on Linux what
 * `/proc/self/fd` names; elsewhere the same device and inode as the path resolved again, which
 * must have no symlink left on it (the narrower check verified-file.ts describes).
 */
function isOpenAt(fd: number, absolute: string): boolean {
  if (procFd !== false) {
    try {
      const named = readlinkSync(`/proc/self/fd/${fd}`);
      procFd = true;
      return named === absolute;
    } catch (err) {
      if (procFd === true) throw err;
      procFd = false;
    }
  }
  const opened = fstatSync(fd);
  const now = statSync(absolute, { throwIfNoEntry: false });
  if (!now || now.dev !== opened.dev || now.ino !== opened.ino) return false;
  return realpathSync.native(absolute) === absolute;
}

/**
 * Reads whole files synchronously into one reused buffer: an open, usually one read, and a
 * close per file, with no stat and no allocation, which is what a search over tens of thousands
 * of files needs. Hand it only paths the capability surface produced (a walk entry, a resolved
 * path). Not safe to share between concurrent users; each search makes its own.
 *
 * A path was checked when the walk found it, and is read a moment later: a folder on the way
 * swapped for a symlink meanwhile (into `~/.ssh`, say) must not turn the read into one of a file
 * the walk never saw. So the file is opened without following a final symlink, and what was
 * opened must be the canonical path the walk checked; anything else reads as gone.
 *
 * A file with several names (hard links) may be a hidden file under a name in the workspace,
 * which only its identity tells (HiddenPathSet.linkedHidden, on the thread that owns the set):
 * such a file is not read but handed to `onLinked` with its identity, unless it is the identity
 * the caller `cleared`. One `fstat` per file finds them.
 */
export class SyncFileReader {
  private scratch = Buffer.allocUnsafe(INITIAL_BYTES);

  private readonly onLinked: (absolute: string, id: FileIdentity) => void;

  constructor(onLinked: (absolute: string, id: FileIdentity) => void) {
    this.onLinked = onLinked;
  }

  /**
   * The bytes of a file, as a view that is valid until the next call; undefined when the file
   * vanished or may not be opened meanwhile, or has several names and was not `cleared`.
   */
  read(absolute: string, cleared?: FileIdentity): Buffer | undefined {
    let fd: number;
    try {
      // O_NONBLOCK: a file swapped for a FIFO after the walk saw it cannot hang the search.
      // O_NOFOLLOW: the canonical path ends in no symlink, so one there now was swapped in.
      fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    }
    try {
      if (!isOpenAt(fd, absolute)) return undefined;
      const stats = fstatSync(fd);
      if (stats.nlink > 1 && (cleared?.dev !== stats.dev || cleared.ino !== stats.ino)) {
        this.onLinked(absolute, { dev: stats.dev, ino: stats.ino });
        return undefined;
      }
      return this.readOpen(fd);
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    } finally {
      closeSync(fd);
    }
  }

  private readOpen(fd: number): Buffer {
    let buffer = this.scratch;
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, length);
      length += n;
      // A short read of a regular file means its end; a full buffer may have more behind it.
      if (n === 0 || length < buffer.length) break;
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    if (buffer.length <= KEEP_BYTES) this.scratch = buffer;
    return buffer.subarray(0, length);
  }
}
