import { statSync } from "node:fs";
import { StoreError } from "../errors/store-error.ts";
import { errorMessage } from "../errors/error-message.ts";
import type { Db } from "./database.ts";

/** Bytes the database `file` takes on disk: the file and its write-ahead log beside it. */
export function databaseBytes(file: string): number {
  let bytes = 0;
  for (const part of [file, `${file}-wal`]) {
    try {
      bytes += statSync(part).size;
    } catch (err) {
      // No WAL (or no file yet) takes no space; any other failure is the disk's, and said.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return bytes;
}

/**
 * Give the pages deleted rows left free back to the disk: SQLite keeps them in the file for
 * later rows otherwise, so a file never shrinks. VACUUM rewrites the database (it needs free
 * space about its size meanwhile, and waits for other Lathe processes' statements to end), then
 * the write-ahead log it went through is folded into the file and emptied. Does nothing when
 * no page is free, so running it again after it failed is how to finish. `onStart` hears when
 * it is about to rewrite the file.
 */
export function reclaimFreePages(db: Db, onStart?: () => void): void {
  const free = db.pragma("freelist_count", { simple: true }) as number;
  if (free === 0) return;
  onStart?.();
  try {
    db.exec("VACUUM");
    db.pragma("wal_checkpoint(TRUNCATE)");
  } catch (err) {
    throw new StoreError(
      `The rows were deleted, but giving their space back to the disk failed: ${errorMessage(err)} Run the command again when no other Lathe is busy with ${db.name} (it then only reclaims the space).`,
      { cause: err },
    );
  }
}
