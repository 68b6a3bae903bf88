// The entry of the offload pool's worker threads: runs one job at a time, as the pool sends them.
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { setFlagsFromString } from "node:v8";
import { parentPort } from "node:worker_threads";
import { WithTransfer } from "./job-result.ts";
import { JOBS } from "./offload-jobs.ts";
import type { JobReply, JobRequest } from "./worker-pool.ts";

const port = parentPort;
if (!port) throw new Error("offload-worker.ts runs only as a worker thread.");

/**
 * Bulk work must not take cores from the event loop it exists to keep free: on Linux, where a
 * thread has its own nice value, this thread yields to the main thread (and to the rest of the
 * desktop). Elsewhere, or when the kernel refuses, it runs at normal priority.
 */
function lowerOwnPriority(): void {
  if (process.platform !== "linux") return;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // Not permitted or not available: normal priority is still correct, only less polite.
  }
}
lowerOwnPriority();

// Model-written regexes (grep's) run here. One like (a+)+$ must not run for minutes: past a
// backtracking limit V8 switches to its linear-time engine where the pattern allows it (one it
// cannot take, such as (a+)+(?=b), is stopped by terminating this worker). V8's flags are the
// process's: set here, it holds for whatever host started the pool (the CLI, the app).
setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");

port.on("message", async (request: JobRequest) => {
  const { id, job } = request;
  if (request.timed) port.postMessage({ id, started: true } satisfies JobReply);
  let reply: JobReply;
  let transfer: readonly ArrayBuffer[] = [];
  try {
    const run = (JOBS as Record<string, (input: unknown) => unknown>)[job];
    if (!run) throw new Error(`No offload job is named "${job}".`);
    let value = await run(request.input);
    if (value instanceof WithTransfer) {
      transfer = value.transfer;
      value = value.value;
    }
    reply = { id, ok: true, value };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    const code = (error as NodeJS.ErrnoException).code;
    reply = {
      id,
      ok: false,
      error: { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) },
    };
  }
  port.postMessage(reply, [...transfer]);
});
