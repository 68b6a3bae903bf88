/** The content a tool is about to replace, as it already holds it (so nothing is read twice). */
export interface KeptContent {
  bytes: Uint8Array;
  /** Its SHA-256 in hex, when the tool has computed it already. */
  sha256?: string;
  /** Its permission bits, to recreate it as it was. */
  mode?: number;
  /**
   * The file as it was read, when the tool will rename a new file over it (so this one is left
   * untouched): the checkpoint may then keep the file itself by a hard link instead of a copy.
   */
  renamedOver?: FileIdentity;
}

/** Enough of a file's stat to be sure a path still names the file that was read. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
  /** How many names the file has: only a file with one is kept by a link (no other name can change it). */
  nlink: number;
}

/**
 * What a tool that changes files itself (write, edit) hands its call's checkpoint: before a
 * change, the content it replaces; after, what the file now holds. The checkpoint is recorded
 * when the call ends, with every file the call changed.
 */
export interface FileCheckpoint {
  /**
   * Before changing the file at `absolute`: keep its current content (`null`: it does not exist
   * yet, and the folders its write will create are noted). Throws when the content cannot be
   * kept; the tool must not change the file then.
   */
  keep(absolute: string, current: KeptContent | null): Promise<void>;
  /**
   * After the change: the SHA-256 of what the file now holds (`null`: the change deleted it) and
   * its permission bits, so that a restore sees a later chmod as a change since.
   */
  changed(absolute: string, sha256: string | null, mode?: number): void;
}
