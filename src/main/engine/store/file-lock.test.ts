import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileLockTimeout, withFileLock } from "./file-lock.ts";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-lock-"));
  file = path.join(dir, "trust.json");
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const TIMING = { waitMs: 2_000, staleMs: 5_000 };

/** A live process that holds the lock for `ms` (it writes its pid, as withFileLock does), then lets go. */
function holdElsewhere(ms: number): Promise<{ pid: number; released: Promise<void> }> {
  const script = `const fs = require("node:fs"); const lock = ${JSON.stringify(`${file}.lock`)};
    fs.writeFileSync(lock, String(process.pid), { flag: "wx" }); console.log("held");
    setTimeout(() => { fs.unlinkSync(lock); process.exit(0); }, ${ms});`;
  const child = spawn(process.execPath, ["-e", script]);
  const released = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () => resolve({ pid: child.pid as number, released }));
    child.once("error", reject);
  });
}

/** The pid of a process that has ended. */
function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  return new Promise((resolve) => child.on("close", () => resolve(child.pid as number)));
}

describe("withFileLock", () => {
  it("runs the function holding the lock, returns its value, and lets go even when it throws", () => {
    expect(withFileLock(file, () => existsSync(`${file}.lock`), TIMING)).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(() =>
      withFileLock(
        file,
        () => {
          throw new Error("inside");
        },
        TIMING,
      ),
    ).toThrow("inside");
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("waits for another process to let go, then runs", async () => {
    const { released } = await holdElsewhere(300);
    const t0 = Date.now();
    withFileLock(file, () => undefined, TIMING); // blocks this thread; the other process goes on
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    await released;
  });

  it("gives up past its wait, naming the process that holds the lock", async () => {
    const { pid, released } = await holdElsewhere(1_500);
    expect(() => withFileLock(file, () => undefined, { waitMs: 300, staleMs: 5_000 })).toThrow(
      new FileLockTimeout(
        `${file} is locked by another Lathe process (pid ${pid}) that is changing it; try again in a moment, or remove ${file}.lock if no Lathe is running.`,
      ),
    );
    await released;
  });

  it.each([
    ["a process that has ended (kill -9)", async () => String(await deadPid()), 0],
    ["this very process, which does not hold it", async () => String(process.pid), 0],
    ["a live process, past the stale age", async () => String(process.ppid), 10_000],
    ["an older Lathe killed before it wrote its pid (empty)", async () => "", 3_000],
  ])("takes over a lock left by %s", async (_name, owner, ageMs) => {
    await writeFile(`${file}.lock`, await owner());
    if (ageMs > 0) {
      const then = new Date(Date.now() - ageMs);
      await utimes(`${file}.lock`, then, then);
    }
    const t0 = Date.now();
    expect(withFileLock(file, () => "ran", TIMING)).toBe("ran");
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("does not nest", () => {
    expect(() => withFileLock(file, () => withFileLock(file, () => 1, TIMING), TIMING)).toThrow(
      /does not nest/,
    );
  });

  it("keeps every change when processes update one file at once", async () => {
    await writeFile(file, "[]");
    const module = fileURLToPath(new URL("./file-lock.ts", import.meta.url));
    // Each process appends its own entries, one read-modify-write at a time, 40 times.
    const worker = (tag: string) => `import(${JSON.stringify(module)}).then(({ withFileLock }) => {
      const fs = require("node:fs");
      for (let i = 0; i < 40; i++) withFileLock(${JSON.stringify(file)}, () => {
        const list = JSON.parse(fs.readFileSync(${JSON.stringify(file)}, "utf8"));
        list.push("${tag}" + i);
        fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify(list));
      });
    });`;
    const run = (tag: string) =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, ["-e", worker(tag)], { stdio: "inherit" }).on("close", resolve),
      );
    expect(await Promise.all([run("a"), run("b"), run("c")])).toEqual([0, 0, 0]);
    const list = JSON.parse(await readFile(file, "utf8")) as string[];
    expect(list).toHaveLength(120);
  });

  it("the lock appears with its pid in it, and leaves no other file behind", async () => {
    const seen = withFileLock(file, () => readFileSync(`${file}.lock`, "utf8"), TIMING);
    expect(seen).toBe(String(process.pid));
    expect(await readdir(dir)).toEqual([]);
  });

  it("a fresh lock with no pid is being written: it is waited for, not taken, until it is old", async () => {
    await writeFile(`${file}.lock`, "");
    const t0 = Date.now();
    expect(withFileLock(file, () => "ran", { waitMs: 5_000, staleMs: 30_000 })).toBe("ran");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_500);
    expect(Date.now() - t0).toBeLessThan(4_000);
  });

  it("processes finding one left-over lock at once take it one at a time", async () => {
    const module = fileURLToPath(new URL("./file-lock.ts", import.meta.url));
    const inside = `${file}.inside`;
    const overlaps = path.join(dir, "overlaps.log");
    // Each worker waits for the same instant, then takes the lock once: while it holds it, no
    // other may (it marks `inside`, exclusively, for a moment).
    const worker = (startAt: number) => `import(${JSON.stringify(module)}).then(({ withFileLock }) => {
      const fs = require("node:fs");
      while (Date.now() < ${startAt}) {}
      withFileLock(${JSON.stringify(file)}, () => {
        try { fs.writeFileSync(${JSON.stringify(inside)}, "", { flag: "wx" }); }
        catch { fs.appendFileSync(${JSON.stringify(overlaps)}, "overlap\\n"); return; }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
        fs.unlinkSync(${JSON.stringify(inside)});
      }, { waitMs: 10_000, staleMs: 30_000 });
    });`;
    const run = (startAt: number) =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, ["-e", worker(startAt)], { stdio: "inherit" }).on("close", resolve),
      );
    for (let round = 0; round < 6; round++) {
      // Left over by a process killed with -9 while it held the lock.
      await writeFile(`${file}.lock`, String(await deadPid()));
      const startAt = Date.now() + 700;
      expect(await Promise.all([run(startAt), run(startAt), run(startAt), run(startAt)])).toEqual([
        0, 0, 0, 0,
      ]);
      expect(existsSync(overlaps) ? await readFile(overlaps, "utf8") : "", `round ${round}`).toBe("");
      expect(await readdir(dir)).toEqual([]);
    }
  }, 60_000);
});
