import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import type { ResolvedPath } from "../capability/fs-capability.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { FileStamp, SessionState } from "../session/session-state.ts";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** What a session remembers of a file's bytes and their on-disk state. */
export function stampOf(bytes: Uint8Array, stats: Pick<Stats, "mtimeMs">): FileStamp {
  return { size: bytes.byteLength, mtimeMs: stats.mtimeMs, sha256: sha256(bytes) };
}

/**
 * The read-before-write rule: an existing file may be replaced only when this session read it
 * and its bytes are still the ones it read. Throws a ToolCallError that says what to do otherwise;
 * returns the bytes' SHA-256 (computed for the check) so the caller need not hash them again.
 */
export function assertReadAndUnchanged(
  session: SessionState,
  target: ResolvedPath,
  currentBytes: Uint8Array,
  toolId: string,
): string {
  const last = session.lastRead(target.absolute);
  if (!last) {
    throw new ToolCallError(
      `${target.display} already exists and has not been read in this session. Call read on ${target.display} first, then call ${toolId} again, so you do not overwrite content you have not seen.`,
      "not_read",
    );
  }
  const hash = last.size === currentBytes.byteLength ? sha256(currentBytes) : undefined;
  if (hash === undefined || last.sha256 !== hash) {
    throw new ToolCallError(
      `${target.display} has changed on disk since this session last read it (now ${currentBytes.byteLength} bytes, was ${last.size}). Call read on ${target.display} again to see its current content, then call ${toolId} again.`,
      "stale_read",
    );
  }
  return hash;
}
