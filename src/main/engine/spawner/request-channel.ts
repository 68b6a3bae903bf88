// How the spawner's request runners (spawner-pty.ts, spawner-exec.ts, spawner-server.ts) talk
// back to the host, and how its dispatcher (spawner-main.ts) steers what they started.
import type { Socket } from "node:net";
import type { SpawnerEvent } from "./spawner-protocol.ts";

/** How the spawner talks back about one request. */
export interface RequestChannel {
  send(event: SpawnerEvent): void;
  /** Send `event` with `pipe` handed to the host; closed here once the host has it. */
  handOver(event: SpawnerEvent, pipe: Socket): void;
}

/** A running request, as the spawner's dispatcher steers it. */
export interface RunningRequest {
  /** The host is gone: end everything it started now, without grace. */
  kill(): void;
  /** Ask it to stop (a server the host is closing): only requests that can be asked take it. */
  signal?(name: "SIGTERM" | "SIGKILL"): void;
  /** Let it run: the host holds its pipes (a server). */
  open?(): void;
}
