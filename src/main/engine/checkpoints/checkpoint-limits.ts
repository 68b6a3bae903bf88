import { counted } from "../tools/counted.ts";

/** How much the checkpoints of a session may read and keep. */
export interface CheckpointLimits {
  /** Files above this size are tracked by their size and times only; their content is not kept. */
  maxFileBytes: number;
  /** Content a session's workspace index keeps in all; past it, further files are tracked by size and times only. */
  maxIndexedBytes: number;
  /** A workspace with more files than this is not scanned: command changes are not checkpointed. */
  maxFiles: number;
  /** How long an unreferenced blob is kept after its last use before garbage collection removes it. */
  gcGraceMs: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  maxFileBytes: 8 * 1024 * 1024,
  maxIndexedBytes: 256 * 1024 * 1024,
  maxFiles: 50_000,
  gcGraceMs: 60_000,
};

/**
 * Why a file's content was not kept: "9.5 MB is above the 8 MB limit", in exact bytes when
 * rounding would show one number twice ("8 MB is above the 8 MB limit" for 8 MB and a byte).
 */
export function aboveLimit(size: number, limit: number): string {
  const shown = formatBytes(size);
  const limitShown = formatBytes(limit);
  if (shown !== limitShown) return `${shown} is above the ${limitShown} limit`;
  const exact = (n: number): string => `${n.toLocaleString("en-US")} bytes`;
  return `${exact(size)} is above the ${limitShown} (${exact(limit)}) limit`;
}

/** A byte count as a person reads it (e.g. "8 MB"). */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return counted(n, "byte");
}
