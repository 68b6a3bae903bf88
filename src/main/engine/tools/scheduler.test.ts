import { describe, expect, it } from "vitest";
import { Scheduler } from "./scheduler.ts";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recorder() {
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const task = (name: string, ms: number) => async () => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    log.push(`start ${name}`);
    await delay(ms);
    log.push(`end ${name}`);
    running--;
    return name;
  };
  return { log, task, max: () => maxRunning };
}

describe("Scheduler", () => {
  it("runs read-only calls concurrently", async () => {
    const s = new Scheduler();
    const r = recorder();
    const t0 = performance.now();
    await Promise.all([1, 2, 3, 4].map((i) => s.run(true, r.task(`r${i}`, 40))));
    expect(r.max()).toBe(4);
    expect(performance.now() - t0).toBeLessThan(150);
  });

  it("runs a write after the reads issued before it, alone, and holds later calls back", async () => {
    const s = new Scheduler();
    const r = recorder();
    await Promise.all([
      s.run(true, r.task("r1", 30)),
      s.run(true, r.task("r2", 10)),
      s.run(false, r.task("w1", 10)),
      s.run(true, r.task("r3", 5)),
      s.run(false, r.task("w2", 5)),
    ]);
    const at = (e: string) => r.log.indexOf(e);
    expect(at("start w1")).toBeGreaterThan(at("end r1"));
    expect(at("start w1")).toBeGreaterThan(at("end r2"));
    expect(at("start r3")).toBeGreaterThan(at("end w1"));
    expect(at("start w2")).toBeGreaterThan(at("end r3"));
  });

  it("keeps writes in issue order even when an earlier one is slower", async () => {
    const s = new Scheduler();
    const r = recorder();
    await Promise.all([
      s.run(false, r.task("w1", 30)),
      s.run(false, r.task("w2", 1)),
      s.run(false, r.task("w3", 1)),
    ]);
    expect(r.log).toEqual(["start w1", "end w1", "start w2", "end w2", "start w3", "end w3"]);
    expect(r.max()).toBe(1);
  });

  it("carries on after a failed call", async () => {
    const s = new Scheduler();
    const failed = s.run(false, async () => {
      throw new Error("boom");
    });
    await expect(failed).rejects.toThrow("boom");
    await expect(s.run(false, async () => "next")).resolves.toBe("next");
  });

  it.each([
    { name: "a read behind a write", first: false, second: true, held: true },
    { name: "a write behind a write", first: false, second: false, held: true },
    { name: "a write behind a read", first: true, second: false, held: true },
    { name: "a read beside a read", first: true, second: true, held: false },
  ])("says at once when a call is held back: $name", async ({ first, second, held }) => {
    const s = new Scheduler();
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    const blocker = s.run(first, () => gate);
    const said: string[] = [];
    const later = s.run(
      second,
      async () => said.push("ran"),
      () => said.push("held"),
    );
    expect(said).toEqual(held ? ["held"] : []);
    release();
    await Promise.all([blocker, later]);
    expect(said).toEqual(held ? ["held", "ran"] : ["ran"]);
    // Once everything settled, nothing holds the next call.
    const free: string[] = [];
    await s.run(
      false,
      async () => free.push("ran"),
      () => free.push("held"),
    );
    expect(free).toEqual(["ran"]);
  });

  it("a slot given back before its turn leaves the order: later calls wait only for the calls still before them", async () => {
    const s = new Scheduler();
    const w1 = s.take(false);
    const w2 = s.take(false);
    const r3 = s.take(true);
    const started: string[] = [];
    void w2.turn.then(() => started.push("w2"));
    void r3.turn.then(() => started.push("r3"));
    await w1.turn;
    expect([w2.held(), r3.held()]).toEqual([true, true]);
    w2.release();
    await Promise.resolve();
    // w1 still runs: the read behind the stopped write still waits for it.
    expect(r3.held()).toBe(true);
    w1.release();
    await r3.turn;
    expect(started).toEqual(["r3"]);
    r3.release();
  });
});
