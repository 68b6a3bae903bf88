/** A server's state as hosts show it. */
export type McpServerState = "starting" | "connected" | "reconnecting" | "failed" | "disabled";

/** What the MCP manager tells its host, as it happens. */
export type McpEvent =
  /** About to start a server (spawn its process or connect): show the exact command line. */
  | { type: "starting"; server: string; layer: "global" | "project"; commandLine: string; first: boolean }
  /**
   * A server kept running since an earlier command (by the CLI's daemon) is used instead of a
   * start: the same process, so what it holds in memory from then is still there.
   */
  | { type: "reused"; server: string; layer: "global" | "project"; commandLine: string; pid?: number }
  | { type: "state"; server: string; state: McpServerState; error?: string }
  /** A new tool list (or a failure) waits for `applyPendingChanges()` between turns. */
  | { type: "pending"; server: string };

export interface McpServerStatus {
  name: string;
  layer: "global" | "project";
  state: McpServerState;
  /** The exact command line (or URL), as shown before it first started. */
  commandLine: string;
  /** Tools the server offers in its latest listing. */
  toolCount: number;
  /** Why it is failed, disabled or reconnecting. */
  lastError?: string;
  /** What a person should know about its tools that is no error: each description cut for the model. */
  notes?: string[];
  logFile: string;
  /** The server process while a stdio server is connected. */
  pid?: number;
  /** The settings file it came from. */
  source: string;
}
