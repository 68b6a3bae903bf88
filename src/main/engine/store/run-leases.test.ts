import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type Db } from "./database.ts";
import { RunLeases } from "./run-leases.ts";

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-leases-"));
  db = openDatabase(path.join(dir, "lathe.db"));
});
afterEach(async () => {
  vi.useRealTimers();
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const TIMING = { heartbeatMs: 1_000, staleMs: 5_000 };
const noError = (err: unknown): never => {
  throw err;
};

/** A lease row as another process (or machine) left it. */
function leftBy(sessionId: string, row: { pid: number; host?: string; heartbeatAt?: number }): void {
  db.prepare(
    "INSERT INTO run_leases (session_id, token, pid, host, started_at, heartbeat_at) VALUES (?, 'theirs', ?, ?, ?, ?)",
  ).run(sessionId, row.pid, row.host ?? os.hostname(), 1_000, row.heartbeatAt ?? Date.now());
}

/** The pid of a process that has ended. */
function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  return new Promise((resolve) => child.on("close", () => resolve(child.pid as number)));
}

describe("run leases", () => {
  it("let one run hold a session; a second is told who holds it; after release it is free", () => {
    const leases = new RunLeases(db, TIMING);
    const first = leases.acquire("s1", noError);
    expect(first.lease).toBeDefined();
    const second = leases.acquire("s1", noError);
    expect(second.lease).toBeUndefined();
    expect(second.holder).toMatchObject({ pid: process.pid, host: os.hostname() });
    expect(leases.isThisProcess(second.holder!)).toBe(true);
    // Another session is not affected.
    leases.acquire("s2", noError).lease?.release();
    first.lease?.release();
    expect(leases.holder("s1")).toBeUndefined();
    const third = leases.acquire("s1", noError);
    expect(third.lease).toBeDefined();
    third.lease?.release();
  });

  it.each([
    ["a process on this machine that has ended", async () => ({ pid: await deadPid() }), true],
    ["a live process on this machine", async () => ({ pid: process.ppid }), false],
    // This process holds no lease under that token: the row came with a copy of the database.
    ["this process, under a token it does not hold", async () => ({ pid: process.pid }), true],
    ["a process on another machine, recently renewed", async () => ({ pid: 1, host: "elsewhere" }), false],
    [
      "a process on another machine, silent past the limit",
      async () => ({ pid: 1, host: "elsewhere", heartbeatAt: Date.now() - 6_000 }),
      true,
    ],
    [
      "a live process here, silent past the limit (hung)",
      async () => ({ pid: process.ppid, heartbeatAt: Date.now() - 6_000 }),
      true,
    ],
  ])("a lease left by %s: taken over = %s", async (_name, row, takenOver) => {
    leftBy("s1", await row());
    const leases = new RunLeases(db, TIMING);
    const attempt = leases.acquire("s1", noError);
    expect(attempt.lease !== undefined).toBe(takenOver);
    attempt.lease?.release();
  });

  it("renews a held lease, so a long run is never taken over", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const leases = new RunLeases(db, TIMING);
    const { lease } = leases.acquire("s1", noError);
    vi.advanceTimersByTime(20_000); // four times the stale limit, renewed every second
    expect(leases.holder("s1")).toMatchObject({ pid: process.pid });
    lease?.release();
    // Released, its timer is gone: nothing renews a row that is no longer there.
    vi.advanceTimersByTime(5_000);
    expect(leases.holder("s1")).toBeUndefined();
  });

  it("reports a renewal that fails, and goes on", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const leases = new RunLeases(db, TIMING);
    const errors: unknown[] = [];
    const { lease } = leases.acquire("s1", (err) => errors.push(err));
    db.exec("DROP TABLE run_leases");
    vi.advanceTimersByTime(2_500);
    expect(errors).toHaveLength(2);
    expect(String(errors[0])).toMatch(/no such table: run_leases/);
    expect(() => lease?.release()).toThrow(/no such table/);
  });
});
