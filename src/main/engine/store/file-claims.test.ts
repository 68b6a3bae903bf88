import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "./database.ts";
import { FileClaims } from "./file-claims.ts";

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-claims-"));
  db = openDatabase(path.join(dir, "lathe.db"));
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const TIMING = { waitMs: 200, staleMs: 60_000 };

/** A claim row as another process (or machine) left it. */
function leftBy(file: string, row: { pid: number; host?: string; claimedAt?: number }): void {
  db.prepare(
    "INSERT INTO file_claims (path, token, pid, host, claimed_at) VALUES (?, 'theirs', ?, ?, ?)",
  ).run(file, row.pid, row.host ?? os.hostname(), row.claimedAt ?? Date.now());
}

/** The pid of a process that has ended. */
function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  return new Promise((resolve) => child.on("close", () => resolve(child.pid as number)));
}

const claimedPaths = (): string[] =>
  (db.prepare("SELECT path FROM file_claims ORDER BY path").all() as Array<{ path: string }>).map(
    (r) => r.path,
  );

describe("file claims", () => {
  it("make a second claim of a file wait until the first lets go, then take it", async () => {
    const claims = new FileClaims(db, { waitMs: 10_000, staleMs: 60_000 });
    const first = await claims.claim(["/w/a.txt"]);
    let secondDone = false;
    const second = claims.claim(["/w/a.txt"]).then((r) => {
      secondDone = true;
      return r;
    });
    // Still waiting after several polls.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(secondDone).toBe(false);
    first.release?.();
    const taken = await second;
    expect(taken.release).toBeDefined();
    taken.release?.();
    expect(claimedPaths()).toEqual([]);
  });

  it("let claims of different files go side by side", async () => {
    const claims = new FileClaims(db, TIMING);
    const a = await claims.claim(["/w/a.txt"]);
    const b = await claims.claim(["/w/b.txt"]);
    expect([a.release, b.release].every(Boolean)).toBe(true);
    expect(claimedPaths()).toEqual(["/w/a.txt", "/w/b.txt"]);
  });

  it("name the live holder when it keeps the file past the wait, and take none of the call's files", async () => {
    const claims = new FileClaims(db, TIMING);
    leftBy("/w/b.txt", { pid: process.ppid });
    const refused = await claims.claim(["/w/a.txt", "/w/b.txt"]);
    expect(refused.release).toBeUndefined();
    expect(refused.holder).toEqual({ path: "/w/b.txt", pid: process.ppid, host: os.hostname() });
    expect(claimedPaths()).toEqual(["/w/b.txt"]);
  });

  it.each([
    ["its process has ended (kill -9)", async () => ({ pid: await deadPid() })],
    ["it is older than staleMs (a hung process)", () => Promise.resolve({ pid: process.ppid, claimedAt: 0 })],
    [
      "it is in this process's name but not held here (a copied database)",
      () => Promise.resolve({ pid: process.pid }),
    ],
  ])("take over a claim left behind when %s", async (_, row) => {
    leftBy("/w/a.txt", await row());
    const taken = await new FileClaims(db, TIMING).claim(["/w/a.txt"]);
    expect(taken.release).toBeDefined();
  });

  it("keep a claim of a process on another machine, which cannot be looked up", async () => {
    leftBy("/w/a.txt", { pid: await deadPid(), host: "another-machine" });
    const refused = await new FileClaims(db, TIMING).claim(["/w/a.txt"]);
    expect(refused.holder?.host).toBe("another-machine");
  });

  it("stop waiting when the call is aborted", async () => {
    const claims = new FileClaims(db, { waitMs: 10_000, staleMs: 60_000 });
    await claims.claim(["/w/a.txt"]);
    const controller = new AbortController();
    const waiting = claims.claim(["/w/a.txt"], controller.signal);
    controller.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
  });
});
