import { constants, type Dirent, type Stats } from "node:fs";
import {
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  stat,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import path from "node:path";
import { CapabilityDeniedError } from "../errors/capability-denied-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ResolvedPath } from "./fs-capability.ts";
import { tempNameFor } from "./temp-name.ts";
import { noteFileBeingWritten } from "../temp/files-being-written.ts";

/**
 * Open first, then verify what was opened.
 *
 * A path is authorized by name (canonicalised, checked against the tool's scope), but by the
 * time it is opened by name a folder on the way may have been swapped for a symlink that leads
 * out. So every open here is followed by a check that the handle is the authorized path, and
 * the bytes are read or written through the handle only:
 *
 * - Linux (exact): the final component is opened with O_NOFOLLOW, then `/proc/self/fd/N` names
 *   what the kernel actually opened; it must be the authorized canonical path. Folders are
 *   opened the same way and everything inside them — listing, creating missing folders one
 *   component at a time, the temporary file, the rename over the target — goes through
 *   `/proc/self/fd/N/…`, which is the opened folder itself whatever its name leads to now.
 * - Elsewhere (macOS, Windows; Node offers neither `F_GETPATH`, `openat` nor the final path of
 *   a handle): O_NOFOLLOW where the platform has it, then the handle's device and inode are
 *   compared with a fresh resolve of the path, which must have no symlinks left. A swapper
 *   that flips a folder back exactly between those two look-ups can still win there; it is a
 *   much narrower window than resolve-then-open, not none. docs/plugins.md says so.
 */

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Whether `/proc/self/fd` names open files here (checked once). */
let procFd: boolean | undefined;

/** Force the portable verification (tests of the non-Linux path); undefined: decide by platform. */
export function useProcFd(value: boolean | undefined): void {
  procFd = value;
}

async function hasProcFd(): Promise<boolean> {
  if (procFd !== undefined) return procFd;
  if (process.platform !== "linux") return (procFd = false);
  try {
    await readlink("/proc/self/fd/0");
    procFd = true;
  } catch {
    procFd = false;
  }
  return procFd;
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function changed(target: ResolvedPath, what: string): CapabilityDeniedError {
  return new CapabilityDeniedError(
    target.display,
    `${target.display} changed while it was being ${what} (a folder on the way was replaced, e.g. by a symbolic link), so nothing was ${what}. Try again once the folder stays put.`,
  );
}

/** The path the kernel says an open handle is, or undefined when it cannot say. */
async function handlePath(handle: FileHandle): Promise<string | undefined> {
  if (!(await hasProcFd())) return undefined;
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/** Whether an open handle is the file or folder at `expected` (canonical, absolute). */
async function isHandleOf(handle: FileHandle, expected: string): Promise<boolean> {
  const named = await handlePath(handle);
  if (named !== undefined) return named === expected;
  // Portable: the path, resolved again, has no symlinks and names the very inode that is open.
  const opened = await handle.stat();
  const now = await stat(expected).catch(() => undefined);
  if (!now || now.dev !== opened.dev || now.ino !== opened.ino) return false;
  return (await realpath(expected).catch(() => undefined)) === expected;
}

/** A path inside an opened folder, as the kernel resolves it on Linux: through the handle. */
async function inside(dir: FileHandle, dirPath: string, name: string): Promise<string> {
  return (await hasProcFd()) ? `/proc/self/fd/${dir.fd}/${name}` : path.join(dirPath, name);
}

/**
 * Open `openPath` without following a final symlink and check the handle is `expected` (the
 * canonical path; `openPath` differs only when it goes through a folder handle in /proc).
 */
async function openChecked(
  target: ResolvedPath,
  flags: number,
  what: string,
  expected = target.absolute,
  openPath = expected,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(openPath, flags | NOFOLLOW);
  } catch (err) {
    // The last component is a symlink now, though it was not when it was authorized: ELOOP,
    // or ENOTDIR when a folder was asked for.
    if (code(err) === "ELOOP") throw changed(target, what);
    if (code(err) === "ENOTDIR" && (flags & DIRECTORY) !== 0) {
      const now = await lstat(openPath).catch(() => undefined);
      if (now?.isSymbolicLink()) throw changed(target, what);
    }
    throw err;
  }
  if (await isHandleOf(handle, expected)) return handle;
  await handle.close();
  throw changed(target, what);
}

/** What a file was when it was read: a write over it goes ahead only while it still is. */
export type ReadIdentity = Pick<Stats, "ino" | "size" | "mtimeMs">;

/**
 * Refuse to write over a file that changed since it was read (`now` are its stats): someone
 * saved it meanwhile, and writing would throw their change away unseen.
 */
function refuseChangedSince(
  target: ResolvedPath,
  read: ReadIdentity | undefined,
  now: Stats | undefined,
): void {
  if (!read || !now) return;
  if (now.ino === read.ino && now.size === read.size && now.mtimeMs === read.mtimeMs) return;
  throw new ToolCallError(
    `${target.display} changed on disk while the call was working on it (another program saved it), so nothing was written and that change is kept. Call read on ${target.display} again to see it, then make your change again.`,
    "stale_read",
  );
}

/** Read a whole regular file, at most `maxBytes` (more is refused without reading it). */
export async function readVerifiedFile(
  target: ResolvedPath,
  maxBytes: number,
  tooLarge: (size: number) => string,
): Promise<Buffer> {
  return (await readVerifiedFileAndStats(target, maxBytes, tooLarge)).bytes;
}

/** readVerifiedFile, with the stats of the very file that was read (from its handle). */
export async function readVerifiedFileAndStats(
  target: ResolvedPath,
  maxBytes: number,
  tooLarge: (size: number) => string,
): Promise<{ bytes: Buffer; stats: Stats }> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in must not hang the open; it is refused below.
    handle = await openChecked(target, constants.O_RDONLY | NONBLOCK, "read");
  } catch (err) {
    if (code(err) === "ENOENT" || code(err) === "ENOTDIR")
      throw new ToolCallError(`File not found: ${target.display}. Check the path.`);
    if (code(err) === "EISDIR") throw notAFile(target, true);
    throw err;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notAFile(target, stats.isDirectory());
    if (stats.size > maxBytes) throw new ToolCallError(tooLarge(stats.size));
    return { bytes: await handle.readFile(), stats };
  } finally {
    await handle.close();
  }
}

function notAFile(target: ResolvedPath, isDirectory: boolean): ToolCallError {
  return new ToolCallError(
    isDirectory
      ? `${target.display} is a folder, not a file; list it instead.`
      : `${target.display} is not a regular file; it cannot be read.`,
  );
}

async function openDir(target: ResolvedPath, absolute: string, what: string): Promise<FileHandle> {
  return openChecked(target, constants.O_RDONLY | DIRECTORY, what, absolute);
}

/** The entries of a folder, read through the verified handle. */
export async function listVerifiedDir(target: ResolvedPath): Promise<Dirent[]> {
  let dir: FileHandle;
  try {
    dir = await openDir(target, target.absolute, "listed");
  } catch (err) {
    if (code(err) === "ENOENT") throw new ToolCallError(`Folder not found: ${target.display}.`);
    if (code(err) === "ENOTDIR")
      throw new ToolCallError(`${target.display} is a file, not a folder; read it instead.`);
    throw err;
  }
  try {
    if (await hasProcFd()) return await readdir(`/proc/self/fd/${dir.fd}`, { withFileTypes: true });
    const entries = await readdir(target.absolute, { withFileTypes: true });
    if (!(await isHandleOf(dir, target.absolute))) throw changed(target, "listed");
    return entries;
  } finally {
    await dir.close();
  }
}

/**
 * Open the folder `absolute` (canonical), creating what is missing one component at a time
 * inside the deepest folder that exists, each new component opened with O_NOFOLLOW through the
 * handle of its parent (on Linux), so no symlink swapped in can lead the creation elsewhere.
 */
async function openOrCreateDir(target: ResolvedPath, absolute: string): Promise<FileHandle> {
  const missing: string[] = [];
  let existing = absolute;
  let handle: FileHandle | undefined;
  for (;;) {
    try {
      handle = await openDir(target, existing, "written");
      break;
    } catch (err) {
      if (code(err) === "ENOTDIR")
        throw new ToolCallError(
          `${target.display} cannot be written: a part of its folder path is an existing file, not a folder. Choose another path.`,
        );
      if (code(err) !== "ENOENT" || existing === path.dirname(existing)) throw err;
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
  if (missing.length > 0 && !(await hasProcFd())) {
    // Portable: create by name, then open and verify the result like any other folder.
    await handle.close();
    await mkdir(absolute, { recursive: true });
    return openDir(target, absolute, "written");
  }
  let current = existing;
  for (const name of missing) {
    const child = await inside(handle, current, name);
    try {
      await mkdir(child);
    } catch (err) {
      if (code(err) !== "EEXIST") {
        await handle.close();
        throw err;
      }
    }
    const parent = handle;
    current = path.join(current, name);
    try {
      handle = await openChecked(target, constants.O_RDONLY | DIRECTORY, "written", current, child);
    } catch (err) {
      if (code(err) === "ENOTDIR") throw changed(target, "written");
      throw err;
    } finally {
      await parent.close();
    }
  }
  return handle;
}

/**
 * Replace (or create) a file atomically: the folder is opened and verified first; the temporary
 * file is created inside that folder (O_EXCL, O_NOFOLLOW), flushed, given the old file's mode,
 * and renamed over the target within the same folder — all through the verified handle on
 * Linux. A reader never sees half a file, and no byte lands outside the authorized folder.
 */
export async function writeVerifiedFile(
  target: ResolvedPath,
  content: Uint8Array,
  unchangedSince?: ReadIdentity,
): Promise<void> {
  const dirPath = path.dirname(target.absolute);
  const name = path.basename(target.absolute);
  const dir = await openOrCreateDir(target, dirPath);
  try {
    const finalPath = await inside(dir, dirPath, name);
    let existing: Stats | undefined;
    try {
      existing = await lstat(finalPath);
    } catch (err) {
      if (code(err) !== "ENOENT") throw err;
    }
    if (existing?.isDirectory()) throw new ToolCallError(`${target.display} is a folder; give a file path.`);
    // The authorized path was canonical, so a symlink there now was swapped in meanwhile.
    if (existing?.isSymbolicLink()) throw changed(target, "written");
    refuseChangedSince(target, unchangedSince, existing);
    const tempName = tempNameFor(name, "lathe");
    const tempPath = await inside(dir, dirPath, tempName);
    const mode = existing ? existing.mode & 0o7777 : 0o666;
    let temp: FileHandle;
    // Noted before it exists: a process ending while it is made removes it too.
    const written = noteFileBeingWritten(tempPath);
    try {
      temp = await open(tempPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
    } catch (err) {
      written();
      // ENOENT: the folder that was opened has been removed (replaced) since.
      if (code(err) === "ENOENT") throw changed(target, "written");
      throw err;
    }
    try {
      if (!(await hasProcFd()) && !(await isHandleOf(dir, dirPath))) throw changed(target, "written");
      await temp.writeFile(content);
      if (existing) {
        // The new file is the old one to its owner: same owner and group (chown first, as it
        // clears the set-user-ID and set-group-ID bits the chmod then puts back).
        const made = await temp.stat();
        if (made.uid !== existing.uid || made.gid !== existing.gid)
          await temp.chown(existing.uid, existing.gid);
        await temp.chmod(mode);
      }
      await temp.sync();
      await temp.close();
      // Once more as late as can be: writing and flushing the new content took a while.
      if (unchangedSince)
        refuseChangedSince(target, unchangedSince, await lstat(finalPath).catch(() => undefined));
      await rename(tempPath, finalPath);
    } catch (err) {
      await temp.close().catch(() => undefined);
      await unlink(tempPath).catch(() => undefined);
      throw err;
    } finally {
      written();
    }
    if (!(await hasProcFd()) && !(await isHandleOf(dir, dirPath))) throw changed(target, "written");
  } finally {
    await dir.close();
  }
}

/** Write all of `bytes` at the start of the file, then cut it to their length. */
async function overwrite(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.byteLength;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.byteLength - done, done);
    done += bytesWritten;
  }
  await handle.truncate(bytes.byteLength);
}

/**
 * Rewrite an existing regular file in place, through a handle verified to be the authorized
 * path: it stays the same file (its other hard-linked names, owner, group, mode, ACLs all
 * kept). Not atomic: should writing fail midway (a full disk), the old bytes are written back
 * before the error is rethrown, so the file is left as it was whenever that can be done.
 */
export async function writeVerifiedFileInPlace(
  target: ResolvedPath,
  content: Uint8Array,
  unchangedSince?: ReadIdentity,
): Promise<void> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in must not hang the open; it is refused below.
    handle = await openChecked(target, constants.O_RDWR | NONBLOCK, "written");
  } catch (err) {
    if (code(err) === "EISDIR") throw new ToolCallError(`${target.display} is a folder; give a file path.`);
    throw err;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notAFile(target, stats.isDirectory());
    refuseChangedSince(target, unchangedSince, stats);
    await rewriteOpenFile(handle, content, target.display);
  } finally {
    await handle.close();
  }
}

/**
 * Rewrite the file open (read and write) at `handle` with `content`, flushed. Should writing
 * fail midway (a full disk), its old bytes are written back before the error is rethrown.
 */
export async function rewriteOpenFile(
  handle: FileHandle,
  content: Uint8Array,
  display: string,
): Promise<void> {
  const old = await handle.readFile();
  try {
    await overwrite(handle, content);
    await handle.sync();
  } catch (err) {
    await overwrite(handle, old).catch((restoreErr: unknown) => {
      throw new AggregateError(
        [err, restoreErr],
        `${display}: writing it failed midway and its old content could not be written back`,
      );
    });
    throw err;
  }
}
