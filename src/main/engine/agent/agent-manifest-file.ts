import { ManifestError } from "../errors/manifest-error.ts";
import { megabytes, readPlainFile } from "../config/plain-file.ts";

/** The largest agent manifest Lathe reads: a system prompt and front matter, never megabytes. */
export const MAX_AGENT_FILE_BYTES = 1024 * 1024;

/**
 * An agent manifest's bytes (`.lathe/agents/NAME.md` of a folder that may not be trusted yet, or
 * `$LATHE_HOME/agents/`). A ManifestError naming the file and the fix for what is no manifest: a
 * folder, a device or pipe (a link to /dev/zero would otherwise fill the memory while `lathe
 * trust --dry-run` reviews the folder), a file past MAX_AGENT_FILE_BYTES, one that cannot be read.
 */
export function readAgentManifestFile(file: string): Uint8Array {
  const read = readPlainFile(file, MAX_AGENT_FILE_BYTES);
  switch (read.state) {
    case "read":
      return read.bytes;
    case "folder":
      throw new ManifestError(
        `${file} is a folder, not an agent manifest: rename it, or move it out of the agents folder.`,
      );
    case "special":
      throw new ManifestError(
        `${file} is not a plain file (a device, a pipe or a socket, or a link to one): replace it with a markdown file, or remove it.`,
      );
    case "too-large":
      throw new ManifestError(
        `${file} is ${megabytes(read.size)}, more than an agent manifest may be (${megabytes(MAX_AGENT_FILE_BYTES)}): shorten it.`,
      );
    case "missing":
    case "failed":
      throw new ManifestError(
        `Cannot read ${file}: ${read.error.message}. Check the file and its permissions.`,
        {
          cause: read.error,
        },
      );
  }
}
