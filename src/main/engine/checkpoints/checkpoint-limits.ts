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

/** A byte count as a person reads it (e.g. "8 MB"). */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${n} bytes`;
}
