import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ProviderRegistry } from "../../provider-registry.ts";
import { ggufProvider, resolveGgufPath } from "./gguf-provider.ts";
import { LlamaRuntime } from "./llama-runtime.ts";

const REPO = fileURLToPath(new URL("../../../../../../", import.meta.url));
const MODEL = path.join(REPO, "..", "shared", "models", "llama-2-tiny-random.gguf");
const haveModel = existsSync(MODEL);
if (!haveModel) console.warn(`GGUF provider preflight test skipped: ${MODEL} is missing.`);

describe("the gguf provider in the registry", () => {
  const runtime = new LlamaRuntime({ maxThreads: 1 });
  const registry = new ProviderRegistry();
  registry.register(ggufProvider({ runtime }));

  afterAll(async () => {
    await runtime.dispose();
  });

  it("resolves gguf:<path> to an embedded model that calls tools", async () => {
    const resolved = await registry.resolve("gguf:/models/q4.gguf", { env: {} });
    expect(resolved.spec).toEqual({ provider: "gguf", model: "/models/q4.gguf" });
    expect(resolved.supportsTools).toBe(true);
    expect(resolved.model).toMatchObject({
      specificationVersion: "v4",
      provider: "gguf",
      modelId: "/models/q4.gguf",
    });
  });

  // The spec is what a session records and --resume (from any folder) or the app resolves
  // again: "gguf:m.gguf" resumed from another folder named another file, or none.
  it.each([
    ["models/q4.gguf", path.resolve("models/q4.gguf")],
    ["./q4.gguf", path.resolve("q4.gguf")],
    ["~/models/q4.gguf", path.join(os.homedir(), "models", "q4.gguf")],
  ])(
    "records gguf:%s by its absolute path, so a resume elsewhere runs the same file",
    async (given, file) => {
      const resolved = await registry.resolve(`gguf:${given}`, { env: { LATHE_GGUF_CONTEXT_SIZE: "256" } });
      expect(resolved.spec).toEqual({ provider: "gguf", model: file });
    },
  );

  it.runIf(haveModel)(
    "plans for the context the model will get, from the file's header, before it loads",
    async () => {
      // The tiny model was trained for fewer than 8192 tokens: it gets (and plans for) all of them.
      const resolved = await registry.resolve(`gguf:${MODEL}`, { env: {} });
      const prepared = await (
        resolved.model as unknown as { load(): Promise<{ contextSize: number }> }
      ).load();
      expect(resolved.contextTokens).toBe(prepared.contextSize);
      expect(resolved.contextTokens).toBeLessThanOrEqual(8192);
      const asked = await registry.resolve(`gguf:${MODEL}`, { env: { LATHE_GGUF_CONTEXT_SIZE: "256" } });
      expect(asked.contextTokens).toBe(256);
    },
  );

  it("fails the preflight with the path when the file is missing", async () => {
    const missing = path.join(os.tmpdir(), "lathe-no-such-model.gguf");
    const resolved = await registry.resolve(`gguf:${missing}`, { env: {} });
    await expect(resolved.preflight?.()).rejects.toThrow(`No GGUF file at ${missing}`);
  });

  it.skipIf(!haveModel)("passes the preflight by loading the model", async () => {
    const resolved = await registry.resolve(`gguf:${MODEL}`, {
      env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_CONTEXT_SIZE: "256" },
    });
    await expect(resolved.preflight?.()).resolves.toBeUndefined();
  });

  // The memory check ran on the first model call: the run had started, failed, and offered
  // --resume on a session that would fail the same way. The preflight makes the context now.
  it.skipIf(!haveModel)("refuses in the preflight a context too large for the memory free", async () => {
    const small = new LlamaRuntime({ maxThreads: 1, freeMemory: () => 40 * 1024 ** 2 });
    try {
      const tight = new ProviderRegistry();
      tight.register(ggufProvider({ runtime: small }));
      const resolved = await tight.resolve(`gguf:${MODEL}`, {
        env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_CONTEXT_SIZE: "4096" },
      });
      await expect(resolved.preflight?.()).rejects.toMatchObject({
        code: "model_config",
        message: expect.stringMatching(
          /^A context of 4096 tokens needs about \d+ MB of memory on this model, and 40 MB is free/,
        ),
      });
    } finally {
      await small.dispose();
    }
  });

  it.skipIf(!haveModel)(
    "says once, in the preflight, that a context beyond the model's trained size may turn its answers to nonsense",
    async () => {
      const beyond = await registry.resolve(`gguf:${MODEL}`, {
        env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_CONTEXT_SIZE: "8192" },
      });
      await expect(beyond.preflight?.()).resolves.toEqual([
        `LATHE_GGUF_CONTEXT_SIZE=8192 is more than the 4096 tokens ${MODEL} was trained for: once the conversation grows past about 4096 tokens, its answers may turn to nonsense. Set LATHE_GGUF_CONTEXT_SIZE to 4096 or less, unless you know this model reaches further.`,
      ]);
      // Its trained size, or the default (the smaller of 8192 and that), says nothing.
      for (const env of [{ LATHE_GGUF_CONTEXT_SIZE: "4096" }, {}]) {
        const within = await registry.resolve(`gguf:${MODEL}`, { env: { LATHE_GGUF_THREADS: "1", ...env } });
        await expect(within.preflight?.()).resolves.toBeUndefined();
      }
    },
  );

  const badTuning: [string, string][] = [
    ["LATHE_GGUF_THREADS", "many"],
    ["LATHE_GGUF_THREADS", "0"],
  ];
  for (const [variable, value] of badTuning) {
    it(`refuses ${variable}=${value} with a message that says what to write`, async () => {
      await expect(registry.resolve("gguf:/m.gguf", { env: { [variable]: value } })).rejects.toThrow(
        `${variable} must be a whole number of at least 1, not "${value}".`,
      );
    });
  }
});

// `abc` and `-5` were refused saying only "at least 1", `1e9` was taken as a billion tokens, and
// `1` ran with 256 tokens without a word until the context overflowed.
describe("LATHE_GGUF_CONTEXT_SIZE", () => {
  const runtime = new LlamaRuntime({ maxThreads: 1 });
  const registry = new ProviderRegistry();
  registry.register(ggufProvider({ runtime }));

  afterAll(async () => {
    await runtime.dispose();
  });

  it.each(["abc", "-5", "1e9", "1.5", "0x100", "99999999999"])(
    "refuses %s, naming the variable, the range it takes and what to set",
    async (value) => {
      await expect(
        registry.resolve("gguf:/m.gguf", { env: { LATHE_GGUF_CONTEXT_SIZE: value } }),
      ).rejects.toMatchObject({
        code: "model_config",
        message: `LATHE_GGUF_CONTEXT_SIZE is "${value}", which is not a context size: set it to a whole number of tokens from 256 to 2147483647, in digits (e.g. LATHE_GGUF_CONTEXT_SIZE=8192), or unset it to use the model's own (at most 8192).`,
      });
    },
  );

  it.skipIf(!haveModel)(
    "raises a value below 256 to 256, plans for 256, and says so with the range it takes",
    async () => {
      const resolved = await registry.resolve(`gguf:${MODEL}`, {
        env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_CONTEXT_SIZE: "1" },
      });
      expect(resolved.contextTokens).toBe(256);
      await expect(resolved.preflight?.()).resolves.toEqual([
        "LATHE_GGUF_CONTEXT_SIZE=1 is below 256, the smallest context llama.cpp makes, so it was raised to 256 tokens. It takes a whole number of tokens from 256 to 2147483647, in digits (e.g. LATHE_GGUF_CONTEXT_SIZE=8192).",
      ]);
    },
  );
});

describe("resolveGgufPath", () => {
  // An address is not a file: read as a relative path it said "No GGUF file at <cwd>/https:/…".
  it.each([
    ["https://huggingface.co/org/repo/resolve/main/model-Q4_K_M.gguf", "https:"],
    ["http://127.0.0.1:8000/model.gguf", "http:"],
    ["hf:org/repo-GGUF:Q4_K_M", "hf:"],
    ["huggingface:org/repo-GGUF", "huggingface:"],
  ])("refuses the address %s, saying to download the file first", (given, scheme) => {
    let error: unknown;
    try {
      resolveGgufPath(given);
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ code: "model_config" });
    expect((error as Error).message).toBe(
      `"${given}" is an address (${scheme}), not a file: gguf: runs a GGUF file on this machine, and Lathe downloads no model. Download the file first (into $LATHE_HOME/models, ~/.lathe/models by default, the model picker lists it), then write gguf:<the file's path>.`,
    );
  });

  const cases: [string, string][] = [
    ["/abs/model.gguf", "/abs/model.gguf"],
    ["file:///abs/my%20model.gguf", "/abs/my model.gguf"],
    ["C:/models/m.gguf", path.resolve("C:/models/m.gguf")],
    ["~/models/m.gguf", path.join(os.homedir(), "models/m.gguf")],
    ["models/m.gguf", path.resolve("models/m.gguf")],
  ];
  for (const [given, expected] of cases) {
    it(`reads ${given} as ${expected}`, () => {
      expect(resolveGgufPath(given)).toBe(expected);
    });
  }
});
