// The gitlinks of a git index: the paths git records as another repository's commit (a submodule,
// or a repository added inside another without `.gitmodules`). `git status` runs `git status` in
// each one checked out, so whoever judges what git status runs must know them. Read from the
// index file itself (formats 2, 3 and 4, SHA-1 or SHA-256 object names) rather than by running
// git in a repository that may name programs for git to run.
import { readFileSync } from "node:fs";

const GITLINK_MODE = 0o160000;
/** Bytes before an entry's object name: ctime, mtime, dev, ino, mode, uid, gid, size. */
const STAT_BYTES = 40;

/** Why an index could not be read: whoever asked cannot know its gitlinks. */
export class UnreadableIndex extends Error {}

/**
 * The gitlink paths of the index at `file` (relative to the work tree, `/`-separated); empty when
 * there is no index. `hashBytes` is 20 (SHA-1) or 32 (SHA-256: `extensions.objectFormat`).
 * Throws UnreadableIndex for a file that is not an index Lathe can read.
 */
export function indexGitlinks(file: string, hashBytes: 20 | 32): string[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new UnreadableIndex(`${file} cannot be read: ${(err as Error).message}`);
  }
  const fail = (why: string): never => {
    throw new UnreadableIndex(`${file} is not a git index Lathe can read (${why})`);
  };
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") fail("no DIRC signature");
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) fail(`version ${version}`);
  const count = bytes.readUInt32BE(8);
  const out: string[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const fixed = STAT_BYTES + hashBytes + 2;
    if (at + fixed > bytes.length) fail("an entry runs past the end");
    const mode = bytes.readUInt32BE(at + 24);
    const flags = bytes.readUInt16BE(at + STAT_BYTES + hashBytes);
    let name = at + fixed;
    // Version 3 and 4 entries with the extended bit carry two more flag bytes.
    if (version >= 3 && (flags & 0x4000) !== 0) name += 2;
    let entryPath: Buffer;
    if (version === 4) {
      // The path is the previous one with some bytes dropped from its end and a suffix added.
      let drop = 0;
      let byte: number;
      let first = true;
      do {
        if (name >= bytes.length) fail("a path runs past the end");
        byte = bytes[name++] as number;
        drop = first ? byte & 0x7f : ((drop + 1) << 7) | (byte & 0x7f);
        first = false;
      } while ((byte & 0x80) !== 0);
      if (drop > previous.length) fail("a path drops more than the previous one has");
      const end = bytes.indexOf(0, name);
      if (end === -1) fail("a path has no end");
      entryPath = Buffer.concat([previous.subarray(0, previous.length - drop), bytes.subarray(name, end)]);
      at = end + 1;
    } else {
      const end = bytes.indexOf(0, name);
      if (end === -1) fail("a path has no end");
      entryPath = bytes.subarray(name, end);
      // Entries are padded with NULs to a multiple of eight bytes (at least one NUL).
      at += Math.floor((end - at + 8) / 8) * 8;
    }
    previous = entryPath;
    if ((mode & 0o170000) === GITLINK_MODE) out.push(entryPath.toString("utf8"));
  }
  return out;
}
