import { createHash, randomBytes } from "node:crypto";
import { linkSync, lstatSync } from "node:fs";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Db, writeTransaction } from "../store/database.ts";
import type { FileIdentity } from "./file-checkpoint.ts";

/** A SHA-256 digest in lowercase hex: the name of a blob. */
export type BlobHash = string;

const HASH = /^[0-9a-f]{64}$/;

export function sha256Of(bytes: Uint8Array): BlobHash {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * File contents checkpoints refer to, stored once each under `<dir>/<2 hex>/<62 hex>` and named
 * by their SHA-256, so writing the same content again stores nothing new. Blobs are raw (no
 * compression: zstd costs about 3 ms per MB of source text, more than a write may add), in a
 * folder only the user may enter. A file a tool replaces by a rename is kept as a hard link to
 * it rather than a copy, so keeping it costs no data written. SQLite keeps the list (`checkpoint_blobs`) with each blob's last
 * use; garbage collection removes blobs no checkpoint or workspace index refers to.
 */
export class BlobStore {
  readonly dir: string;
  private readonly db: Db;
  /** A collection removing files: a put waits for it, so it never writes a file about to be unlinked. */
  private collecting: Promise<unknown> | undefined;
  /** Blobs `intact` found whole, with the identity of the file it read (inode, size, time). */
  private readonly checked = new Map<BlobHash, string>();
  /** The fan-out folders known to exist, so a put does not ask again. */
  private readonly folders = new Set<string>();

  constructor(dir: string, db: Db) {
    this.dir = dir;
    this.db = db;
  }

  private file(hash: BlobHash): string {
    if (!HASH.test(hash)) throw new TypeError(`not a blob hash: ${hash}`);
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Whether the blob is stored (its row exists; the file is written before the row). */
  has(hash: BlobHash): boolean {
    return this.db.prepare("SELECT 1 FROM checkpoint_blobs WHERE hash = ?").get(hash) !== undefined;
  }

  /**
   * Whether the blob is stored and its file still holds the bytes its name says: not removed or
   * cut short since (by hand, a full disk, a cleaner). A restore checks this before it changes
   * anything, so a lost content is found before the other files are put back, not halfway.
   */
  async intact(hash: BlobHash): Promise<boolean> {
    if (!this.has(hash)) return false;
    // A restore plans twice (before and while holding its files): a blob whose file is the one
    // already checked (same inode, size and time) is not read and hashed again.
    const stats = lstatSync(this.file(hash), { throwIfNoEntry: false });
    if (!stats?.isFile()) return false;
    const identity = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    if (this.checked.get(hash) === identity) return true;
    const ok = (await this.read(hash)) !== undefined;
    if (ok) this.checked.set(hash, identity);
    return ok;
  }

  /**
   * Keep `bytes` (whose SHA-256 the caller may already know) and return its hash. Content already
   * stored is only marked as used now; new content is written to a temporary file and renamed
   * into place, so a blob file is always complete.
   */
  async put(bytes: Uint8Array, knownHash?: BlobHash): Promise<BlobHash> {
    while (this.collecting) await this.collecting.catch(() => undefined);
    const hash = knownHash ?? sha256Of(bytes);
    if (this.touch(hash)) return hash;
    const file = this.file(hash);
    const folder = path.dirname(file);
    await this.ensureFolder(folder);
    // Two file operations per new blob (a write can afford little more): write a temporary file
    // (created exclusively, private), then rename it into place.
    try {
      await this.writeBlob(file, bytes);
    } catch (err) {
      // The folder may have been removed behind our back (`rm -r` of the store): make it again,
      // once, rather than fail the call whose content is being kept.
      this.folders.delete(folder);
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      await this.ensureFolder(folder);
      await this.writeBlob(file, bytes);
    }
    this.insert(hash, bytes.byteLength);
    return hash;
  }

  /** Write a blob's file: a temporary file (created exclusively, private), renamed into place. */
  private async writeBlob(file: string, bytes: Uint8Array): Promise<void> {
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temp, bytes, { flag: "wx", mode: 0o600 });
      await rename(temp, file);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Mark a stored blob as used now; false when it is not stored, or when its file is gone or no
   * longer of its size (removed by hand, cut short): it is then written again, so content kept
   * from now on is really kept rather than left referring to a file that is not there.
   */
  private touch(hash: BlobHash): boolean {
    const row = this.db.prepare("SELECT size FROM checkpoint_blobs WHERE hash = ?").get(hash) as
      { size: number } | undefined;
    if (row === undefined) return false;
    if (lstatSync(this.file(hash), { throwIfNoEntry: false })?.size !== row.size) return false;
    this.db.prepare("UPDATE checkpoint_blobs SET last_used_at = ? WHERE hash = ?").run(Date.now(), hash);
    return true;
  }

  private insert(hash: BlobHash, size: number): void {
    this.db
      .prepare(
        `INSERT INTO checkpoint_blobs (hash, size, last_used_at) VALUES (?, ?, ?)
         ON CONFLICT (hash) DO UPDATE SET last_used_at = excluded.last_used_at`,
      )
      .run(hash, size, Date.now());
  }

  private async ensureFolder(folder: string): Promise<void> {
    if (this.folders.has(folder)) return;
    await mkdir(folder, { recursive: true, mode: 0o700 });
    this.folders.add(folder);
  }

  /**
   * Keep the content of the file at `absolute`, about to be replaced by a rename (so its inode
   * stays as it is), without copying it: the file is hard-linked into the store. When it cannot
   * be (another filesystem, a file with other names, or the path no longer names the file that
   * was read), `bytes` are stored as by `put`.
   */
  async keepFile(absolute: string, bytes: Uint8Array, hash: BlobHash, read: FileIdentity): Promise<BlobHash> {
    while (this.collecting) await this.collecting.catch(() => undefined);
    if (this.touch(hash)) return hash;
    if (read.nlink !== 1) return this.put(bytes, hash);
    const file = this.file(hash);
    await this.ensureFolder(path.dirname(file));
    // Two metadata system calls, made synchronously: no data moves, and a trip through the
    // thread pool would cost more than the calls themselves.
    try {
      linkSync(absolute, file);
    } catch {
      // EXDEV (LATHE_HOME on another filesystem), EPERM, EEXIST (a stray file): copy instead.
      return this.put(bytes, hash);
    }
    const linked = lstatSync(file, { throwIfNoEntry: false });
    if (
      !linked?.isFile() ||
      linked.ino !== read.ino ||
      linked.size !== read.size ||
      linked.mtimeMs !== read.mtimeMs
    ) {
      await unlink(file).catch(() => undefined);
      return this.put(bytes, hash);
    }
    this.insert(hash, bytes.byteLength);
    return hash;
  }

  /**
   * Make a blob its own copy if its file has other names (kept by `keepFile` from a file that was
   * then not replaced after all), so that changing the file cannot change the blob.
   */
  async detach(hash: BlobHash): Promise<void> {
    const file = this.file(hash);
    if ((lstatSync(file, { throwIfNoEntry: false })?.nlink ?? 1) <= 1) return;
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temp, await readFile(file), { flag: "wx", mode: 0o600 });
      await rename(temp, file);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The stored content, or undefined when it is missing or damaged (its bytes no longer hash to
   * its name): a restore then says the content is unavailable rather than writing wrong bytes.
   */
  async read(hash: BlobHash): Promise<Buffer | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.file(hash));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    return sha256Of(bytes) === hash ? bytes : undefined;
  }

  /** Bytes stored, by the blob list. */
  storedBytes(): number {
    const row = this.db.prepare("SELECT COALESCE(SUM(size), 0) AS n FROM checkpoint_blobs").get() as {
      n: number;
    };
    return row.n;
  }

  /**
   * Remove every blob no checkpoint entry and no workspace index row refers to, unless it was
   * used within the last `graceMs` (a call may be about to record a checkpoint that refers to
   * it). Returns how many blobs were removed.
   */
  async collectGarbage(graceMs: number): Promise<number> {
    while (this.collecting) await this.collecting.catch(() => undefined);
    const running = this.collect(graceMs);
    this.collecting = running;
    try {
      return await running;
    } finally {
      this.collecting = undefined;
    }
  }

  private async collect(graceMs: number): Promise<number> {
    const cutoff = Date.now() - graceMs;
    const doomed = writeTransaction(this.db, () => {
      const rows = this.db
        .prepare(
          `SELECT hash FROM checkpoint_blobs b
           WHERE b.last_used_at <= ?
             AND NOT EXISTS (SELECT 1 FROM checkpoint_entries e WHERE e.before_hash = b.hash)
             AND NOT EXISTS (SELECT 1 FROM checkpoint_index i WHERE i.hash = b.hash)`,
        )
        .all(cutoff) as Array<{ hash: string }>;
      const remove = this.db.prepare("DELETE FROM checkpoint_blobs WHERE hash = ?");
      for (const row of rows) remove.run(row.hash);
      return rows.map((r) => r.hash);
    })();
    for (const hash of doomed) {
      try {
        await unlink(this.file(hash));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    return doomed.length;
  }
}
