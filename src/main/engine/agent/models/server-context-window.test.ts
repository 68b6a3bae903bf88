import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type FixtureServer,
} from "../../../../../test/fixtures/openai-compatible-server.ts";
import { askServerContextWindow } from "./server-context-window.ts";

// A run asks the local server the context it runs the model with, each kind where it keeps it;
// against loopback stand-ins that answer those routes as the real servers do.

let server: FixtureServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODEL = "fixture-model";

interface Case {
  name: string;
  kind: string;
  routes?: Record<string, unknown>;
  modelFields?: Record<string, Record<string, unknown>>;
  tokens: number | undefined;
  notice?: RegExp;
}

const CASES: Case[] = [
  {
    name: "llama.cpp: /props default_generation_settings.n_ctx",
    kind: "llamacpp",
    routes: { "GET /props": { default_generation_settings: { n_ctx: 4096 }, total_slots: 1 } },
    tokens: 4096,
  },
  {
    name: "LM Studio: the loaded context of /api/v0/models/<id>",
    kind: "lmstudio",
    routes: {
      [`GET /api/v0/models/${MODEL}`]: {
        id: MODEL,
        state: "loaded",
        loaded_context_length: 8192,
        max_context_length: 131072,
      },
    },
    tokens: 8192,
  },
  {
    name: "LM Studio: the most it takes, when the model is not loaded",
    kind: "lmstudio",
    routes: {
      [`GET /api/v0/models/${MODEL}`]: { id: MODEL, state: "not-loaded", max_context_length: 32768 },
    },
    tokens: 32768,
  },
  {
    name: "vLLM: max_model_len in /v1/models",
    kind: "vllm",
    modelFields: { [MODEL]: { max_model_len: 16384 } },
    tokens: 16384,
  },
  {
    name: "Ollama: the context a loaded model runs with (/api/ps), over the Modelfile's",
    kind: "ollama",
    routes: {
      "GET /api/ps": {
        models: [{ name: `${MODEL}:latest`, model: `${MODEL}:latest`, context_length: 4096 }],
      },
      "POST /api/show": {
        parameters: "num_ctx                        8192",
        model_info: { "llama.context_length": 131072 },
      },
    },
    tokens: 4096,
  },
  {
    name: "Ollama: num_ctx the Modelfile sets, when the model is not loaded",
    kind: "ollama",
    routes: {
      "GET /api/ps": { models: [] },
      "POST /api/show": {
        parameters: 'stop                           "<|eot_id|>"\nnum_ctx                        12288',
        model_info: { "llama.context_length": 131072 },
      },
    },
    tokens: 12288,
  },
  {
    name: "Ollama: neither (not its trained context, which it does not run with): a notice names the setting",
    kind: "ollama",
    routes: {
      "GET /api/ps": { models: [] },
      "POST /api/show": { parameters: 'stop "<|eot_id|>"', model_info: { "llama.context_length": 131072 } },
    },
    tokens: undefined,
    notice: /cuts a conversation longer than that silently.*providers\.ollama\.contextTokens/,
  },
  {
    name: "a configured OpenAI-compatible server whose model list says it (vLLM)",
    kind: "openai-compatible",
    modelFields: { [MODEL]: { max_model_len: 2048 } },
    tokens: 2048,
  },
  {
    name: "a configured OpenAI-compatible server: nothing outside its API is asked, so no window, no notice",
    kind: "openai-compatible",
    routes: { "GET /props": { default_generation_settings: { n_ctx: 2048 } } },
    tokens: undefined,
  },
  {
    name: "llama.cpp answering /props oddly",
    kind: "llamacpp",
    routes: { "GET /props": { default_generation_settings: { n_ctx: "4096" } } },
    tokens: undefined,
  },
];

describe("askServerContextWindow", () => {
  it.each(CASES)("$name", async (c) => {
    server = await startOpenAICompatibleServer({
      models: [MODEL],
      replies: [{ text: "" }],
      ...(c.routes ? { routes: c.routes } : {}),
      ...(c.modelFields ? { modelFields: c.modelFields } : {}),
    });
    const answer = await askServerContextWindow({ kind: c.kind, baseURL: server.baseURL, model: MODEL });
    expect(answer.tokens).toBe(c.tokens);
    if (c.notice) expect(answer.notice).toMatch(c.notice);
    else expect(answer.notice).toBeUndefined();
  });

  it("asks afresh every time: a server restarted with another context is seen (a daemon lives long)", async () => {
    let nCtx: number | undefined;
    server = await startOpenAICompatibleServer({
      models: [MODEL],
      replies: [{ text: "" }],
      routes: {
        "GET /props": () =>
          nCtx === undefined ? undefined : { default_generation_settings: { n_ctx: nCtx } },
      },
    });
    const ask = () => askServerContextWindow({ kind: "llamacpp", baseURL: server!.baseURL, model: MODEL });
    expect((await ask()).tokens).toBeUndefined();
    nCtx = 6000;
    expect((await ask()).tokens).toBe(6000);
    nCtx = 2048;
    expect((await ask()).tokens).toBe(2048);
    expect(server.paths.filter((p) => p === "GET /props")).toHaveLength(3);
  });

  it("gives up within its timeout on a server that does not answer, and when nothing listens", async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const answer = await askServerContextWindow({
        kind: "ollama",
        baseURL: `http://127.0.0.1:${port}/v1`,
        model: MODEL,
        timeoutMs: 200,
      });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(answer.tokens).toBeUndefined();
      expect(answer.notice).toMatch(/providers\.ollama\.contextTokens/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
    const down = await askServerContextWindow({
      kind: "llamacpp",
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: MODEL,
    });
    expect(down).toEqual({});
  });
});
