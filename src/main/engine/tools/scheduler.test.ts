import { describe, expect, it } from "vitest";
import { Scheduler } from "./scheduler.ts";

/**
 * Calls as a session issues them: each takes its slot in order, waits for its turn, runs, and
 * gives the slot back whatever happens. The log says when each started and ended.
 */
function session() {
  const s = new Scheduler();
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const gates = new Map<string, () => void>();
  /** Issue a call that runs until `finish(name)` (or throws, with `fail`). */
  const issue = (name: string, readOnly: boolean, fail = false): Promise<string> => {
    const slot = s.take(readOnly);
    return (async () => {
      try {
        await slot.turn;
        running++;
        maxRunning = Math.max(maxRunning, running);
        log.push(`start ${name}`);
        await new Promise<void>((resolve) => gates.set(name, resolve));
        log.push(`end ${name}`);
        running--;
        if (fail) throw new Error(`${name} failed`);
        return name;
      } finally {
        slot.release();
      }
    })();
  };
  const settle = () => new Promise((r) => setTimeout(r, 0));
  /** Let the calls whose turn came start, then end `name`. */
  const finish = async (name: string) => {
    await settle();
    const gate = gates.get(name);
    if (gate === undefined) throw new Error(`${name} has not started (log: ${log.join(", ")})`);
    gate();
    await settle();
  };
  return { s, log, issue, finish, settle, max: () => maxRunning };
}

describe("Scheduler", () => {
  it("runs read-only calls concurrently", async () => {
    const { issue, finish, settle, log, max } = session();
    const calls = ["r1", "r2", "r3", "r4"].map((name) => issue(name, true));
    await settle();
    expect(log).toEqual(["start r1", "start r2", "start r3", "start r4"]);
    for (const name of ["r3", "r1", "r4", "r2"]) await finish(name);
    expect(await Promise.all(calls)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(max()).toBe(4);
  });

  it("runs a write after the reads issued before it, alone, and holds later calls back", async () => {
    const { issue, finish, log } = session();
    const calls = [
      issue("r1", true),
      issue("r2", true),
      issue("w1", false),
      issue("r3", true),
      issue("w2", false),
    ];
    await finish("r2");
    await finish("r1");
    await finish("w1");
    await finish("r3");
    await finish("w2");
    await Promise.all(calls);
    expect(log).toEqual([
      "start r1",
      "start r2",
      "end r2",
      "end r1",
      "start w1",
      "end w1",
      "start r3",
      "end r3",
      "start w2",
      "end w2",
    ]);
  });

  it("keeps writes in issue order, one at a time", async () => {
    const { issue, finish, settle, log, max } = session();
    const calls = [issue("w1", false), issue("w2", false), issue("w3", false)];
    await settle();
    expect(log).toEqual(["start w1"]);
    for (const name of ["w1", "w2", "w3"]) await finish(name);
    await Promise.all(calls);
    expect(log).toEqual(["start w1", "end w1", "start w2", "end w2", "start w3", "end w3"]);
    expect(max()).toBe(1);
  });

  it("carries on after a failed call", async () => {
    const { issue, finish } = session();
    const failed = issue("w1", false, true).then(
      () => "went on",
      (err: Error) => err.message,
    );
    const next = issue("w2", false);
    await finish("w1");
    expect(await failed).toBe("w1 failed");
    await finish("w2");
    await expect(next).resolves.toBe("w2");
  });

  it.each([
    { name: "a read behind a write", first: false, second: true, held: true },
    { name: "a write behind a write", first: false, second: false, held: true },
    { name: "a write behind a read", first: true, second: false, held: true },
    { name: "a read beside a read", first: true, second: true, held: false },
  ])("says at once when a call is held back: $name", async ({ first, second, held }) => {
    const s = new Scheduler();
    const blocker = s.take(first);
    const later = s.take(second);
    expect(later.held()).toBe(held);
    await blocker.turn;
    blocker.release();
    await later.turn;
    expect(later.held()).toBe(false);
    later.release();
    // Once everything is given back, nothing holds the next call.
    const free = s.take(false);
    expect(free.held()).toBe(false);
    free.release();
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
