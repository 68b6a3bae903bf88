// The runtime that holds the embedded models, on the tiny random GGUF in ../shared/models: what
// it refuses before asking llama.cpp, and what it keeps loaded.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LlamaRuntime, releaseSharedLlamaRuntime, sharedLlamaRuntime } from "./llama-runtime.ts";

const REPO = fileURLToPath(new URL("../../../../../../", import.meta.url));
const MODEL = path.join(REPO, "..", "shared", "models", "llama-2-tiny-random.gguf");
const haveModel = existsSync(MODEL);
if (!haveModel) {
  console.warn(
    `LlamaRuntime tests skipped: ${MODEL} is missing (the test models live in ../shared/models beside the checkout).`,
  );
}

const MB = 1024 ** 2;

const runtimes: LlamaRuntime[] = [];
function runtime(options: ConstructorParameters<typeof LlamaRuntime>[0] = {}): LlamaRuntime {
  const made = new LlamaRuntime({ maxThreads: 1, ...options });
  runtimes.push(made);
  return made;
}
afterEach(async () => {
  for (const made of runtimes.splice(0)) await made.dispose();
});

describe.skipIf(!haveModel)("a context that does not fit in memory", () => {
  // llama.cpp was asked anyway, and node-llama-cpp's own check first simulates the context: with
  // LATHE_GGUF_CONTEXT_SIZE=2000000000 that allocated until the OS killed the process, a minute
  // later, with nothing said (and other programs at risk). The free memory is made small here so
  // the test itself never asks for much.
  it("is refused before llama.cpp is asked, naming the largest context that fits", async () => {
    const small = runtime({ freeMemory: () => 40 * MB });
    const refused = small.lease(MODEL, { contextSize: 4096, threads: 1 });
    await expect(refused).rejects.toMatchObject({
      code: "model_config",
      message: expect.stringMatching(
        /^A context of 4096 tokens needs about \d+ MB of memory on this model, and 40 MB is free: set LATHE_GGUF_CONTEXT_SIZE to at most \d+, or close other programs\.$/,
      ),
    });
    const fitting = Number(
      /at most (\d+)/.exec(((await refused.catch((e: unknown) => e)) as Error).message)?.[1],
    );
    expect(fitting).toBeGreaterThanOrEqual(256);
    expect(fitting).toBeLessThan(4096);
    // What it names really fits: that context is created.
    const lease = await small.lease(MODEL, { contextSize: fitting, threads: 1 });
    expect(lease.sequence.contextSize).toBeGreaterThanOrEqual(fitting);
    lease.release();
  });

  it("says so when even the smallest context does not fit", async () => {
    const none = runtime({ freeMemory: () => 1 * MB });
    await expect(none.lease(MODEL, { contextSize: 4096, threads: 1 })).rejects.toMatchObject({
      code: "model_config",
      message: expect.stringMatching(/is free: close other programs or pick a smaller model\.$/),
    });
  });

  it("counts every run a context serves at once", async () => {
    const small = runtime({ freeMemory: () => 40 * MB });
    await expect(small.lease(MODEL, { contextSize: 1024, sequences: 8, threads: 1 })).rejects.toMatchObject({
      code: "model_config",
      message: expect.stringMatching(/^A context of 1024 tokens for 8 runs at once needs about/),
    });
  });

  it("a context that fits is created as before", async () => {
    const lease = await runtime().lease(MODEL, { contextSize: 1024, threads: 1 });
    expect(lease.sequence.contextSize).toBeGreaterThanOrEqual(1024);
    lease.release();
  });
});

describe.skipIf(!haveModel)("models no call uses any more", () => {
  // The app's server (and the desktop app) kept every GGUF model it ever ran loaded until it quit:
  // switching the picker from one model to another held both in memory, and so on for each.
  let dir: string;
  let other: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-runtime-"));
    other = path.join(dir, "other.gguf"); // another model file, as far as the runtime can tell
    await symlink(MODEL, other);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function used(on: LlamaRuntime, file: string) {
    const lease = await on.lease(file, { contextSize: 256, threads: 1 });
    lease.release();
    return lease.model;
  }

  it("are freed when another model loads, once idle for keepOnSwitchMs", async () => {
    const switching = runtime({ keepOnSwitchMs: 0 });
    const first = await used(switching, MODEL);
    expect(first.disposed).toBe(false);
    const second = await used(switching, other);
    expect(first.disposed).toBe(true);
    expect(second.disposed).toBe(false);
    // The first model loads again when it is asked for.
    const again = await used(switching, MODEL);
    expect(again.disposed).toBe(false);
    expect(second.disposed).toBe(true);
  });

  it("are kept while a call holds them, and freed after keepIdleMs once none does", async () => {
    const switching = runtime({ keepOnSwitchMs: 0, keepIdleMs: 200 });
    const held = await switching.lease(MODEL, { contextSize: 256, threads: 1 });
    const second = await used(switching, other);
    expect(held.model.disposed).toBe(false); // in use: another model loading does not free it
    expect(second.disposed).toBe(false);
    held.release();
    const deadline = Date.now() + 10_000;
    while (!(held.model.disposed && second.disposed) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect([held.model.disposed, second.disposed]).toEqual([true, true]);
  });

  it("are kept when they were used a moment ago (a run between two steps)", async () => {
    const switching = runtime(); // the defaults: 30 s before a switch frees one
    const first = await used(switching, MODEL);
    const second = await used(switching, other);
    expect([first.disposed, second.disposed]).toEqual([false, false]);
  });
});

describe.skipIf(!haveModel)("a GGUF file cut off before its end (an unfinished download)", () => {
  // A 10-byte copy said "Cannot read properties of undefined (reading 'architecture')", the
  // words of node-llama-cpp's reader, which reads a cut-off header without complaint.
  let dir: string;
  let whole: Buffer;
  // One runtime for every case, freed once at the end, as the app's is.
  const shared = new LlamaRuntime({ maxThreads: 1 });
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-truncated-"));
    whole = await readFile(MODEL);
  });
  afterAll(async () => {
    await shared.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    [
      10,
      /is truncated, not a complete GGUF file: it has 10 bytes, fewer than the 24 every GGUF header takes\./,
    ],
    [
      100,
      /is truncated, not a complete GGUF file: it has 100 bytes, fewer than the [\d,]+ its header takes\./,
    ],
    [
      5_000,
      /is truncated, not a complete GGUF file: it has 5,000 bytes, fewer than the [\d,]+ its header takes\./,
    ],
    // The header is whole, the tensors are not.
    [
      900_000,
      /is truncated, not a complete GGUF file: it has 900,000 bytes, fewer than the 1,750,560 its header and tensors take\./,
    ],
  ])("of %i bytes says it is truncated and to download it again", async (bytes, message) => {
    const file = path.join(dir, `cut-${bytes}.gguf`);
    await writeFile(file, whole.subarray(0, bytes));
    const error = await shared.model(file).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({ code: "model_unavailable", message: expect.stringMatching(message) });
    expect(error?.message).toContain(file);
    expect(error?.message).toMatch(/download the model again\.$/);
    expect(error?.message).not.toContain("Cannot read properties");
  });
});

describe.skipIf(!haveModel)("the process-wide runtime", () => {
  // `lathe run` in the CLI's daemon: the process goes on after the run, and a model the run loaded
  // must not stay in its memory for the ten idle minutes the app keeps one.
  it("frees its models when released, and a later use starts afresh", async () => {
    const before = sharedLlamaRuntime();
    expect(sharedLlamaRuntime()).toBe(before);
    const lease = await before.lease(MODEL, { contextSize: 256, threads: 1 });
    lease.release();
    expect(lease.model.disposed).toBe(false); // kept for the next call, as the app wants
    await releaseSharedLlamaRuntime();
    expect(lease.model.disposed).toBe(true);
    const after = sharedLlamaRuntime();
    expect(after).not.toBe(before);
    await releaseSharedLlamaRuntime();
    await releaseSharedLlamaRuntime(); // nothing loaded: nothing to do
  });
});
