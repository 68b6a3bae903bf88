import { notHttp, type OpenAICompatiblePreset } from "../providers/openai-compatible-provider.ts";
import { connectionFailure } from "../providers/connection-failure.ts";
import { notHttpAnswer } from "../providers/not-http-answer.ts";
import { describeTlsFailure, tlsFailure } from "../providers/tls-failure.ts";
import { errorChain } from "../../errors/error-message.ts";
import {
  getJson,
  llamaCppContext,
  lmStudioContext,
  ollamaLoadedContext,
  ollamaSetContext,
  originOf as origin,
  vllmContext,
  type Json,
} from "./server-context-window.ts";

/** One model a running server offers. */
interface ProbedModel {
  /** The name the server uses (the part after `PROVIDER:`). */
  name: string;
  /** Its context window in tokens, when the server says. */
  contextTokens?: number;
}

/** What a probe of one local server found. */
export interface ServerProbe {
  state: "running" | "stopped" | "error";
  models: ProbedModel[];
  /** Why it is not usable, and what to do ("not running — start it with …"). */
  message?: string;
}

interface ProbeOptions {
  /** How long the whole probe may take (default 1500 ms): a server that is not there must not stall the picker. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** An API key for the server, when settings name one. */
  apiKey?: string;
}

/**
 * Context sizes the servers report beside their OpenAI-compatible API: vLLM in `/v1/models`
 * (`max_model_len`), LM Studio in `/api/v0/models`, the llama.cpp server in `/props`, Ollama in
 * `/api/ps` (loaded models) and per model in `/api/show` (a `num_ctx` its Modelfile sets). A server that does not answer these keeps its models without a size.
 */
async function contextSizes(
  kind: string,
  baseURL: string,
  listed: readonly Json[],
  init: RequestInit,
  fetcher: typeof fetch,
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const root = origin(baseURL);
  if (kind === "vllm") {
    for (const m of listed) {
      const size = vllmContext(m);
      if (typeof m["id"] === "string" && size) sizes.set(m["id"], size);
    }
  } else if (kind === "lmstudio") {
    const body = await getJson(`${root}/api/v0/models`, init, fetcher).catch(() => undefined);
    for (const m of Array.isArray(body?.["data"]) ? (body["data"] as Json[]) : []) {
      const size = lmStudioContext(m);
      if (typeof m["id"] === "string" && size) sizes.set(m["id"], size);
    }
  } else if (kind === "llamacpp") {
    const props = await getJson(`${root}/props`, init, fetcher).catch(() => undefined);
    const size = llamaCppContext(props);
    if (size) for (const m of listed) if (typeof m["id"] === "string") sizes.set(m["id"], size);
  } else if (kind === "ollama") {
    // The context Ollama runs a model with: a loaded one's (`/api/ps`), else the `num_ctx` its
    // Modelfile sets (`/api/show`, one request per model: only for a reasonable number of them).
    // Not the context the model was trained for: Ollama does not run it with that.
    const ps = await getJson(`${root}/api/ps`, init, fetcher).catch(() => undefined);
    await Promise.all(
      listed.slice(0, 24).map(async (m) => {
        const name = m["id"];
        if (typeof name !== "string") return;
        const loaded = ollamaLoadedContext(ps, name);
        if (loaded) return void sizes.set(name, loaded);
        const shown = await getJson(
          `${root}/api/show`,
          { ...init, method: "POST", body: JSON.stringify({ model: name }) },
          fetcher,
        ).catch(() => undefined);
        const size = ollamaSetContext(shown);
        if (size) sizes.set(name, size);
      }),
    );
  }
  return sizes;
}

/**
 * Ask one local OpenAI-compatible server (at the base URL settings give it, else its usual port)
 * what it serves, within a short timeout. Never throws: a server that is not there is `stopped`
 * with how to start it, one that answers oddly is `error` with what it said.
 */
export async function probeLocalServer(
  preset: OpenAICompatiblePreset,
  baseURL: string,
  options: ProbeOptions = {},
): Promise<ServerProbe> {
  const timeoutMs = options.timeoutMs ?? 1_500;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const fetcher = options.fetch ?? fetch;
  const init: RequestInit = {
    signal,
    headers: {
      "content-type": "application/json",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
  };
  const where = origin(baseURL);
  const stopped = (why: string): ServerProbe => ({
    state: "stopped",
    models: [],
    message: `${preset.label} is not running on ${where} (${why}): ${preset.startHint}.`,
  });
  let response: Response;
  try {
    response = await fetcher(`${baseURL.replace(/\/+$/, "")}/models`, init);
  } catch (error) {
    const said = notHttpAnswer(error);
    if (said) return { state: "error", models: [], message: notHttp(preset, baseURL, said) };
    const code = connectionFailure(error);
    if (code) return stopped(code);
    if (timeout.aborted) return stopped(`no answer within ${timeoutMs} ms`);
    // fetch says only "fetch failed": what failed is in its causes.
    const tls = tlsFailure(error);
    if (tls)
      return {
        state: "error",
        models: [],
        message: describeTlsFailure(tls, `${preset.label} at ${where}`, `providers.${preset.name}.baseURL`),
      };
    return {
      state: "error",
      models: [],
      message: `${preset.label} at ${where} could not be asked: ${errorChain(error)}`,
    };
  }
  if (response.status === 401 || response.status === 403) {
    return {
      state: "error",
      models: [],
      message: `${preset.label} at ${where} refused the request (HTTP ${response.status}): set providers["${preset.name}"].apiKeyEnv to the variable that holds its key.`,
    };
  }
  if (!response.ok) {
    return {
      state: "error",
      models: [],
      message: `${preset.label} at ${where} answered HTTP ${response.status} to /models: is it the server you meant?`,
    };
  }
  const body = (await response.json().catch(() => undefined)) as Json | undefined;
  const listed = Array.isArray(body?.["data"]) ? (body["data"] as Json[]) : undefined;
  if (listed === undefined) {
    return {
      state: "error",
      models: [],
      message: `${preset.label} at ${where} answered /models with something that is not a model list.`,
    };
  }
  const sizes = await contextSizes(preset.name, baseURL, listed, init, fetcher).catch(
    () => new Map<string, number>(),
  );
  const models = listed
    .map((m) => m["id"])
    .filter((id): id is string => typeof id === "string" && id !== "")
    .map((name) => {
      const size = sizes.get(name);
      return size ? { name, contextTokens: size } : { name };
    });
  return {
    state: "running",
    models,
    ...(models.length === 0
      ? {
          message: `${preset.label} at ${where} is running but has no model${preset.pullHint ? `: ${preset.pullHint("<model>")}` : ""}.`,
        }
      : {}),
  };
}
