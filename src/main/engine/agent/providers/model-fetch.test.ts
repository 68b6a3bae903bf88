import http from "node:http";
import type { AddressInfo } from "node:net";
import { streamText } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type FixtureReply,
  type FixtureServer,
} from "../../../../../test/fixtures/openai-compatible-server.ts";
import type { ModelTimeoutsSettings } from "../../config/lathe-settings.ts";
import { defaultProviderRegistry } from "../default-providers.ts";
import { modelFetch, NODE_FETCH_LIMIT_MS } from "./model-fetch.ts";

// Node's fetch cuts a silent answer at 300 s. A test cannot wait that long, so this file gives
// Node's fetch the same limits at 400 ms, with Node's own dispatcher class (the global one Node
// keeps under undici's documented symbol): the same cut, a thousand times sooner.
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
const SHORT_LIMIT_MS = 400;
const globals = globalThis as Record<symbol, unknown>;
let nodeDefault: unknown;

beforeAll(async () => {
  await fetch("data:,first"); // Node makes its global dispatcher at the first fetch.
  nodeDefault = globals[GLOBAL_DISPATCHER];
  const NodeAgent = (nodeDefault as { constructor: new (options: object) => unknown }).constructor;
  globals[GLOBAL_DISPATCHER] = new NodeAgent({ headersTimeout: SHORT_LIMIT_MS, bodyTimeout: SHORT_LIMIT_MS });
});
afterAll(() => {
  globals[GLOBAL_DISPATCHER] = nodeDefault;
});

let fixture: FixtureServer | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** The answer's text, or the error the stream reported. */
async function answer(reply: FixtureReply, timeouts?: ModelTimeoutsSettings): Promise<string> {
  fixture = await startOpenAICompatibleServer({ models: ["m"], replies: [reply] });
  const model = await defaultProviderRegistry().resolve("ollama:m", {
    providers: { ollama: { baseURL: fixture.baseURL, ...(timeouts ? { timeouts } : {}) } },
  });
  const result = streamText({
    model: model.model,
    prompt: "hi",
    maxRetries: 0,
    // The failure is read from the stream below; the SDK would also print it.
    onError: () => undefined,
  });
  let text = "";
  // The error and its causes: the SDK's, then fetch's, then undici's own (which limit cut it).
  const failed = (error: unknown): string => {
    const chain: string[] = [];
    for (let e = error; e instanceof Error; e = e.cause) chain.push(e.message);
    return `error: ${chain.join(" <- ")}`;
  };
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") text += part.text;
      if (part.type === "error") return failed(part.error);
    }
  } catch (error) {
    return failed(error);
  }
  return text;
}

// Above the limit, so Lathe's own watchdog is the one that decides (its limits, with room).
const LONG = NODE_FETCH_LIMIT_MS + 60_000;
const slowStart: FixtureReply = { text: "slow start", firstByteDelayMs: 3 * SHORT_LIMIT_MS };
const slowMiddle: FixtureReply = { text: "ok", eventDelayMs: 3 * SHORT_LIMIT_MS };

describe("model calls with settings that allow more silence than Node's fetch", () => {
  it("control: Node's fetch cuts an answer whose headers take longer than its limit", async () => {
    expect(await answer(slowStart)).toMatch(/^error: .*Headers Timeout/);
  });

  it("control: Node's fetch cuts an answer that pauses mid-body longer than its limit", async () => {
    expect(await answer(slowMiddle)).toMatch(/^error: .*Body Timeout/);
  });

  it("waits for the first word as long as firstByteMs says", async () => {
    expect(await answer(slowStart, { firstByteMs: LONG })).toBe("slow start");
  });

  it("waits between two pieces as long as idleMs says", async () => {
    expect(await answer(slowMiddle, { idleMs: LONG })).toBe("ok");
  });

  it("still stops the moment the call is aborted (how the watchdog ends a silent model)", async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const call = modelFetch({ firstByteMs: LONG })(`http://127.0.0.1:${port}/`, {
        signal: AbortSignal.timeout(200),
      });
      await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
