import http from "node:http";
import type { AddressInfo } from "node:net";
import { OPENAI_COMPATIBLE_PRESETS } from "../../src/main/engine/agent/providers/openai-compatible-provider.ts";

/** A loopback port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `providers` settings that move every local server preset (Ollama, LM Studio, llama.cpp, vLLM)
 * off its default port to `port`, so a test never reaches whatever runs on this machine.
 */
export function localProvidersAt(port: number): Record<string, { baseURL: string }> {
  return Object.fromEntries(
    OPENAI_COMPATIBLE_PRESETS.filter((p) => p.defaultBaseURL !== undefined).map((p) => [
      p.name,
      { baseURL: `http://127.0.0.1:${port}/v1` },
    ]),
  );
}
