import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { offloadWorkerEntry } from "./offload.ts";
import { JobError, JobTimeoutError, WorkerPool } from "./worker-pool.ts";

let dir: string;
let redos: string;
let pool: WorkerPool;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-pool-"));
  redos = path.join(dir, "redos.txt");
  await writeFile(redos, `${"a".repeat(40)}!\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await pool?.close();
});

/** A grep job that backtracks for hours: what only terminating its worker can stop. */
function backtracking(signal?: AbortSignal): Promise<unknown> {
  return pool.run(
    "grep.files",
    {
      pattern: "(a+)+(?=b)",
      ignoreCase: false,
      mode: "count",
      files: [{ absolute: redos, path: "redos.txt" }],
    },
    signal ? { signal } : {},
  );
}

describe("WorkerPool", () => {
  it("runs a named job on a worker and hands back its result", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 2);
    expect(await pool.run("json.parse", { json: '{"a":[1,2]}' })).toEqual({ a: [1, 2] });
    expect(pool.workers).toBe(1);
  });

  it("rejects with the job's own error, and the worker serves the next job", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 1);
    const failed = await pool.run("json.parse", { json: "{nope" }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(JobError);
    expect((failed as JobError).name).toBe("SyntaxError");
    expect(await pool.run("json.parse", { json: "2" })).toBe(2);
  });

  it("moves transferred buffers instead of copying them", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 1);
    const bytes = new TextEncoder().encode("héllo\n");
    const read = await pool.run(
      "read.text",
      { bytes, headBytes: 1000 },
      { transfer: [bytes.buffer as ArrayBuffer] },
    );
    expect(read).toMatchObject({ kind: "read", content: "héllo\n", totalLines: 1 });
    expect(bytes.byteLength).toBe(0);
  });

  it("stops a job that never yields by terminating its worker, then starts a fresh one", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 1);
    const started = performance.now();
    const outcome = await backtracking(AbortSignal.timeout(200)).catch((e: unknown) => e);
    expect((outcome as Error).name).toBe("TimeoutError");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(pool.workers).toBe(0);
    expect(await pool.run("json.parse", { json: "3" })).toBe(3);
  });

  it("stops a job that runs past its timeoutMs, counting only the time it ran", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 1);
    const first = new AbortController();
    const running = backtracking(first.signal).catch((e: unknown) => e);
    // Queued behind the first for longer than its own limit: not held against it.
    const queued = pool.run("json.parse", { json: "8" }, { timeoutMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    first.abort(new Error("enough"));
    expect(await queued).toBe(8);
    const started = performance.now();
    const outcome = await pool
      .run(
        "grep.files",
        {
          pattern: "(a+)+(?=b)",
          ignoreCase: false,
          mode: "count",
          files: [{ absolute: redos, path: "redos.txt" }],
        },
        { timeoutMs: 300 },
      )
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(JobTimeoutError);
    expect((outcome as JobTimeoutError).timeoutMs).toBe(300);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await running).toMatchObject({ message: "enough" });
    expect(await pool.run("json.parse", { json: "9" }, { timeoutMs: 300 })).toBe(9);
  });

  it("drops a queued job that is aborted, leaving the running one alone", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 1);
    const first = new AbortController();
    const running = backtracking(first.signal).catch((e: unknown) => e);
    const second = new AbortController();
    const queued = pool.run("json.parse", { json: "4" }, { signal: second.signal });
    second.abort(new Error("not needed"));
    await expect(queued).rejects.toThrow("not needed");
    expect(pool.workers).toBe(1);
    first.abort(new Error("enough"));
    expect(((await running) as Error).message).toBe("enough");
  });

  it("rejects what is queued or running when closed, and refuses new jobs", async () => {
    pool = new WorkerPool(offloadWorkerEntry(), 1);
    const running = backtracking().catch((e: Error) => e.message);
    const queued = pool.run("json.parse", { json: "5" }).catch((e: Error) => e.message);
    await pool.close();
    expect(await running).toMatch(/closed/);
    expect(await queued).toMatch(/closed/);
    await expect(pool.run("json.parse", { json: "6" })).rejects.toThrow(/closed/);
  });

  it("does not keep a process alive once its jobs are done (a CLI call exits on its own)", async () => {
    const offload = fileURLToPath(new URL("./offload.ts", import.meta.url));
    const script = path.join(dir, "one-job.mjs");
    await writeFile(
      script,
      `const { offload } = await import(${JSON.stringify(offload)});\nconsole.log(JSON.stringify(await offload("json.parse", { json: "[7]" })));\n`,
    );
    const out = execFileSync(process.execPath, [script], { encoding: "utf8", timeout: 20_000 });
    expect(out.trim()).toBe("[7]");
  });
});
