import type { SpawnerFailure } from "./spawner-protocol.ts";

/** A request the spawner could not start, and what the host is told (it did not run). */
export class RequestFailure extends Error {
  readonly failure: SpawnerFailure;

  constructor(failure: SpawnerFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

/** Stopped by the host before its process started. */
export function abortedBeforeStart(): RequestFailure {
  return new RequestFailure({ kind: "aborted", message: "it was aborted before it started" });
}
