import { describe, expect, it } from "vitest";
import { BUILTIN_PROVIDER_NAMES } from "./builtin-provider-names.ts";
import { defaultProviderRegistry } from "./default-providers.ts";

describe("the built-in providers", () => {
  it("are the names --model is checked against before any provider loads", () => {
    expect([...BUILTIN_PROVIDER_NAMES].sort()).toEqual(defaultProviderRegistry().names());
  });

  it("a provider named alone through the registry says the model part is missing", async () => {
    await expect(defaultProviderRegistry().resolve("vllm")).rejects.toThrow(
      '"vllm" names the provider "vllm" but no model',
    );
  });
});
