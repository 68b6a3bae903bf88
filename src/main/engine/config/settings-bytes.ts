import { danglingLinkProblem, danglingLinkTarget } from "./dangling-link.ts";
import { megabytes, readPlainFile } from "./plain-file.ts";

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

/**
 * Read a settings file, refusing what is no settings file: a link to nothing, a folder, a device
 * or a pipe (a folder cloned with `.lathe/settings.json` linked to /dev/zero would otherwise fill
 * the memory, a pipe wait forever), or a file past MAX_SETTINGS_BYTES.
 */
export function readSettingsBytes(file: string): SettingsBytes {
  const read = readPlainFile(file, MAX_SETTINGS_BYTES);
  switch (read.state) {
    case "read":
      return read;
    case "missing": {
      const target = read.error.code === "ENOENT" ? danglingLinkTarget(file) : undefined;
      if (target === undefined) return { state: "missing" };
      return { state: "problem", problem: danglingLinkProblem(file, target), cause: read.error };
    }
    case "folder":
      return {
        state: "problem",
        problem: `${file} is a folder, not a file: move it aside (Lathe reads its settings from a JSON file of that name)`,
      };
    case "special":
      return {
        state: "problem",
        problem: `${file} is not a plain file (a device, a pipe or a socket, or a link to one): replace it with a JSON file, or remove it for no settings`,
      };
    case "too-large":
      return {
        state: "problem",
        problem: `${file} is ${megabytes(read.size)}, more than a settings file may be (${megabytes(MAX_SETTINGS_BYTES)}): remove what does not belong in it`,
      };
    case "failed":
      return {
        state: "problem",
        problem:
          read.error.code === "ELOOP"
            ? `${file} is a symbolic link that leads back to itself: replace it with the file`
            : `Cannot read ${file}: ${read.error.message}: check its permissions (Lathe reads it as you)`,
        cause: read.error,
      };
  }
}
