// The context window a local OpenAI-compatible server runs a model with, asked of the server
// itself beside its OpenAI-compatible API: each kind keeps it somewhere else. The model picker's
// probe (local-server-probe.ts) reads the same answers through the readers here.

export type Json = Record<string, unknown>;

/** A positive whole number, else undefined. */
export function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The origin of a base URL (`http://127.0.0.1:11434` of `…/v1`). */
export function originOf(baseURL: string): string {
  try {
    return new URL(baseURL).origin;
  } catch {
    return baseURL;
  }
}

/** A JSON object answer, or undefined for any other answer; rejects when the request fails. */
export async function getJson(
  url: string,
  init: RequestInit,
  fetcher: typeof fetch,
): Promise<Json | undefined> {
  const response = await fetcher(url, init);
  if (!response.ok) return undefined;
  const body = (await response.json().catch(() => undefined)) as unknown;
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Json) : undefined;
}

/** llama.cpp's `GET /props`: the context of its slots. */
export function llamaCppContext(props: Json | undefined): number | undefined {
  const settings = props?.["default_generation_settings"] as Json | undefined;
  return positive(settings?.["n_ctx"]) ?? positive(props?.["n_ctx"]);
}

/** One model of LM Studio's `/api/v0/models`: the context it is loaded with, else the most it takes. */
export function lmStudioContext(model: Json | undefined): number | undefined {
  return positive(model?.["loaded_context_length"]) ?? positive(model?.["max_context_length"]);
}

/** One model of vLLM's `/v1/models`. */
export function vllmContext(model: Json | undefined): number | undefined {
  return positive(model?.["max_model_len"]);
}

/** Whether an Ollama name is `model` (Ollama reads a name without a tag as `:latest`). */
function sameOllamaModel(name: unknown, model: string): boolean {
  return typeof name === "string" && (name === model || name === `${model}:latest`);
}

/** Ollama's `GET /api/ps`: the context a loaded model runs with now. */
export function ollamaLoadedContext(ps: Json | undefined, model: string): number | undefined {
  const running = Array.isArray(ps?.["models"]) ? (ps["models"] as Json[]) : [];
  const entry = running.find((m) => sameOllamaModel(m["name"], model) || sameOllamaModel(m["model"], model));
  return positive(entry?.["context_length"]);
}

/** Ollama's `POST /api/show`: the `num_ctx` the model's Modelfile sets, if it sets one. */
export function ollamaSetContext(show: Json | undefined): number | undefined {
  const parameters = show?.["parameters"];
  if (typeof parameters !== "string") return undefined;
  const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return match ? positive(Number(match[1])) : undefined;
}

/** What a run learns from the server about the model's window. */
export interface ServerContextWindow {
  /** The context the server runs the model with, when it said. */
  tokens?: number;
  /** Something to tell the person once, when not knowing it hurts (Ollama cuts silently). */
  notice?: string;
}

export interface AskContextOptions {
  /** Which server: an OpenAI-compatible preset's name (ollama, lmstudio, llamacpp, vllm, openai-compatible). */
  kind: string;
  /** Its base URL, ending in /v1 as settings write it. */
  baseURL: string;
  model: string;
  apiKey?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** How long the asking may take in all (default ASK_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** Short: the answer comes from a server on this machine, and the run does not wait long for it. */
export const ASK_TIMEOUT_MS = 1_000;

async function askServer(options: AskContextOptions, init: RequestInit, fetcher: typeof fetch) {
  const root = originOf(options.baseURL);
  const base = options.baseURL.replace(/\/+$/, "");
  const { model } = options;
  const get = (url: string): Promise<Json | undefined> => getJson(url, init, fetcher).catch(() => undefined);
  const listed = async (): Promise<Json | undefined> => {
    const list = await get(`${base}/models`);
    const data = Array.isArray(list?.["data"]) ? (list["data"] as Json[]) : [];
    return data.find((m) => m["id"] === model);
  };
  switch (options.kind) {
    case "llamacpp":
      return llamaCppContext(await get(`${root}/props`));
    case "lmstudio":
      return lmStudioContext(await get(`${root}/api/v0/models/${encodeURIComponent(model)}`));
    case "vllm":
      return vllmContext(await listed());
    case "ollama": {
      // A loaded model's context is the one it runs with; else the one its Modelfile sets, if any
      // (else the server's default, which no answer names).
      const [ps, show] = await Promise.all([
        get(`${root}/api/ps`),
        getJson(
          `${root}/api/show`,
          { ...init, method: "POST", body: JSON.stringify({ model }) },
          fetcher,
        ).catch(() => undefined),
      ]);
      return ollamaLoadedContext(ps, model) ?? ollamaSetContext(show);
    }
    default:
      // Some server at a configured URL, perhaps behind a gateway with a key: only its own model
      // list is asked (vLLM's says the window), nothing else on that host.
      return vllmContext(await listed());
  }
}

function ollamaNotice(model: string): string {
  return `Ollama does not say how much context it gives ${model} until it is loaded (nor does its Modelfile set num_ctx), and it cuts a conversation longer than that silently instead of refusing it. Set providers.ollama.contextTokens in settings to the context it runs with (OLLAMA_CONTEXT_LENGTH, else its default, as small as 4096 tokens) so Lathe summarises the older conversation before it is cut.`;
}

/**
 * Ask a local server the context window it runs `model` with, within a short timeout. Asked
 * afresh by every run (a daemon lives long: a server restarted with another context is seen by
 * the next run; the tasks of one run share its answer). Never rejects: a server that does not
 * say (or does not answer) leaves `tokens` out, with a notice for Ollama, which cuts long
 * conversations silently.
 */
export async function askServerContextWindow(options: AskContextOptions): Promise<ServerContextWindow> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? ASK_TIMEOUT_MS);
  const init: RequestInit = {
    signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    headers: {
      "content-type": "application/json",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
  };
  const tokens = await askServer(options, init, options.fetch ?? fetch).catch(() => undefined);
  if (tokens !== undefined) return { tokens };
  if (options.kind === "ollama" && options.signal?.aborted !== true)
    return { notice: ollamaNotice(options.model) };
  return {};
}
