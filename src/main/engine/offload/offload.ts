import type { JOBS } from "./offload-jobs.ts";
import type { WithTransfer } from "./job-result.ts";
import { WorkerPool, type JobOptions } from "./worker-pool.ts";

type Jobs = typeof JOBS;
type JobName = keyof Jobs;
type JobInput<N extends JobName> = Parameters<Jobs[N]>[0];
type Unwrapped<T> = T extends WithTransfer<infer V> ? V : T;
type JobOutput<N extends JobName> = Unwrapped<Awaited<ReturnType<Jobs[N]>>>;

/**
 * The worker's entry file. Run from the TypeScript sources (the CLI, tests), this module is a
 * `.ts` file and so is the entry beside it; in the app's bundle (electron-vite) the entry is built
 * beside main.js as `offload-worker.js` (see electron.vite.config.ts).
 */
export function offloadWorkerEntry(): URL {
  return import.meta.url.endsWith(".ts")
    ? new URL("./offload-worker.ts", import.meta.url)
    : new URL("./offload-worker.js", import.meta.url);
}

let pool: WorkerPool | undefined;

/**
 * The process's offload pool: four workers, started on first use (a job stuck until its call times
 * out, such as a backtracking regular expression, still leaves others to the rest).
 */
function offloadPool(): WorkerPool {
  pool ??= new WorkerPool(offloadWorkerEntry(), 4);
  return pool;
}

/**
 * Run a job (see offload-jobs.ts) on a worker thread and await its result: how the engine does
 * work whose cost grows with what a model or a plugin hands it (decoding and hashing big files,
 * diffs, regular expressions, HTML conversion) without blocking the event loop. Aborting the
 * signal stops the job, terminating its worker if it is running.
 */
export function offload<N extends JobName>(
  name: N,
  input: JobInput<N>,
  options?: JobOptions,
): Promise<JobOutput<N>> {
  return offloadPool().run<JobOutput<N>>(name, input, options);
}
