// How large a change an edit's diff is made for. Apart from edit-text.ts (which runs on the
// offload workers with the diff library), so the edit tool's description needs no diff library.

/**
 * The diff of an edit is left out when more lines than this changed: its cost grows with the
 * changed lines times the file's (jsdiff is Myers' O(ND)), and a diff that long tells the model
 * less than reading the file would.
 */
export const DIFF_MAX_CHANGED_LINES = 2_000;
/** The most time one diff may take; past it the diff is left out (jsdiff's own `timeout`). */
export const DIFF_TIMEOUT_MS = 1_000;
