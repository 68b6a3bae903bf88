import type { Worker } from "node:worker_threads";

/** What a worker posts back for one job: that it started it (when timed), then its outcome. */
export type JobReply =
  | { id: number; started: true }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string; code?: string } };

/** What the pool posts to a worker for one job. */
export interface JobRequest {
  id: number;
  job: string;
  input: unknown;
  /** Say when the job starts (a `started` reply), so its run time is counted from then. */
  timed?: boolean;
}

export interface JobOptions {
  /** Aborting stops the job: a queued job is dropped, a running one's worker is terminated. */
  signal?: AbortSignal;
  /** Buffers in `input` to move to the worker rather than copy (they are unusable here afterwards). */
  transfer?: readonly ArrayBuffer[];
  /**
   * Stop the job once it has run this long, terminating its worker; it rejects with a
   * JobTimeoutError. Counted from when the worker starts it: time queued behind other jobs, or
   * while a fresh worker loads, is not counted.
   */
  timeoutMs?: number;
}

/** A job ran longer than its `timeoutMs` and was stopped. */
export class JobTimeoutError extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`The job was stopped after running for ${timeoutMs} ms.`);
    this.name = "JobTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** A job failed inside the worker; `code` is the thrown error's code, if it had one. */
export class JobError extends Error {
  readonly code: string | undefined;

  constructor(name: string, message: string, code?: string) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

interface Job {
  request: JobRequest;
  transfer: readonly ArrayBuffer[];
  signal: AbortSignal | undefined;
  timeoutMs: number | undefined;
  timer?: NodeJS.Timeout;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/**
 * A few worker threads that run named jobs (see offload-worker.ts) off the main thread, so bulk
 * decoding, hashing, diffing and regular-expression work never holds up the event loop. Workers
 * start on first use and stay warm; a job that is aborted while it runs has its worker
 * terminated (which is the only way to stop a runaway regular expression) and replaced on
 * demand. Idle workers do not keep the process alive.
 */
export class WorkerPool {
  private readonly entry: URL;
  private readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(entry: URL, size: number) {
    this.entry = entry;
    this.size = Math.max(1, size);
  }

  /** Run `job` with `input` in a worker; resolves to what the job returned. */
  run<T>(job: string, input: unknown, options: JobOptions = {}): Promise<T> {
    const { signal } = options;
    if (this.closed) return Promise.reject(new Error("The worker pool is closed."));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<T>((resolve, reject) => {
      const { timeoutMs } = options;
      const entry: Job = {
        request: { id: this.nextId++, job, input, ...(timeoutMs === undefined ? {} : { timed: true }) },
        transfer: options.transfer ?? [],
        signal,
        timeoutMs,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      if (signal) {
        entry.onAbort = () => this.stop(entry, abortReason(signal));
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.queue.push(entry);
      this.pump();
    });
  }

  /** Workers running or idle (for tests and status). */
  get workers(): number {
    return this.slots.length;
  }

  /** Terminate every worker; jobs still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = this.queue.splice(0);
    for (const job of pending) this.settle(job, () => job.reject(new Error("The worker pool was closed.")));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.job) {
          const job = slot.job;
          this.settle(job, () => job.reject(new Error("The worker pool was closed.")));
        }
        return slot.worker.terminate();
      }),
    );
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.request, [...job.transfer]);
    }
  }

  private spawn(): Slot {
    // Taken with the first job: a start that offloads nothing never loads worker_threads.
    const { Worker: Thread } = process.getBuiltinModule("node:worker_threads");
    const worker = new Thread(this.entry);
    const slot: Slot = { worker, job: undefined };
    worker.unref();
    worker.on("message", (reply: JobReply) => {
      const job = slot.job;
      if (!job || job.request.id !== reply.id) return;
      if ("started" in reply) {
        const limit = job.timeoutMs ?? 0;
        job.timer = setTimeout(() => this.stop(job, new JobTimeoutError(limit)), limit);
        return;
      }
      slot.job = undefined;
      worker.unref();
      if (reply.ok) this.settle(job, () => job.resolve(reply.value));
      else {
        const { name, message, code } = reply.error;
        this.settle(job, () => job.reject(new JobError(name, message, code)));
      }
      this.pump();
    });
    const lost = (err: Error): void => {
      const index = this.slots.indexOf(slot);
      if (index === -1) return;
      this.slots.splice(index, 1);
      const job = slot.job;
      slot.job = undefined;
      if (job) this.settle(job, () => job.reject(err));
      if (!this.closed) this.pump();
    };
    worker.on("error", (err) => lost(err));
    worker.on("exit", (code) => lost(new Error(`A worker thread stopped unexpectedly (exit code ${code}).`)));
    this.slots.push(slot);
    return slot;
  }

  /** Stop a job (aborted, or out of time): dropped when queued, its worker terminated when running. */
  private stop(job: Job, reason: unknown): void {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      this.settle(job, () => job.reject(reason));
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (!slot) return;
    // The job may be stuck in code that never yields (a catastrophic regular expression): the
    // worker is the unit that can be stopped.
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.job = undefined;
    void slot.worker.terminate();
    this.settle(job, () => job.reject(reason));
    this.pump();
  }

  private settle(job: Job, finish: () => void): void {
    clearTimeout(job.timer);
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    finish();
  }
}
