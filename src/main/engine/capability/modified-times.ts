import { statSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Worker } from "node:worker_threads";

/** Paths statted per batch: each batch wakes the helper thread, which costs as much as dozens of stats. */
const BATCH = 512;

/** A batch's claim slot: whoever moves it from UNCLAIMED first stats the batch. */
const UNCLAIMED = 0;
const BY_HELPER = 1;
const BY_CALLER = 2;

/**
 * The helper thread's whole program (plain JavaScript, evaluated as the worker's source so that it
 * needs no file of its own beside a bundle): for each batch it manages to claim, stat its paths
 * and send back the times; a batch the calling thread claimed first comes back as `skipped`.
 */
const HELPER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { statSync } = require("node:fs");
parentPort.on("message", ({ id, joined, claim }) => {
  if (Atomics.compareExchange(claim, 0, ${UNCLAIMED}, ${BY_HELPER}) !== ${UNCLAIMED}) {
    parentPort.postMessage({ id, skipped: true });
    return;
  }
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

/** The helper's answer for one batch: times, "skipped" (the caller claimed it), or undefined (stat it yourself). */
type Answer = Float64Array | "skipped" | undefined;

/**
 * One helper thread for the process, started the first time a search has a full batch for it and
 * kept (without holding the process open) for later searches. A batch it could not stat, and
 * every batch it held if the thread itself fails, is answered undefined: the caller stats those
 * paths itself.
 */
class StatHelper {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: Answer) => void>();

  /** Post a batch; false when there is no helper to take it. */
  post(paths: readonly string[], claim: Int32Array, answer: (answer: Answer) => void): boolean {
    if (!this.worker && !this.broken) this.start();
    const worker = this.worker;
    if (!worker || this.broken) return false;
    const id = this.nextId++;
    this.waiting.set(id, answer);
    // Referenced while it holds work, so a caller awaiting it keeps the process alive.
    if (this.waiting.size === 1) worker.ref();
    // One string (paths hold no NUL byte) copies far faster than an array of them.
    worker.postMessage({ id, joined: paths.join("\0"), claim });
    return true;
  }

  private start(): void {
    let worker: Worker;
    try {
      const { Worker: Thread } = process.getBuiltinModule("node:worker_threads");
      worker = new Thread(HELPER_SOURCE, { eval: true, name: "lathe-stat-helper" });
    } catch {
      // No thread to be had: every batch is statted by its caller, as without a helper.
      this.broken = true;
      return;
    }
    this.worker = worker;
    worker.unref();
    worker.on(
      "message",
      ({ id, times, skipped }: { id: number; times?: Float64Array | null; skipped?: true }) =>
        this.settle(id, skipped ? "skipped" : (times ?? undefined)),
    );
    const fail = (): void => {
      this.broken = true;
      for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
    };
    worker.on("error", fail);
    worker.on("exit", fail);
  }

  private settle(id: number, answer: Answer): void {
    const reply = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0 && !this.broken) this.worker?.unref();
    reply?.(answer);
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

interface Batch {
  readonly start: number;
  readonly paths: readonly string[];
  /** Shared with the helper: who stats the batch. */
  readonly claim: Int32Array;
  /** The helper's answer, when the batch was posted to it. */
  readonly answer?: Promise<Answer>;
}

/**
 * The modification times of many files a walk produces, statted in parallel batches with work
 * stealing: each full batch goes to a helper thread at once, which stats the batches in the order
 * they came while the walk goes on; when the walk is done, the calling thread takes batches from
 * the other end, and each batch is statted by whichever thread claims it first. A search that
 * finds fewer files than a batch never starts the helper.
 */
export class ModifiedTimes {
  private readonly paths: string[] = [];
  /** Start of the batch being filled. */
  private batchStart = 0;
  private readonly batches: Batch[] = [];
  /** How many of the paths the helper thread statted (the rest were statted by the caller's thread). */
  stattedByHelper = 0;

  /** Queue a canonical path (a walk entry's `absolute`); its time comes back at the same index. */
  add(absolute: string): void {
    this.paths.push(absolute);
    if (this.paths.length - this.batchStart === BATCH) this.seal(true);
  }

  get size(): number {
    return this.paths.length;
  }

  /** How many batches the helper thread has claimed so far (a diagnostic). */
  get claimedByHelper(): number {
    return this.batches.filter((b) => Atomics.load(b.claim, 0) === BY_HELPER).length;
  }

  /**
   * The time of every path added (ms since the epoch; NaN for a file that vanished meanwhile), in
   * the order added. Throws the abort reason once the signal fires.
   */
  async all(signal?: AbortSignal): Promise<Float64Array> {
    // The last, partial batch is the caller's: it would reach the helper last anyway.
    if (this.batchStart < this.paths.length) this.seal(false);
    const times = new Float64Array(this.paths.length);
    // From the far end, one batch per turn of the event loop, so that an abort is heard.
    for (let i = this.batches.length - 1; i >= 0; i--) {
      const batch = this.batches[i] as Batch;
      if (Atomics.compareExchange(batch.claim, 0, UNCLAIMED, BY_CALLER) !== UNCLAIMED) continue;
      times.set(statHere(batch.paths), batch.start);
      if (i > 0) {
        await nextTurn();
        signal?.throwIfAborted();
      }
    }
    for (const batch of this.batches) {
      if (!batch.answer || Atomics.load(batch.claim, 0) === BY_CALLER) continue;
      const answer = await batch.answer;
      if (answer === "skipped") continue;
      // A batch the helper could not stat is statted here (where an error is thrown).
      times.set(answer ?? statHere(batch.paths), batch.start);
      if (answer) this.stattedByHelper += answer.length;
    }
    signal?.throwIfAborted();
    return times;
  }

  /** Close the batch being filled, and hand it to the helper when `post`. */
  private seal(post: boolean): void {
    const start = this.batchStart;
    const paths = this.paths.slice(start);
    this.batchStart = this.paths.length;
    const claim = new Int32Array(new SharedArrayBuffer(4));
    const answer = post
      ? new Promise<Answer>((resolve) => {
          if (!helper.post(paths, claim, resolve)) resolve(undefined);
        })
      : undefined;
    this.batches.push({ start, paths, claim, ...(answer ? { answer } : {}) });
  }
}
