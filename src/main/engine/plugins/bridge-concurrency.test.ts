import { describe, expect, it } from "vitest";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { BridgeLimiter, ConcurrencyGate, spawnTurn } from "./bridge-concurrency.ts";

/** A piece of work that runs until released, recording when it started. */
function controllable(log: string[], name: string) {
  let release: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return {
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
    release: () => release(),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

function refusal(): Error {
  return new Error("refused");
}

describe("ConcurrencyGate", () => {
  it("runs at most `active` at once and starts the waiting ones in order as turns free up", async () => {
    const gate = new ConcurrencyGate({ active: 2, queued: 10 }, refusal);
    const log: string[] = [];
    const jobs = ["a", "b", "c", "d"].map((n) => controllable(log, n));
    const results = jobs.map((j) => gate.run(j.work));
    await tick();
    expect(log).toEqual(["start a", "start b"]);
    expect([gate.active, gate.queued]).toEqual([2, 2]);
    jobs[1]?.release();
    await tick();
    expect(log).toEqual(["start a", "start b", "end b", "start c"]);
    jobs[0]?.release();
    jobs[2]?.release();
    jobs[3]?.release();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
    expect([gate.active, gate.queued]).toEqual([0, 0]);
  });

  it("refuses at once, without running it, work past the queue bound", async () => {
    const gate = new ConcurrencyGate({ active: 1, queued: 2 }, refusal);
    const log: string[] = [];
    const jobs = ["a", "b", "c", "d"].map((n) => controllable(log, n));
    const results = jobs.map((j) => gate.run(j.work).catch((e: Error) => e.message));
    await tick();
    expect(await results[3]).toBe("refused");
    for (const j of jobs) j.release();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "refused"]);
    expect(log).not.toContain("start d");
  });

  it("frees the turn when work fails", async () => {
    const gate = new ConcurrencyGate({ active: 1, queued: 1 }, refusal);
    const failing = gate.run(async () => {
      throw new Error("boom");
    });
    const next = gate.run(async () => "next");
    await expect(failing).rejects.toThrow("boom");
    expect(await next).toBe("next");
    expect(gate.active).toBe(0);
  });

  it("does not start waiting work whose call was aborted meanwhile, and passes its turn on", async () => {
    const gate = new ConcurrencyGate({ active: 1, queued: 5 }, refusal);
    const log: string[] = [];
    const first = controllable(log, "first");
    const controller = new AbortController();
    const running = gate.run(first.work);
    const aborted = gate.run(async () => log.push("aborted one ran"), controller.signal);
    const after = gate.run(async () => "after");
    controller.abort(new Error("call stopped"));
    first.release();
    await expect(aborted).rejects.toThrow("call stopped");
    expect(await after).toBe("after");
    expect(await running).toBe("first");
    expect(log).not.toContain("aborted one ran");
  });
});

describe("BridgeLimiter", () => {
  it("caps each family separately and names the plugin and the family when it refuses", async () => {
    const limiter = new BridgeLimiter("greedy", {
      fs: { active: 1, queued: 0 },
      net: { active: 1, queued: 0 },
      shell: { active: 1, queued: 0 },
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const fs = limiter.run("fs", () => held);
    // Another family still has its own turn free.
    expect(await limiter.run("net", async () => "net ran")).toBe("net ran");
    const refused = await limiter.run("fs", async () => "ran").catch((e: unknown) => e);
    expect(ToolCallError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toBe(
      "greedy has 1 runtime.fs requests running and 0 more waiting, the most a plugin may have; this one was refused. Await some of them before starting more (for example in batches of 1).",
    );
    expect(limiter.load().fs).toEqual({ active: 1, queued: 0 });
    release();
    await fs;
    expect(limiter.load().fs).toEqual({ active: 0, queued: 0 });
  });
});

describe("spawnTurn", () => {
  it("lets callers go one per turn of the event loop, never two in the same turn", async () => {
    let turn = 0;
    let counting = true;
    const count = (): void => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 5 }, () =>
        spawnTurn().then(() => {
          seen.push(turn);
        }),
      ),
    );
    counting = false;
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });
});
