import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { danglingLinkProblem, danglingLinkTarget } from "./dangling-link.ts";

/** The largest settings file Lathe reads: far past any real one (a few KB), short of a memory problem. */
export const MAX_SETTINGS_BYTES = 8 * 1024 * 1024;

/**
 * A settings file's bytes; `missing` when there is none (no file, or a folder on the way is a
 * plain file, as another tool's `.lathe` dotfile); else `problem`: one sentence naming the file,
 * what is wrong and the fix, without a final period.
 */
export type SettingsBytes =
  | { state: "read"; bytes: Uint8Array }
  | { state: "missing" }
  | { state: "problem"; problem: string; cause?: unknown };

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Read a settings file, refusing what is no settings file: a link to nothing, a folder, a device
 * or a pipe (a folder cloned with `.lathe/settings.json` linked to /dev/zero would otherwise fill
 * the memory, a pipe wait forever: opened without waiting, and checked before reading), or a
 * file past MAX_SETTINGS_BYTES.
 */
export function readSettingsBytes(file: string): SettingsBytes {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      const target = danglingLinkTarget(file);
      if (target === undefined) return { state: "missing" };
      return { state: "problem", problem: danglingLinkProblem(file, target), cause: err };
    }
    if (code === "ENOTDIR") return { state: "missing" };
    if (code === "ELOOP")
      return {
        state: "problem",
        problem: `${file} is a symbolic link that leads back to itself: replace it with the file`,
        cause: err,
      };
    return {
      state: "problem",
      problem: `Cannot read ${file}: ${(err as Error).message}: check its permissions (Lathe reads it as you)`,
      cause: err,
    };
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory())
      return {
        state: "problem",
        problem: `${file} is a folder, not a file: move it aside (Lathe reads its settings from a JSON file of that name)`,
      };
    if (!info.isFile())
      return {
        state: "problem",
        problem: `${file} is not a plain file (a device, a pipe or a socket, or a link to one): replace it with a JSON file, or remove it for no settings`,
      };
    if (info.size > MAX_SETTINGS_BYTES)
      return {
        state: "problem",
        problem: `${file} is ${megabytes(info.size)}, more than a settings file may be (${megabytes(MAX_SETTINGS_BYTES)}): remove what does not belong in it`,
      };
    const bytes = new Uint8Array(info.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, null);
      if (n === 0) break;
      read += n;
    }
    return { state: "read", bytes: bytes.subarray(0, read) };
  } catch (err) {
    return {
      state: "problem",
      problem: `Cannot read ${file}: ${(err as Error).message}: check the file`,
      cause: err,
    };
  } finally {
    closeSync(fd);
  }
}
