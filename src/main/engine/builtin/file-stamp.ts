import type { Stats } from "node:fs";
import { createHash } from "node:crypto";
import type { ResolvedPath } from "../capability/fs-capability.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { FileStamp, ToolSession } from "../tools/tool-session.ts";
import { counted } from "../tools/counted.ts";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The read-before-write rule: an existing file may be replaced only when this session read it
 * and its bytes are still the ones it read (given as the bytes, or as their size and SHA-256).
 * Throws a ToolCallError that says what to do otherwise; returns the bytes' SHA-256 (computed for
 * the check when given the bytes) so the caller need not hash them again.
 */
export function assertReadAndUnchanged(
  session: ToolSession,
  target: ResolvedPath,
  current: Uint8Array | Pick<FileStamp, "size" | "sha256">,
  toolId: string,
): string {
  const { size, sha256: digest } =
    current instanceof Uint8Array ? { size: current.byteLength, sha256: sha256(current) } : current;
  const last = session.lastRead(target.absolute);
  if (!last) {
    throw new ToolCallError(
      `${target.display} already exists and has not been read in this session. Call read on ${target.display} first, then call ${toolId} again, so you do not overwrite content you have not seen.`,
      "not_read",
    );
  }
  if (last.size !== size || last.sha256 !== digest) {
    throw new ToolCallError(
      `${target.display} has changed on disk since this session last read it (now ${counted(size, "byte")}, was ${last.size}). Call read on ${target.display} again to see its current content, then call ${toolId} again.`,
      "stale_read",
    );
  }
  return digest;
}

/**
 * What follows a tool's write of `target` with new bytes of `size` and `sha256`: the checkpoint
 * hears what the file holds now and its mode (so a restore sees a later chmod) — even when the
 * stat fails, for the file was written — and the session records the file as read, so the model
 * may edit or write it again without reading its own work first.
 */
export async function recordWritten(
  runtime: Pick<ToolRuntime, "fs" | "checkpoint" | "session">,
  target: ResolvedPath,
  written: Pick<FileStamp, "size" | "sha256">,
): Promise<void> {
  let stats: Stats | undefined;
  try {
    stats = await runtime.fs.stat(target);
  } finally {
    runtime.checkpoint?.changed(target.absolute, written.sha256, stats && stats.mode & 0o7777);
  }
  if (stats) runtime.session.recordRead(target.absolute, { ...written, mtimeMs: stats.mtimeMs });
}
