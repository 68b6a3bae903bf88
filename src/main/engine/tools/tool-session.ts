import type { Asker } from "./question-request.ts";

/** What a session remembers of a file it read, to refuse writes over changes it has not seen. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * The session a call is made in, as its tool sees it (`runtime.session`): what the session has
 * read, where the tool's extra output goes, and the services of the host that opened it.
 */
export interface ToolSession {
  readonly id: string;
  /** Remember a file as this session read (or wrote) it. */
  recordRead(absolutePath: string, stamp: FileStamp): void;
  /** The file as this session last read it; undefined when it never did. */
  lastRead(absolutePath: string): FileStamp | undefined;
  /** A fresh sidecar file path for a tool's output (its folder created). */
  newSidecarPath(toolId: string): Promise<string>;
  /** Write the whole output of a truncated call; returns the sidecar's absolute path. */
  writeSidecar(toolId: string, text: string): Promise<string>;
  /** Save a file a tool produced (an image) beside the sidecars; returns its absolute path. */
  writeSidecarFile(toolId: string, bytes: Uint8Array, extension: string): Promise<string>;
  /** Who answers the question tool; undefined when the host is headless. */
  readonly asker: Asker | undefined;
}
