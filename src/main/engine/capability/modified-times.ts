import { statSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Worker } from "node:worker_threads";

/** Paths statted per batch: each round trip wakes a thread, which costs as much as dozens of stats. */
const BATCH = 512;
/** Batches the helper holds at once: enough to keep it busy between two turns of a walk's event loop. */
const IN_FLIGHT = 2;

/**
 * The helper thread's whole program (plain JavaScript, evaluated as the worker's source so that it
 * needs no file of its own beside a bundle): stat each path of a batch, send back the times.
 */
const HELPER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { statSync } = require("node:fs");
parentPort.on("message", ({ id, joined }) => {
  const paths = joined.split("\\0");
  const times = new Float64Array(paths.length);
  try {
    for (let i = 0; i < paths.length; i++) {
      const stats = statSync(paths[i], { throwIfNoEntry: false });
      times[i] = stats === undefined ? NaN : stats.mtimeMs;
    }
  } catch {
    // Any error but "gone": the caller stats this batch itself, and so meets the error itself.
    parentPort.postMessage({ id, times: null });
    return;
  }
  parentPort.postMessage({ id, times }, [times.buffer]);
});
`;

type Reply = (times: Float64Array | undefined) => void;

/**
 * One helper thread for the process, started the first time a search has a batch to hand it and
 * kept (without holding the process open) for later searches. A batch it could not stat, and
 * every batch it held if the thread itself fails, comes back undefined: the caller stats those
 * paths itself.
 */
class StatHelper {
  private worker: Worker | undefined;
  private online = false;
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, Reply>();

  /** Whether a batch posted now would be statted without waiting for the thread to start. */
  get ready(): boolean {
    if (this.broken) return false;
    if (!this.worker) this.start();
    return this.online;
  }

  get busy(): number {
    return this.waiting.size;
  }

  post(paths: string[], reply: Reply): void {
    const worker = this.worker as Worker;
    const id = this.nextId++;
    this.waiting.set(id, reply);
    // Referenced while it holds work, so a caller awaiting it keeps the process alive.
    if (this.waiting.size === 1) worker.ref();
    // One string (paths hold no NUL byte) copies far faster than an array of them.
    worker.postMessage({ id, joined: paths.join("\0") });
  }

  private start(): void {
    let worker: Worker;
    try {
      worker = new Worker(HELPER_SOURCE, { eval: true, name: "lathe-stat-helper" });
    } catch {
      this.broken = true;
      return;
    }
    this.worker = worker;
    worker.unref();
    worker.once("online", () => (this.online = true));
    worker.on("message", ({ id, times }: { id: number; times: Float64Array | null }) =>
      this.settle(id, times ?? undefined),
    );
    const fail = (): void => {
      this.broken = true;
      this.online = false;
      for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
    };
    worker.on("error", fail);
    worker.on("exit", fail);
  }

  private settle(id: number, times: Float64Array | undefined): void {
    const reply = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0 && !this.broken) this.worker?.unref();
    reply?.(times);
  }
}

const helper = new StatHelper();

/** Stat on the calling thread: NaN for a file that is gone, any other error thrown. */
function statHere(paths: readonly string[]): Float64Array {
  const times = new Float64Array(paths.length);
  for (let i = 0; i < paths.length; i++) {
    times[i] = statSync(paths[i] as string, { throwIfNoEntry: false })?.mtimeMs ?? NaN;
  }
  return times;
}

/**
 * The modification times of many files a walk produces, statted in parallel batches: while the
 * walk goes on, full batches go to a helper thread; when the walk is done, the calling thread
 * stats the batches still queued itself while the helper finishes its own. A search that finds
 * few files never starts the helper.
 */
export class ModifiedTimes {
  private readonly paths: string[] = [];
  /** Start of the batch being filled. */
  private batchStart = 0;
  /** Batches waiting for the helper or for the calling thread, as [start, end) into `paths`. */
  private readonly queue: [number, number][] = [];
  private readonly posted: Promise<void>[] = [];
  /** Batches the helper has statted, by where they start. */
  private readonly done: [number, Float64Array][] = [];
  /** How many of the paths the helper thread statted (the rest were statted by the caller's thread). */
  stattedByHelper = 0;

  /** Queue a canonical path (a walk entry's `absolute`); its time comes back at the same index. */
  add(absolute: string): void {
    this.paths.push(absolute);
    if (this.paths.length - this.batchStart === BATCH) {
      this.queue.push([this.batchStart, this.paths.length]);
      this.batchStart = this.paths.length;
      this.dispatch();
    }
  }

  get size(): number {
    return this.paths.length;
  }

  /**
   * The time of every path added (ms since the epoch; NaN for a file that vanished meanwhile), in
   * the order added. Throws the abort reason once the signal fires.
   */
  async all(signal?: AbortSignal): Promise<Float64Array> {
    const times = new Float64Array(this.paths.length);
    if (this.batchStart < this.paths.length) this.queue.push([this.batchStart, this.paths.length]);
    this.batchStart = this.paths.length;
    this.dispatch();
    // Take batches from the far end of the queue, one per turn of the event loop, so that the
    // helper's replies (and an abort) are heard in between.
    let batch: [number, number] | undefined;
    while ((batch = this.queue.pop()) !== undefined) {
      const [start, end] = batch;
      times.set(statHere(this.paths.slice(start, end)), start);
      if (this.queue.length > 0) {
        await nextTurn();
        signal?.throwIfAborted();
        this.dispatch();
      }
    }
    await Promise.all(this.posted);
    signal?.throwIfAborted();
    for (const [start, statted] of this.done) times.set(statted, start);
    return times;
  }

  /** Hand queued batches to the helper while it has room, oldest first. */
  private dispatch(): void {
    while (this.queue.length > 0 && helper.busy < IN_FLIGHT && helper.ready) {
      const [start, end] = this.queue.shift() as [number, number];
      const paths = this.paths.slice(start, end);
      const batch = new Promise<void>((resolve, reject) => {
        helper.post(paths, (statted) => {
          try {
            // A batch the helper could not stat is statted here (where an error is thrown).
            this.done.push([start, statted ?? statHere(paths)]);
            if (statted) this.stattedByHelper += statted.length;
            this.dispatch();
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      });
      // Awaited by `all`; until then a failure must not count as unhandled.
      batch.catch(() => undefined);
      this.posted.push(batch);
    }
  }
}
