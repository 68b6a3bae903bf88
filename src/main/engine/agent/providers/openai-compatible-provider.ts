import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError } from "ai";
import { maskValues } from "../../audit/redact.ts";
import { ModelError } from "../model-error.ts";
import { acceptsImages } from "../model-images.ts";
import type { ProviderContext, ProviderDefinition, ResolvedModel } from "../provider-registry.ts";
import { connectionFailure, isDroppedConnection } from "./connection-failure.ts";
import { answerSnippet } from "./answer-snippet.ts";
import { notHttpAnswer } from "./not-http-answer.ts";
import { requireEventStream } from "./event-stream-answer.ts";
import { describeTlsFailure, tlsFailure } from "./tls-failure.ts";
import { askServerContextWindow } from "../models/server-context-window.ts";
import { modelFetch } from "./model-fetch.ts";

/** A local (or self-hosted) server that speaks the OpenAI chat completions API. */
export interface OpenAICompatiblePreset {
  name: string;
  /** How people call it in messages: "Ollama", "LM Studio". */
  label: string;
  defaultBaseURL?: string;
  /** How to start it, for the "not running" message. */
  startHint: string;
  /** Whether the server only answers for models it lists (so an unlisted model is an error). */
  strictModels: boolean;
  /** How to get a model it does not have yet. */
  pullHint?(model: string): string;
  /** Whether its model list names every model it can run (so an empty list means none is there yet). */
  listsEveryModel?: boolean;
}

export const OPENAI_COMPATIBLE_PRESETS: readonly OpenAICompatiblePreset[] = [
  {
    name: "ollama",
    label: "Ollama",
    defaultBaseURL: "http://127.0.0.1:11434/v1",
    startHint: "start it with `ollama serve`",
    strictModels: true,
    pullHint: (model) => `download it with \`ollama pull ${model}\``,
    listsEveryModel: true,
  },
  {
    name: "lmstudio",
    label: "LM Studio",
    defaultBaseURL: "http://127.0.0.1:1234/v1",
    startHint: "start its server with `lms server start` (or from LM Studio's Developer tab)",
    strictModels: true,
    pullHint: (model) => `download it with \`lms get ${model}\``,
  },
  {
    name: "llamacpp",
    label: "The llama.cpp server",
    defaultBaseURL: "http://127.0.0.1:8080/v1",
    startHint: "start it with `llama-server -m <model.gguf> --port 8080 --jinja`",
    strictModels: false,
  },
  {
    name: "vllm",
    label: "vLLM",
    defaultBaseURL: "http://127.0.0.1:8000/v1",
    startHint: "start it with `vllm serve <model>`",
    strictModels: true,
  },
  {
    name: "openai-compatible",
    label: "The OpenAI-compatible server",
    startHint: 'start it, or correct providers["openai-compatible"].baseURL in settings',
    strictModels: false,
  },
];

const PREFLIGHT_TIMEOUT_MS = 3_000;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function origin(baseURL: string): string {
  try {
    return new URL(baseURL).origin;
  } catch {
    return baseURL;
  }
}

function baseURLOf(preset: OpenAICompatiblePreset, context: ProviderContext): string {
  const url = context.endpoint?.baseURL ?? preset.defaultBaseURL;
  if (!url) {
    throw new ModelError(
      "model_config",
      `The ${preset.name} provider has no endpoint: set providers["${preset.name}"].baseURL in $LATHE_HOME/settings.json, e.g. {"providers": {"${preset.name}": {"baseURL": "http://127.0.0.1:8000/v1"}}}.`,
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed && (parsed.username || parsed.password)) {
    parsed.username = "";
    parsed.password = "";
    throw new ModelError(
      "model_config",
      `providers["${preset.name}"].baseURL holds a user name and password, which requests cannot carry in their address: write it as ${trimSlash(parsed.href)}, and for a server that asks for a key, name the environment variable that holds it in providers["${preset.name}"].apiKeyEnv (sent as a Bearer token).`,
    );
  }
  return trimSlash(url);
}

function apiKeyOf(preset: OpenAICompatiblePreset, context: ProviderContext): string | undefined {
  const variable = context.endpoint?.apiKeyEnv;
  if (variable) {
    const key = context.env[variable];
    if (!key) {
      throw new ModelError(
        "model_config",
        `providers["${preset.name}"].apiKeyEnv names ${variable}, but that environment variable is empty. Export it and run again.`,
      );
    }
    return key;
  }
  return context.secrets?.(preset.name);
}

/**
 * Whether fetch refused the URL's port outright, before connecting: Node's fetch blocks the "bad
 * ports" of the Fetch standard (6000, 5060, 6667…) and says only "fetch failed", with the cause
 * "bad port".
 */
function blockedPort(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Error && cause.message === "bad port";
}

function portRefused(preset: OpenAICompatiblePreset, baseURL: string): string {
  const url = new URL(baseURL);
  return `${preset.label} at ${origin(baseURL)} cannot be reached: Node's fetch refuses port ${url.port} (one of the ports it blocks for safety). Run the server on another port and correct providers["${preset.name}"].baseURL in settings.`;
}

/** What to say when what answers at `baseURL` does not speak HTTP (`said`: the parser's words). */
export function notHttp(preset: OpenAICompatiblePreset, baseURL: string, said: string): string {
  return `What answers at ${origin(baseURL)} is not ${preset.label}: it does not speak HTTP (${said}). Another program may hold the port: correct providers["${preset.name}"].baseURL in settings, or start ${preset.label} on its own port.`;
}

function notRunning(preset: OpenAICompatiblePreset, baseURL: string, code: string): string {
  return `${preset.label} is not running on ${origin(baseURL)}: ${preset.startHint} or pick another provider (${code}).`;
}

function isJSON(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A 404 that is not the API's own (a JSON body saying it has no such model) but the server's "no
 * such page" — plain text (Ollama) or JSON (vLLM's `{"detail":"Not Found"}`): the base URL misses
 * the API's path, most often its /v1.
 */
function noAPIAt(preset: OpenAICompatiblePreset, baseURL: string, error: unknown): string | undefined {
  if (!APICallError.isInstance(error) || error.statusCode !== 404) return undefined;
  const body = error.responseBody?.trim() ?? "";
  if (isJSON(body) && NO_SUCH_MODEL.test(`${error.message} ${body}`)) return undefined;
  const said = answerSnippet(body) || error.message;
  return `${preset.label} at ${origin(baseURL)} has no chat API at ${error.url} (HTTP 404: ${said}): correct providers["${preset.name}"].baseURL (now ${baseURL}); an OpenAI-compatible API's address usually ends in /v1.`;
}

/** How servers say a call names a model they do not have (Ollama, LM Studio, OpenAI's shape). */
const NO_SUCH_MODEL = /\bmodel\b.*\b(?:not found|does not exist)|model_not_found/i;

/**
 * A 404 of the API itself (a JSON body) saying it does not have the model, on a server that
 * says how to get one: the model to download and how. The preflight's list usually catches this
 * first; the model may also go between the two (\`ollama rm\`).
 */
function modelMissing(
  preset: OpenAICompatiblePreset,
  baseURL: string,
  model: string,
  error: unknown,
): string | undefined {
  if (!preset.pullHint || !APICallError.isInstance(error) || error.statusCode !== 404) return undefined;
  const body = error.responseBody?.trim() ?? "";
  if (!isJSON(body) || !NO_SUCH_MODEL.test(`${error.message} ${body}`)) return undefined;
  return `${preset.label} at ${origin(baseURL)} does not have the model "${model}" (${error.message}): ${preset.pullHint(model)}.`;
}

/** What to do when the server refuses the key (or its absence): the key to check, or the setting that would send one. */
function keyFix(preset: OpenAICompatiblePreset, context: ProviderContext, sent: boolean): string {
  const variable = context.endpoint?.apiKeyEnv;
  if (variable) return `check that ${variable} holds a key it accepts`;
  return sent
    ? `check the key saved for ${preset.name} in the app's keychain, or name the environment variable that holds it in providers["${preset.name}"].apiKeyEnv`
    : `set providers["${preset.name}"].apiKeyEnv to the environment variable that holds its API key`;
}

/** A 401 or 403 of a model call, said with the key to check. */
function keyRefused(
  preset: OpenAICompatiblePreset,
  baseURL: string,
  context: ProviderContext,
  sent: boolean,
  error: unknown,
): string | undefined {
  if (!APICallError.isInstance(error) || (error.statusCode !== 401 && error.statusCode !== 403))
    return undefined;
  return `${preset.label} at ${origin(baseURL)} refused the request (HTTP ${error.statusCode}: ${error.message}): ${keyFix(preset, context, sent)}.`;
}

interface ModelList {
  data?: Array<{ id?: unknown }>;
}

async function fetchModels(
  preset: OpenAICompatiblePreset,
  context: ProviderContext,
  signal?: AbortSignal,
): Promise<string[] | undefined> {
  const baseURL = baseURLOf(preset, context);
  const apiKey = apiKeyOf(preset, context);
  const timeout = AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS);
  let response: Response;
  try {
    response = await (context.fetch ?? fetch)(`${baseURL}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    if (blockedPort(err)) throw new ModelError("model_config", portRefused(preset, baseURL), { cause: err });
    const tls = tlsFailure(err);
    if (tls) {
      const message = describeTlsFailure(
        tls,
        `${preset.label} at ${origin(baseURL)}`,
        `providers["${preset.name}"].baseURL`,
      );
      throw new ModelError("model_config", message, { cause: err });
    }
    const said = notHttpAnswer(err);
    if (said) throw new ModelError("model_config", notHttp(preset, baseURL, said), { cause: err });
    const code = connectionFailure(err);
    if (code) throw new ModelError("model_unavailable", notRunning(preset, baseURL, code), { cause: err });
    if (timeout.aborted) {
      throw new ModelError(
        "model_unavailable",
        `${preset.label} at ${origin(baseURL)} did not answer within ${PREFLIGHT_TIMEOUT_MS / 1000} s: check that it is running and not busy, or pick another provider.`,
        { cause: err },
      );
    }
    throw err;
  }
  if (response.status === 401 || response.status === 403) {
    throw new ModelError(
      "model_config",
      `${preset.label} at ${origin(baseURL)} refused the request (HTTP ${response.status}): ${keyFix(preset, context, apiKey !== undefined)}.`,
    );
  }
  // Some servers have no model list; the run itself will tell.
  if (!response.ok) return undefined;
  const body = (await response.json().catch(() => undefined)) as ModelList | undefined;
  if (!body || !Array.isArray(body.data)) return undefined;
  return body.data.map((m) => m.id).filter((id): id is string => typeof id === "string");
}

function listed(models: readonly string[], model: string): boolean {
  return models.includes(model) || models.includes(`${model}:latest`);
}

/**
 * What stops `model` on a server whose model list is `models` (the ids it lists), or undefined
 * when the list does not stop it: a server that lists every model it has but lists none, or a
 * strict one that lists others. `where` is the server's address as said in the message.
 */
export function missingModel(
  preset: OpenAICompatiblePreset,
  where: string,
  models: readonly string[],
  model: string,
): string | undefined {
  if (models.length === 0) {
    return preset.listsEveryModel && preset.pullHint
      ? `${preset.label} at ${where} has no models yet, so not "${model}": ${preset.pullHint(model)}.`
      : undefined;
  }
  if (!preset.strictModels || listed(models, model)) return undefined;
  const hint = preset.pullHint ? `; ${preset.pullHint(model)}` : "";
  return `${preset.label} at ${where} does not have the model "${model}". It has: ${models.join(", ")}${hint}.`;
}

/** The provider definition for one OpenAI-compatible preset. */
export function openAICompatibleProvider(preset: OpenAICompatiblePreset): ProviderDefinition {
  return {
    name: preset.name,
    description: preset.defaultBaseURL
      ? `${preset.label} (default ${origin(preset.defaultBaseURL)}; move it with providers.${preset.name}.baseURL)`
      : `${preset.label} at providers["${preset.name}"].baseURL`,
    create(model: string, context: ProviderContext): ResolvedModel {
      const baseURL = baseURLOf(preset, context);
      const apiKey = apiKeyOf(preset, context);
      // Local servers differ in which models see images: only those settings name get them.
      const images = acceptsImages(context.endpoint?.images, model, false);
      const provider = createOpenAICompatible({
        name: preset.name,
        baseURL,
        includeUsage: true,
        // Tool results may then carry image parts (from MCP tools) instead of only JSON text.
        ...(images ? { supportsMultiPartToolContent: true } : {}),
        ...(apiKey ? { apiKey } : {}),
        // A web page or a JSON body where events belong says so, rather than pass for a crash.
        fetch: requireEventStream(context.fetch ?? modelFetch(context.endpoint?.timeouts), {
          who: `${preset.label} at ${origin(baseURL)}`,
          setting: `providers["${preset.name}"].baseURL`,
          baseURL,
        }),
      });
      return {
        spec: { provider: preset.name, model },
        model: provider.chatModel(model),
        endpoint: `${preset.label} at ${origin(baseURL)}`,
        acceptsImages: images,
        maskSecrets: (text) => maskValues(text, [apiKey]),
        contextWindow: (signal) =>
          askServerContextWindow({
            kind: preset.name,
            baseURL,
            model,
            ...(apiKey ? { apiKey } : {}),
            ...(context.fetch ? { fetch: context.fetch } : {}),
            ...(signal ? { signal } : {}),
          }),
        async preflight(signal) {
          const models = await fetchModels(preset, context, signal);
          const missing = models && missingModel(preset, origin(baseURL), models, model);
          if (missing) throw new ModelError("model_unavailable", missing);
        },
        explainError(error) {
          if (blockedPort(error)) return portRefused(preset, baseURL);
          const tls = tlsFailure(error);
          if (tls) {
            return describeTlsFailure(
              tls,
              `${preset.label} at ${origin(baseURL)}`,
              `providers["${preset.name}"].baseURL`,
            );
          }
          const said = notHttpAnswer(error);
          if (said) return notHttp(preset, baseURL, said);
          const code = connectionFailure(error);
          if (!code)
            return (
              keyRefused(preset, baseURL, context, !!apiKey, error) ??
              modelMissing(preset, baseURL, model, error) ??
              noAPIAt(preset, baseURL, error)
            );
          return isDroppedConnection(code)
            ? `${preset.label} at ${origin(baseURL)} closed the connection before the answer was complete (${code}): it may have crashed or restarted. Check that it runs, then continue the session.`
            : notRunning(preset, baseURL, code);
        },
      };
    },
    async listModels(context, signal) {
      return (await fetchModels(preset, context, signal)) ?? [];
    },
  };
}
