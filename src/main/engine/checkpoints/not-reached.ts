/**
 * The reason a restore or rewind stopped halfway (Ctrl-C) gives for each path it did not reach:
 * hosts tell those apart from paths that failed, and list them in one line.
 */
export const NOT_REACHED = "not restored: the restore was stopped before it reached this path";
