import { describe, expect, it } from "vitest";
import { defaultProviderRegistry } from "../default-providers.ts";

const registry = defaultProviderRegistry();

describe("cloud providers", () => {
  it.each([
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["openai", "OPENAI_API_KEY"],
  ])("%s without a key says which variable to export", async (provider, variable) => {
    let message = "";
    try {
      await registry.resolve(`${provider}:some-model`, { env: {} });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`export ${variable}`);
    expect(message).toContain("never stores keys in files");
  });

  it.each([
    ["anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" }, "anthropic"],
    ["openai:gpt-4.1-mini", { OPENAI_API_KEY: "k" }, "openai"],
  ])("%s takes its key from the environment", async (spec, env, provider) => {
    const resolved = await registry.resolve(spec, { env });
    expect(typeof resolved.model === "object" && resolved.model.provider).toContain(provider);
    expect(resolved.spec.model).toBe(spec.split(":")[1]);
  });

  it.each([
    ["anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" }, 200_000],
    ["openai:gpt-4.1", { OPENAI_API_KEY: "k" }, 1_047_576],
    ["openai:some-new-model", { OPENAI_API_KEY: "k" }, undefined],
  ])(
    "%s plans for its known context window (unknown for a model it does not suggest)",
    async (spec, env, tokens) => {
      expect((await registry.resolve(spec, { env })).contextTokens).toBe(tokens);
      // What settings say wins.
      const providers = { [spec.split(":")[0] as string]: { contextTokens: 4096 } };
      expect((await registry.resolve(spec, { env, providers })).contextTokens).toBe(4096);
    },
  );

  it("takes the key from another variable named in settings, or from the keychain", async () => {
    await expect(
      registry.resolve("anthropic:m", {
        providers: { anthropic: { apiKeyEnv: "WORK_KEY" } },
        env: { WORK_KEY: "k" },
      }),
    ).resolves.toMatchObject({ spec: { provider: "anthropic", model: "m" } });
    await expect(
      registry.resolve("openai:m", { env: {}, secrets: (name) => (name === "openai" ? "k" : undefined) }),
    ).resolves.toMatchObject({ spec: { provider: "openai", model: "m" } });
    await expect(
      registry.resolve("openai:m", {
        providers: { openai: { apiKeyEnv: "WORK_KEY" } },
        env: { OPENAI_API_KEY: "k" },
      }),
    ).rejects.toThrow(/export WORK_KEY/);
  });

  it("lists every provider: the embedded one, local servers and cloud ones", async () => {
    expect(registry.names()).toEqual([
      "anthropic",
      "gguf",
      "llamacpp",
      "lmstudio",
      "ollama",
      "openai",
      "openai-compatible",
      "vllm",
    ]);
    await expect(registry.resolve("nope:m")).rejects.toThrow(
      /There is no model provider "nope"\. Use one of: anthropic, gguf, llamacpp/,
    );
  });
});

describe("a cloud provider answered by something else", () => {
  const PAGE =
    "<!doctype html><html><head><title>Blocked by WebFilter</title></head><body>Access denied</body></html>";
  /** A fetch that answers every request as a company's web filter does: a page, with status 200. */
  const filter: typeof fetch = async () =>
    new Response(PAGE, { status: 200, headers: { "content-type": "text/html; charset=utf-8" } });

  it.each([
    ["anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" }, "Anthropic"],
    ["openai:gpt-5", { OPENAI_API_KEY: "k" }, "OpenAI"],
  ])(
    "%s: a web page where the answer belongs says what answered and what to do",
    async (spec, env, label) => {
      const resolved = await registry.resolve(spec, { env, fetch: filter });
      const { streamText } = await import("ai");
      let error: unknown;
      const result = streamText({
        model: resolved.model,
        prompt: "Hello",
        maxRetries: 0,
        onError: ({ error: e }) => {
          error = e;
        },
      });
      await result.consumeStream();
      expect(String((error as Error | undefined)?.message)).toContain(
        `${label} answered with a web page, not a model's answer`,
      );
      expect(String((error as Error).message)).toContain("Blocked by WebFilter");
      expect(String((error as Error).message)).toContain("a company's web filter or a proxy");
    },
  );

  it.each([
    ["anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" }, "Anthropic"],
    ["openai:gpt-5", { OPENAI_API_KEY: "k" }, "OpenAI"],
  ])("%s: a filter's page with HTTP 403 is not taken for a refused key", async (spec, env, label) => {
    const blocked: typeof fetch = async () =>
      new Response(PAGE, { status: 403, headers: { "content-type": "text/html" } });
    const resolved = await registry.resolve(spec, { env, fetch: blocked });
    const { streamText } = await import("ai");
    let error: unknown;
    await streamText({
      model: resolved.model,
      prompt: "Hello",
      maxRetries: 0,
      onError: ({ error: e }) => {
        error = e;
      },
    }).consumeStream();
    const message = resolved.explainError?.(error) ?? "";
    expect(message).toContain(
      `${label} answered with a web page (HTTP 403: "Blocked by WebFilter Access denied")`,
    );
    expect(message).toContain("a company's web filter or a proxy");
    expect(message).not.toContain("check the key");
  });
});
