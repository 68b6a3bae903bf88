// The gitlinks of a git index: the paths git records as another repository's commit (a submodule,
// or a repository added inside another without `.gitmodules`). `git status` runs `git status` in
// each one checked out, so whoever judges what git status runs must know them. Read from the
// index file itself (formats 2, 3 and 4, SHA-1 or SHA-256 object names) rather than by running
// git in a repository that may name programs for git to run.
import { readFileSync } from "node:fs";
import path from "node:path";
import { BadBitmap, ewahSetBits } from "./ewah-bitmap.ts";

const GITLINK_MODE = 0o160000;
/** Bytes before an entry's object name: ctime, mtime, dev, ino, mode, uid, gid, size. */
const STAT_BYTES = 40;

/** Why an index could not be read: whoever asked cannot know its gitlinks. */
export class UnreadableIndex extends Error {}

/** One entry of an index: its path's bytes and its mode. */
interface IndexEntry {
  path: Buffer;
  mode: number;
}

/** The entries of an index file and its split-index link, if it has one. */
interface ParsedIndex {
  entries: IndexEntry[];
  link: { sharedIndex: string; deleted: number[]; replaced: number[] } | undefined;
}

/**
 * The gitlink paths of the index at `file` (relative to the work tree, `/`-separated); empty when
 * there is no index. `hashBytes` is 20 (SHA-1) or 32 (SHA-256: `extensions.objectFormat`). A split
 * index (`core.splitIndex`) is read with the shared index it names, as git merges them.
 * Throws UnreadableIndex for a file that is not an index Lathe can read.
 */
export function indexGitlinks(file: string, hashBytes: 20 | 32): string[] {
  const bytes = readIndexFile(file, true);
  if (bytes === undefined) return [];
  const index = parseIndex(bytes, file, hashBytes);
  let entries = index.entries;
  if (index.link !== undefined) entries = mergeSplit(file, index, hashBytes);
  return entries
    .filter((entry) => (entry.mode & 0o170000) === GITLINK_MODE)
    .map((entry) => entry.path.toString("utf8"));
}

function readIndexFile(file: string, missingIsEmpty: boolean): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (err) {
    if (missingIsEmpty && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UnreadableIndex(`${file} cannot be read: ${(err as Error).message}`);
  }
}

/**
 * The entries of a split index put together with its shared index: the shared entries not marked
 * deleted, those marked replaced taking the mode of the split index's first (nameless) entries in
 * order, then the split index's own named entries.
 */
function mergeSplit(file: string, split: ParsedIndex, hashBytes: 20 | 32): IndexEntry[] {
  const link = split.link as NonNullable<ParsedIndex["link"]>;
  const sharedFile = path.join(path.dirname(file), `sharedindex.${link.sharedIndex}`);
  const shared = parseIndex(readIndexFile(sharedFile, false) as Buffer, sharedFile, hashBytes);
  const fail = (why: string): never => {
    throw new UnreadableIndex(`${file} is a split index Lathe cannot read (${why})`);
  };
  if (shared.link !== undefined) fail("its shared index is split too");
  const base = shared.entries.map((entry) => ({ ...entry }));
  if (link.replaced.length > split.entries.length) fail("more replacements than entries");
  link.replaced.forEach((position, i) => {
    const target = base[position];
    const source = split.entries[i] as IndexEntry;
    if (target === undefined) fail(`replacement ${position} is past the shared index's end`);
    if (source.path.length !== 0) fail("a replacement entry has a name");
    (target as IndexEntry).mode = source.mode;
  });
  const deleted = new Set(link.deleted);
  for (const position of deleted) if (position >= base.length) fail(`deletion ${position} is past the end`);
  return [
    ...base.filter((_entry, position) => !deleted.has(position)),
    ...split.entries.slice(link.replaced.length),
  ];
}

function parseIndex(bytes: Buffer, file: string, hashBytes: 20 | 32): ParsedIndex {
  const fail = (why: string): never => {
    throw new UnreadableIndex(`${file} is not a git index Lathe can read (${why})`);
  };
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") fail("no DIRC signature");
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) fail(`version ${version}`);
  const count = bytes.readUInt32BE(8);
  const entries: IndexEntry[] = [];
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
    entries.push({ path: entryPath, mode });
  }
  // Extensions follow the entries, each a 4-byte signature and a 32-bit size; the file ends
  // with the checksum of what came before it.
  let link: ParsedIndex["link"];
  const extensionsEnd = bytes.length - hashBytes;
  while (at + 8 <= extensionsEnd) {
    const signature = bytes.toString("latin1", at, at + 4);
    const size = bytes.readUInt32BE(at + 4);
    const data = at + 8;
    if (data + size > extensionsEnd) fail(`extension ${JSON.stringify(signature)} runs past the end`);
    if (signature === "link") link = readLink(bytes.subarray(data, data + size), hashBytes, fail);
    at = data + size;
  }
  return { entries, link };
}

/** The link extension: the shared index's object name, then the deleted and replaced bitmaps. */
function readLink(data: Buffer, hashBytes: number, fail: (why: string) => never): ParsedIndex["link"] {
  if (data.length < hashBytes) fail("a link extension shorter than an object name");
  const name = data.subarray(0, hashBytes);
  // An all-zero name says the index is not split after all.
  if (name.every((byte) => byte === 0)) return undefined;
  let deleted: number[] = [];
  let replaced: number[] = [];
  if (data.length > hashBytes) {
    try {
      const first = ewahSetBits(data, hashBytes);
      deleted = first.bits;
      replaced = ewahSetBits(data, first.end).bits;
    } catch (err) {
      if (err instanceof BadBitmap) fail(`link extension: ${err.message}`);
      throw err;
    }
  }
  return { sharedIndex: name.toString("hex"), deleted, replaced };
}
