import { ToolCallError } from "../errors/tool-call-error.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

/** The families of `runtime` requests that are capped separately. */
type BridgeFamily = "fs" | "net" | "shell";

interface GateLimits {
  /** Requests carried out at once. */
  active: number;
  /** Requests that may wait for a turn; one more is refused. */
  queued: number;
}

/**
 * At most `active` pieces of work at once, the rest waiting their turn in order, and at most
 * `queued` of them waiting: past that, `run` refuses at once with the error `refuse` makes.
 */
export class ConcurrencyGate {
  private readonly limits: GateLimits;
  private readonly refuse: (limits: GateLimits) => Error;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(limits: GateLimits, refuse: (limits: GateLimits) => Error) {
    if (limits.active < 1 || limits.queued < 0)
      throw new RangeError("a gate needs active ≥ 1 and queued ≥ 0");
    this.limits = limits;
    this.refuse = refuse;
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Run `work` when a turn comes. Work whose signal has aborted by then is not started: it fails
   * with the signal's reason and passes the turn on.
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running < this.limits.active) this.running++;
    else if (this.waiting.length >= this.limits.queued) throw this.refuse(this.limits);
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      signal?.throwIfAborted();
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The turn passes straight to the next waiter, so `running` only drops when none waits.
      if (next) next();
      else this.running--;
    }
  }
}

let spawnTail: Promise<void> = Promise.resolve();

/**
 * Resolves on a turn of the event loop of its own, one caller at a time. Starting a process
 * blocks the calling thread until the child has exec'd (and a fork costs more the larger the
 * process), so spawns are spread one per turn, never bunched into one long block when several
 * queued commands are let go at once.
 */
export function spawnTurn(): Promise<void> {
  const turn = spawnTail.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  spawnTail = turn;
  return turn;
}

const MEMBERS: Record<BridgeFamily, string> = {
  fs: "runtime.fs",
  net: "runtime.net.fetch",
  shell: "runtime.shell.run",
};

/**
 * One plugin's caps on the work its `runtime` asks the host for: a few file, network and shell
 * requests at a time (PLUGIN_LIMITS.bridge), the rest queued, and a flood past the queue refused
 * with an error the plugin can act on. One per plugin, shared by all its calls.
 */
export class BridgeLimiter {
  private readonly gates: Record<BridgeFamily, ConcurrencyGate>;

  constructor(toolId: string, limits: Record<BridgeFamily, GateLimits> = PLUGIN_LIMITS.bridge) {
    const gate = (family: BridgeFamily): ConcurrencyGate =>
      new ConcurrencyGate(
        limits[family],
        ({ active, queued }) =>
          new ToolCallError(
            `${toolId} has ${active} ${MEMBERS[family]} requests running and ${queued} more waiting, the most a plugin may have; this one was refused. Await some of them before starting more (for example in batches of ${active}).`,
            "plugin_flood",
          ),
      );
    this.gates = { fs: gate("fs"), net: gate("net"), shell: gate("shell") };
  }

  run<T>(family: BridgeFamily, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.gates[family].run(work, signal);
  }

  /** Requests running and waiting per family (for tests and status). */
  load(): Record<BridgeFamily, { active: number; queued: number }> {
    const of = (g: ConcurrencyGate) => ({ active: g.active, queued: g.queued });
    return { fs: of(this.gates.fs), net: of(this.gates.net), shell: of(this.gates.shell) };
  }
}
