import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/**
 * A small file Lathe reads from a folder it may not trust (settings, agent manifests): `read`
 * with its bytes; `missing` (ENOENT, or ENOTDIR: a folder on the way is a plain file); `folder`;
 * `special`, a device, pipe or socket (or a link to one); `too-large`, past the caller's limit;
 * `failed`, with the error (a looping link, permissions).
 */
export type PlainFile =
  | { state: "read"; bytes: Uint8Array }
  | { state: "missing"; error: NodeJS.ErrnoException }
  | { state: "folder" }
  | { state: "special" }
  | { state: "too-large"; size: number }
  | { state: "failed"; error: NodeJS.ErrnoException };

/**
 * Read `file` only if it is a plain file of at most `maxBytes`. Opened without waiting and
 * checked (fstat) on what was opened before a byte is read: a file linked to /dev/zero would
 * otherwise fill the memory, and a named pipe wait forever for a writer.
 */
export function readPlainFile(file: string, maxBytes: number): PlainFile {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const error = err as NodeJS.ErrnoException;
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return { state: "missing", error };
    return { state: "failed", error };
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) return { state: "folder" };
    if (!info.isFile()) return { state: "special" };
    if (info.size > maxBytes) return { state: "too-large", size: info.size };
    const bytes = new Uint8Array(info.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, null);
      if (n === 0) break;
      read += n;
    }
    return { state: "read", bytes: bytes.subarray(0, read) };
  } catch (err) {
    return { state: "failed", error: err as NodeJS.ErrnoException };
  } finally {
    closeSync(fd);
  }
}

/** A size as a person reads it: "50.0 MB". */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
