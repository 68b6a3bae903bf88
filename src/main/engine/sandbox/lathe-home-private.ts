import os from "node:os";
import path from "node:path";
import { isPresent } from "./path-present.ts";

/**
 * The folders of `$LATHE_HOME` a confined process may read: models, tools, agents, skills and
 * the cache (a plugin's command or an MCP server may run from there).
 */
const PUBLIC = ["models", "tools", "agents", "skills", "cache"] as const;

/**
 * The files Lathe keeps private in `$LATHE_HOME`. Only used when the whole folder cannot be
 * hidden (see latheHomeHiding).
 */
const PRIVATE = [
  "lathe.db",
  "lathe.db-wal",
  "lathe.db-shm",
  "lathe.db-journal",
  "settings.json",
  "trust.json",
  "checkpoints",
  "sessions",
  "logs",
  "recent-projects.json",
  "project-models.json",
  // The CLI daemon's sockets: a process that reached one could run commands outside its sandbox.
  "run",
] as const;

/**
 * The folders of `$LATHE_HOME` whose files are left out of the hard-link check
 * (hidden-inode-index.ts): its public folders, and the bulk data Lathe writes itself — the
 * checkpoints' copies, the sessions' sidecar files, the logs — which grow by thousands of files
 * and which Lathe never links anywhere, so no workspace file shares an inode with one unless a
 * person linked it there by hand. Indexed, they would push a long-used `$LATHE_HOME` past the
 * index's bound, after which every file with several names (all of a pnpm `node_modules`) is
 * refused. What stays checked is small: the database, the settings and trust files.
 */
export const LATHE_HOME_UNINDEXED = ["checkpoints", "sessions", "logs", ...PUBLIC] as const;

const within = (p: string, entry: string): boolean => p === entry || p.startsWith(`${entry}/`);

/** How confined processes are kept out of `$LATHE_HOME` (see latheHomeHiding). */
export interface LatheHomeHiding {
  /** What they cannot read. */
  unreadable: string[];
  /** What they may read inside it after all. */
  readable: string[];
}

/**
 * What a confined process may not read of `$LATHE_HOME`: everything but its PUBLIC folders — the
 * database (every session's conversation and tool calls, of every folder, and the audit trail),
 * the user's settings (an MCP server's `headers` can hold a bearer token), trust, the
 * checkpoints' copies of other folders' files, the sessions' sidecar files, the logs, the list
 * of recent folders. The whole folder is hidden rather than a list of its files: the sandbox
 * cannot hide a path that is missing when a process starts, and an MCP server runs for hours,
 * during which Lathe creates its checkpoints, logs or the user's settings; those must not
 * appear to it. A public folder under one of `denyRead`'s entries stays hidden.
 *
 * Fallback: when `$LATHE_HOME` holds the home folder (or is `/`), hiding it would hide every
 * other file of the person; its private files are then hidden one by one, as they are now.
 */
export function latheHomeHiding(latheHome: string, denyRead: readonly string[]): LatheHomeHiding {
  const home = path.resolve(latheHome);
  if (within(os.homedir(), home) || home === path.parse(home).root) {
    return { unreadable: PRIVATE.map((name) => path.join(home, name)), readable: [] };
  }
  return {
    unreadable: [home],
    readable: PUBLIC.map((name) => path.join(home, name)).filter(
      (p) => isPresent(p) && !denyRead.some((entry) => within(p, path.resolve(entry))),
    ),
  };
}
