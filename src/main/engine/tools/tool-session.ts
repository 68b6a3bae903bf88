import type { Asker } from "./question-request.ts";
import type { TaskHost } from "./task-host.ts";
import type { TodoList } from "./todo-list.ts";
import type { ToolExposure } from "./tool-exposure.ts";

/** What a session remembers of a file it read, to refuse writes over changes it has not seen. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * The session a call is made in, as its tool sees it (`runtime.session`): what the session has
 * read, where the tool's extra output goes, and its services. A tool reaches a service of its
 * session here and nowhere else: who answers questions, the task host of the run going on, what
 * the model is shown of the tools, the todo list.
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
  /** The agent run going on in the session, which starts `task`s; undefined outside a run. */
  readonly tasks: TaskHost | undefined;
  /** What the session's model is shown of the tools; `tool_search` loads deferred ones into it. */
  readonly exposure: ToolExposure;
  /** The session's todo list. */
  readonly todos: TodoList;
}
