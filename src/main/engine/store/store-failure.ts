import { StoreError } from "../errors/store-error.ts";

/** What to do about each way SQLite fails on its file, by the start of its error code. */
const REMEDIES: ReadonlyArray<readonly [code: string, what: string, todo: (file: string) => string]> = [
  [
    "SQLITE_FULL",
    "the disk is full",
    () => "Free some space on that disk (or set LATHE_HOME to a folder on another one), then try again.",
  ],
  [
    "SQLITE_READONLY",
    "the file or its folder is read-only",
    (file) =>
      `Make ${file} and its folder writable for this user (or set LATHE_HOME elsewhere), then try again.`,
  ],
  [
    "SQLITE_CANTOPEN",
    "the file cannot be opened",
    (file) =>
      `Check that ${file} and its folder exist and are readable and writable for this user, then try again.`,
  ],
  [
    "SQLITE_PERM",
    "the operating system refused access",
    (file) => `Check the permissions of ${file} and its folder, then try again.`,
  ],
  [
    // The shared-memory file beside a WAL database could not grow: on a full disk.
    "SQLITE_IOERR_SHMSIZE",
    "the disk is full",
    () => "Free some space on that disk (or set LATHE_HOME to a folder on another one), then try again.",
  ],
  [
    "SQLITE_IOERR",
    "the disk reported an input/output error",
    () => "Check the disk (it may be failing, full or gone), then try again.",
  ],
  [
    "SQLITE_CORRUPT",
    "the database is damaged",
    (file) =>
      `Move ${file} aside with its ${file}-wal and ${file}-shm files (Lathe then starts a new one; the old files keep its sessions and audit trail for recovery), then try again.`,
  ],
  [
    "SQLITE_NOTADB",
    "the file is not a Lathe database",
    (file) =>
      `Move ${file} aside with its ${file}-wal and ${file}-shm files (Lathe then starts a new one), or set LATHE_HOME to another folder, then try again.`,
  ],
  // The same failures as the file system reports them, before SQLite has the file (creating the
  // folder or the file, setting its mode).
  [
    "EROFS",
    "the file system is read-only",
    () =>
      "Set LATHE_HOME to a folder on a writable file system (or remount this one writable), then try again.",
  ],
  [
    "EACCES",
    "the operating system refused access",
    (file) =>
      `Make ${file} and its folder writable for this user (or set LATHE_HOME elsewhere), then try again.`,
  ],
  [
    "EPERM",
    "the operating system refused access",
    (file) =>
      `Make ${file} and its folder writable for this user (or set LATHE_HOME elsewhere), then try again.`,
  ],
  [
    "ENOSPC",
    "the disk is full",
    () => "Free some space on that disk (or set LATHE_HOME to a folder on another one), then try again.",
  ],
  [
    "ENOTDIR",
    "a part of its path is a file, not a folder",
    (file) =>
      `Check the path ${file} (is LATHE_HOME a folder?), or set LATHE_HOME to a folder, then try again.`,
  ],
  [
    "EISDIR",
    "it is a folder, not a file",
    (file) =>
      `Move the folder ${file} aside (Lathe then starts a new database there), or set LATHE_HOME to another folder, then try again.`,
  ],
  [
    "SQLITE_BUSY",
    "another Lathe process holds its lock",
    () => "Wait for the other Lathe process to finish (or stop it if it hangs), then try again.",
  ],
];

/**
 * A failure of SQLite on `file` while Lathe was `doing` something, as a StoreError that says what
 * went wrong and what to do (a full disk, a read-only or damaged file); any other error (a bug in a
 * query, say) is returned as it was.
 */
export function storeFailure(err: unknown, file: string, doing: string): unknown {
  if (err instanceof StoreError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return err;
  const remedy = REMEDIES.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`));
  if (!remedy) return err;
  const [, what, todo] = remedy;
  return new StoreError(`Lathe could not ${doing} in ${file}: ${what} (${code}). ${todo(file)}`, {
    cause: err,
  });
}
