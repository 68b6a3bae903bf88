import net, { type AddressInfo } from "node:net";
import { generateText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type FixtureServer,
} from "../../../../../test/fixtures/openai-compatible-server.ts";
import { closedPort } from "../../../../../test/support/closed-port.ts";
import { defaultProviderRegistry } from "../default-providers.ts";
import { ModelError } from "../model-error.ts";
import type { ResolveOptions } from "../provider-registry.ts";

async function failure(run: () => Promise<unknown>): Promise<ModelError> {
  try {
    await run();
  } catch (err) {
    if (ModelError.isModelError(err)) return err;
    throw err;
  }
  throw new Error("expected a ModelError");
}

let fixture: FixtureServer | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const registry = defaultProviderRegistry();

describe("OpenAI-compatible presets", () => {
  it.each([
    ["ollama", "http://127.0.0.1:11434/v1/models"],
    ["lmstudio", "http://127.0.0.1:1234/v1/models"],
    ["llamacpp", "http://127.0.0.1:8080/v1/models"],
    ["vllm", "http://127.0.0.1:8000/v1/models"],
  ])("%s asks %s by default", async (provider, url) => {
    const asked: string[] = [];
    const fetchStub = (async (input: string | URL | Request) => {
      asked.push(String(input));
      return new Response(JSON.stringify({ data: [{ id: "m" }] }), { status: 200 });
    }) as typeof fetch;
    await (await registry.resolve(`${provider}:m`, { fetch: fetchStub })).preflight?.();
    expect(asked).toEqual([url]);
  });

  it.each([
    [
      "ollama",
      "Ollama is not running on http://127.0.0.1:PORT: start it with `ollama serve` or pick another provider",
    ],
    [
      "lmstudio",
      "LM Studio is not running on http://127.0.0.1:PORT: start its server with `lms server start`",
    ],
    ["llamacpp", "The llama.cpp server is not running on http://127.0.0.1:PORT: start it with `llama-server"],
    ["vllm", "vLLM is not running on http://127.0.0.1:PORT: start it with `vllm serve <model>`"],
    ["openai-compatible", "The OpenAI-compatible server is not running on http://127.0.0.1:PORT"],
  ])("%s says clearly that nothing runs at a closed port, and how to start it", async (provider, says) => {
    const port = await closedPort();
    const options: ResolveOptions = { providers: { [provider]: { baseURL: `http://127.0.0.1:${port}/v1` } } };
    const model = await registry.resolve(`${provider}:m`, options);
    const error = await failure(() => model.preflight!());
    expect(error.code).toBe("model_unavailable");
    expect(error.message).toContain(says.replace("PORT", String(port)));
    expect(error.message).toContain("ECONNREFUSED");
    // The same explanation for a model call that fails to connect mid-run.
    expect(model.explainError?.(error.cause)).toBe(error.message);
  });

  // Node's fetch refuses some ports outright, before any connection (the "bad ports" of the Fetch
  // standard: X11's 6000, SIP's 5060, IRC's 6667…), with a bare "fetch failed".
  it.each([6000, 5060, 6667, 1])(
    "a baseURL on port %i, which fetch refuses, says so and what to do",
    async (port) => {
      const options: ResolveOptions = {
        providers: { "openai-compatible": { baseURL: `http://127.0.0.1:${port}/v1` } },
      };
      const model = await registry.resolve("openai-compatible:m", options);
      const error = await failure(() => model.preflight!());
      expect(error.code).toBe("model_config");
      expect(error.message).toBe(
        `The OpenAI-compatible server at http://127.0.0.1:${port} cannot be reached: Node's fetch refuses port ${port} (one of the ports it blocks for safety). Run the server on another port and correct providers["openai-compatible"].baseURL in settings.`,
      );
      expect(model.explainError?.(error.cause)).toBe(error.message);
    },
  );

  // Another program on the port (an SSH server, a database) answers, but not in HTTP: fetch
  // said only "fetch failed".
  it("says that what answers on the port does not speak HTTP, naming the setting", async () => {
    const sockets = new Set<net.Socket>();
    const other = net.createServer((socket) => {
      sockets.add(socket);
      socket.end("SSH-2.0-OpenSSH_9.6\r\n");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const { port } = other.address() as AddressInfo;
    try {
      const model = await registry.resolve("ollama:llama3.2", {
        providers: { ollama: { baseURL: `http://127.0.0.1:${port}/v1` } },
      });
      const error = await failure(() => model.preflight!());
      expect(error.code).toBe("model_config");
      expect(error.message).toBe(
        `What answers at http://127.0.0.1:${port} is not Ollama: it does not speak HTTP (Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)). Another program may hold the port: correct providers["ollama"].baseURL in settings, or start Ollama on its own port.`,
      );
      expect(model.explainError?.(error.cause)).toBe(error.message);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("lists the models the endpoint serves", async () => {
    fixture = await startOpenAICompatibleServer({ models: ["alpha", "beta:7b"], replies: [] });
    const models = await registry.listModels("openai-compatible", {
      providers: { "openai-compatible": { baseURL: fixture.baseURL } },
    });
    expect(models).toEqual(["alpha", "beta:7b"]);
  });

  it("names the models Ollama has when it lacks the one asked for, and how to get it", async () => {
    fixture = await startOpenAICompatibleServer({ models: ["llama3.2:latest", "qwen2.5:7b"], replies: [] });
    const options = { providers: { ollama: { baseURL: fixture.baseURL } } };
    await expect((await registry.resolve("ollama:llama3.2", options)).preflight!()).resolves.toBeUndefined();
    const mistral = await registry.resolve("ollama:mistral", options);
    const error = await failure(() => mistral.preflight!());
    expect(error.message).toContain(`does not have the model "mistral". It has: llama3.2:latest, qwen2.5:7b`);
    expect(error.message).toContain("ollama pull mistral");
  });

  it("says how to download the model when Ollama has none at all yet", async () => {
    fixture = await startOpenAICompatibleServer({ models: [], replies: [] });
    const model = await registry.resolve("ollama:llama3.2", {
      providers: { ollama: { baseURL: fixture.baseURL } },
    });
    const error = await failure(() => model.preflight!());
    expect(error.code).toBe("model_unavailable");
    expect(error.message).toBe(
      `Ollama at ${new URL(fixture.baseURL).origin} has no models yet, so not "llama3.2": download it with \`ollama pull llama3.2\`.`,
    );
  });

  // The model can go between the preflight and the call (ollama rm), or the list may not say:
  // the server's own refusal of the call then gets the same fix.
  it.each([
    ["ollama", 'model "llama3.2" not found, try pulling it first', "`ollama pull llama3.2`"],
    ["lmstudio", 'Model "llama3.2" not found. Please specify a valid model.', "`lms get llama3.2`"],
  ])("%s refusing a call for a model it does not have says how to get it", async (provider, said, fix) => {
    const body = JSON.stringify({ error: { message: said, type: "api_error", param: null, code: null } });
    fixture = await startOpenAICompatibleServer({ models: ["llama3.2"], replies: [{ status: 404, body }] });
    const model = await registry.resolve(`${provider}:llama3.2`, {
      providers: { [provider]: { baseURL: fixture.baseURL } },
    });
    const error = await generateText({ model: model.model, prompt: "hi", maxRetries: 0 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    const explained = model.explainError?.(error);
    expect(explained).toContain(`does not have the model "llama3.2" (${said})`);
    expect(explained).toContain(fix);
  });

  it("accepts any model name on a server that serves whatever it was started with", async () => {
    fixture = await startOpenAICompatibleServer({ models: ["/models/tiny.gguf"], replies: [] });
    const model = await registry.resolve("llamacpp:anything", {
      providers: { llamacpp: { baseURL: fixture.baseURL } },
    });
    await expect(model.preflight!()).resolves.toBeUndefined();
  });

  it("needs a base URL for openai-compatible and says where to put it", async () => {
    let error: unknown;
    try {
      await registry.resolve("openai-compatible:m", {});
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ code: "model_config" });
    expect((error as Error).message).toContain('providers["openai-compatible"].baseURL');
  });

  it("reads the key from the variable settings name, sends it, and refuses an empty one", async () => {
    let authorization: string | null = null;
    const fetchStub = (async (_input: string | URL | Request, init?: RequestInit) => {
      authorization = new Headers(init?.headers).get("authorization");
      return new Response(JSON.stringify({ data: [] }), { status: 200 });
    }) as typeof fetch;
    const providers = { vllm: { apiKeyEnv: "VLLM_KEY" } };
    await (
      await registry.resolve("vllm:m", { providers, env: { VLLM_KEY: "sk-local" }, fetch: fetchStub })
    ).preflight!();
    expect(authorization).toBe("Bearer sk-local");
    await expect(registry.resolve("vllm:m", { providers, env: {} })).rejects.toThrow(
      /VLLM_KEY, but that environment variable is empty/,
    );
  });

  it("says the key is wrong when the endpoint refuses it", async () => {
    const fetchStub = (async () => new Response("{}", { status: 401 })) as unknown as typeof fetch;
    const model = await registry.resolve("vllm:m", { fetch: fetchStub });
    const error = await failure(() => model.preflight!());
    expect(error).toMatchObject({ code: "model_config" });
    expect(error.message).toContain("apiKeyEnv");
  });
});
