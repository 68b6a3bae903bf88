import { monitorEventLoopDelay, type ELDHistogram } from "node:perf_hooks";

/** How long the event loop was kept from turning while a probe ran, in milliseconds. */
export interface LagReport {
  /** The longest single block (wall clock): the figure the "never longer than 50 ms" goal is about. */
  maxMs: number;
  /** 99th percentile of the probe's samples (wall clock). */
  p99Ms: number;
  meanMs: number;
  /**
   * The most CPU time the main thread itself used between two turns of the loop. A machine busy
   * with other work stretches `maxMs` (the thread waits for a core) but not this; a block that
   * waits in the kernel (a synchronous read of a slow disk) stretches `maxMs` only.
   */
  maxCpuMs: number;
  /** How many times the probe's timer fired (a probe that never fired measured nothing). */
  samples: number;
}

/** The probe's timer period. Each sample is the time between two firings, less this period. */
const RESOLUTION_MS = 2;

function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/**
 * An event-loop lag probe for tests and benchmarks. The wall-clock figures come from Node's
 * `monitorEventLoopDelay`, a libuv timer sampled in C++ (no JavaScript per sample, so the probe
 * hardly loads the loop it measures): a sample is how late the timer fired, and the longest is
 * how long the loop was blocked at most. Beside it a timer in JavaScript reads the main
 * thread's own CPU time at every turn, which tells a real block from a busy machine.
 */
export class LagProbe {
  private readonly histogram: ELDHistogram;
  private cpuTimer: NodeJS.Timeout | undefined;
  private lastCpu = 0;
  private maxCpu = 0;

  constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  }

  start(): this {
    this.histogram.reset();
    this.histogram.enable();
    this.maxCpu = 0;
    this.lastCpu = threadCpuMs();
    this.cpuTimer = setInterval(() => {
      const now = threadCpuMs();
      this.maxCpu = Math.max(this.maxCpu, now - this.lastCpu);
      this.lastCpu = now;
    }, RESOLUTION_MS);
    return this;
  }

  /** Stop sampling and report what was seen since `start`. */
  stop(): LagReport {
    if (this.cpuTimer === undefined) throw new Error("the lag probe was not started");
    clearInterval(this.cpuTimer);
    this.cpuTimer = undefined;
    this.histogram.disable();
    const h = this.histogram;
    const ms = (ns: number): number => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    return h.count === 0
      ? { maxMs: 0, p99Ms: 0, meanMs: 0, maxCpuMs: this.maxCpu, samples: 0 }
      : {
          maxMs: ms(h.max),
          p99Ms: ms(h.percentile(99)),
          meanMs: ms(h.mean),
          maxCpuMs: this.maxCpu,
          samples: h.count,
        };
  }
}

/**
 * Run `work` under a lag probe. The loop is given a few turns first so the probe's timers are
 * armed, and a few after, so a block at the very end of `work` is sampled too.
 */
export async function measureLag<T>(work: () => Promise<T>): Promise<{ result: T; lag: LagReport }> {
  const probe = new LagProbe().start();
  let lag: LagReport | undefined;
  try {
    await new Promise((resolve) => setTimeout(resolve, RESOLUTION_MS * 3));
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, RESOLUTION_MS * 3));
    lag = probe.stop();
    return { result, lag };
  } finally {
    if (lag === undefined) probe.stop();
  }
}

/** The lag of an idle loop over `ms`: the comparison every loaded figure is printed beside. */
export async function idleLag(ms: number): Promise<LagReport> {
  const { lag } = await measureLag(() => new Promise((resolve) => setTimeout(resolve, ms)));
  return lag;
}
