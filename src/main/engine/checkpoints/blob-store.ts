import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../store/database.ts";

/** A SHA-256 digest in lowercase hex: the name of a blob. */
export type BlobHash = string;

const HASH = /^[0-9a-f]{64}$/;

export function sha256Of(bytes: Uint8Array): BlobHash {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * File contents checkpoints refer to, stored once each under `<dir>/<2 hex>/<62 hex>` and named
 * by their SHA-256, so writing the same content again stores nothing new. Blobs are raw (no
 * compression: zstd costs about 3 ms per MB of source text, more than a write may add) and
 * private to the user (0600). SQLite keeps the list (`checkpoint_blobs`) with each blob's last
 * use; garbage collection removes blobs no checkpoint or workspace index refers to.
 */
export class BlobStore {
  readonly dir: string;
  private readonly db: Db;
  /** A collection removing files: a put waits for it, so it never writes a file about to be unlinked. */
  private collecting: Promise<unknown> | undefined;

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
   * Keep `bytes` (whose SHA-256 the caller may already know) and return its hash. Content already
   * stored is only marked as used now; new content is written to a temporary file and renamed
   * into place, so a blob file is always complete.
   */
  async put(bytes: Uint8Array, knownHash?: BlobHash): Promise<BlobHash> {
    while (this.collecting) await this.collecting.catch(() => undefined);
    const hash = knownHash ?? sha256Of(bytes);
    const now = Date.now();
    const touched = this.db
      .prepare("UPDATE checkpoint_blobs SET last_used_at = ? WHERE hash = ?")
      .run(now, hash);
    if (touched.changes > 0) return hash;
    const file = this.file(hash);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(bytes);
    } catch (err) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    try {
      await rename(temp, file);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    this.db
      .prepare(
        `INSERT INTO checkpoint_blobs (hash, size, last_used_at) VALUES (?, ?, ?)
         ON CONFLICT (hash) DO UPDATE SET last_used_at = excluded.last_used_at`,
      )
      .run(hash, bytes.byteLength, now);
    return hash;
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
    const doomed = this.db.transaction(() => {
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
