import { APICallError, type LanguageModel } from "ai";
import { maskValues } from "../../audit/redact.ts";
import { KEY_VARIABLES } from "../../config/key-variables.ts";
import { ModelError } from "../model-error.ts";
import { acceptsImages } from "../model-images.ts";
import type { ProviderContext, ProviderDefinition, ResolvedModel } from "../provider-registry.ts";
import { answerSnippet } from "./answer-snippet.ts";
import { connectionFailure, isDroppedConnection } from "./connection-failure.ts";
import { requireEventStream } from "./event-stream-answer.ts";
import { describeTlsFailure, tlsFailure } from "./tls-failure.ts";
import { modelFetch } from "./model-fetch.ts";

interface CloudPreset {
  name: "anthropic" | "openai";
  label: string;
  /** The environment variable read when settings name none. */
  keyVariable: string;
  /** Models the picker offers once a key is set (any other can be typed), with their context windows. */
  suggested: ReadonlyArray<{ name: string; contextTokens: number }>;
  /** Loads the provider's SDK only when a run uses it. */
  create(
    options: { apiKey: string; baseURL?: string; fetch?: typeof fetch },
    model: string,
  ): Promise<LanguageModel>;
}

const CLOUD_PRESETS: readonly CloudPreset[] = [
  {
    name: "anthropic",
    label: "Anthropic",
    keyVariable: KEY_VARIABLES.anthropic,
    suggested: [
      { name: "claude-sonnet-4-5", contextTokens: 200_000 },
      { name: "claude-opus-4-1", contextTokens: 200_000 },
      { name: "claude-haiku-4-5", contextTokens: 200_000 },
    ],
    create: async (options, model) => (await import("@ai-sdk/anthropic")).createAnthropic(options)(model),
  },
  {
    name: "openai",
    label: "OpenAI",
    keyVariable: KEY_VARIABLES.openai,
    suggested: [
      { name: "gpt-5", contextTokens: 400_000 },
      { name: "gpt-5-mini", contextTokens: 400_000 },
      { name: "gpt-4.1", contextTokens: 1_047_576 },
    ],
    create: async (options, model) => (await import("@ai-sdk/openai")).createOpenAI(options)(model),
  },
];

/**
 * The key for a cloud provider: the variable settings name (`providers.<name>.apiKeyEnv`), else
 * the usual one, else the host's keychain. Keys are only ever read, never written anywhere.
 */
function apiKeyOf(preset: CloudPreset, context: ProviderContext): string {
  const variable = context.endpoint?.apiKeyEnv ?? preset.keyVariable;
  const key = context.env[variable] || context.secrets?.(preset.name);
  if (!key) {
    throw new ModelError(
      "model_config",
      `No API key for ${preset.label}: export ${variable} in the environment (or save the key in the app's keychain). Lathe never stores keys in files.`,
    );
  }
  return key;
}

function contextOf(preset: CloudPreset, model: string): { contextTokens?: number } {
  const known = preset.suggested.find((s) => s.name === model)?.contextTokens;
  return known === undefined ? {} : { contextTokens: known };
}

/** Whether a failed request's answer was a web page (by its content type, or by how it starts). */
function isWebPage(error: APICallError): boolean {
  const type = Object.entries(error.responseHeaders ?? {}).find(
    ([name]) => name.toLowerCase() === "content-type",
  )?.[1];
  if (type !== undefined) return /text\/html/i.test(type);
  return /^\s*<(!doctype html|html)\b/i.test(error.responseBody ?? "");
}

function cloudProvider(preset: CloudPreset): ProviderDefinition {
  return {
    name: preset.name,
    description: `${preset.label} (cloud; the key comes from ${preset.keyVariable} or the keychain)`,
    async create(model: string, context: ProviderContext): Promise<ResolvedModel> {
      const apiKey = apiKeyOf(preset, context);
      const baseURL = context.endpoint?.baseURL;
      const setting = `providers.${preset.name}.baseURL`;
      // A page or a JSON error with status 200 where events belong says what came back, rather
      // than pass for an answer cut off with nothing in it.
      const checked = requireEventStream(context.fetch ?? modelFetch(context.endpoint?.timeouts), {
        who: baseURL ? `${preset.label} at ${baseURL}` : preset.label,
        setting,
        baseURL: baseURL ?? preset.label,
        fix: baseURL
          ? `check ${setting} (now ${baseURL}): it must be the address of ${preset.label}'s API or of a proxy that passes it through.`
          : `something between this machine and ${preset.label} answered in its place, such as a company's web filter or a proxy (or a network's sign-in page): sign in to the network or ask whoever runs the proxy to let ${preset.label}'s API through.`,
      });
      return {
        spec: { provider: preset.name, model },
        model: await preset.create({ apiKey, ...(baseURL ? { baseURL } : {}), fetch: checked }, model),
        endpoint: baseURL ? `${preset.label} at ${baseURL}` : preset.label,
        // The window of a model it suggests is known; another's stays unknown (settings can say).
        ...contextOf(preset, model),
        // Their current models read images; settings can say otherwise for one that does not.
        acceptsImages: acceptsImages(context.endpoint?.images, model, true),
        maskSecrets: (text) => maskValues(text, [apiKey]),
        explainError(error) {
          if (APICallError.isInstance(error) && error.statusCode !== undefined && isWebPage(error)) {
            // The service answers errors in JSON: a page is a web filter's or a proxy's refusal.
            const who = baseURL ? `${preset.label} at ${baseURL}` : preset.label;
            return `${who} answered with a web page (HTTP ${error.statusCode}: "${answerSnippet(error.responseBody ?? "")}"), not ${preset.label}'s API: ${baseURL ? `check providers.${preset.name}.baseURL (now ${baseURL}), or ` : ""}something between this machine and ${preset.label}, such as a company's web filter or a proxy, refused the request; ask whoever runs it to let ${preset.label}'s API through.`;
          }
          if (APICallError.isInstance(error) && (error.statusCode === 401 || error.statusCode === 403)) {
            const variable = context.endpoint?.apiKeyEnv ?? preset.keyVariable;
            const where = context.env[variable]
              ? `the key in ${variable}`
              : `the key saved for ${preset.label} in the app's keychain (or export ${variable})`;
            return `${preset.label}${baseURL ? ` at ${baseURL}` : ""} refused the request (HTTP ${error.statusCode}: ${error.message}): check ${where}.`;
          }
          const tls = tlsFailure(error);
          if (tls) {
            const who = baseURL ? `${preset.label} at ${baseURL}` : preset.label;
            return describeTlsFailure(tls, who, `providers.${preset.name}.baseURL`);
          }
          const code = connectionFailure(error);
          if (!code) return undefined;
          return isDroppedConnection(code)
            ? `The connection to ${preset.label} closed before the answer was complete (${code}): the network or the service dropped it. Continue the session to go on.`
            : `${preset.label} cannot be reached (${code}): check the network connection, or pick a local provider such as ollama.`;
        },
      };
    },
  };
}

export const CLOUD_PROVIDERS: readonly ProviderDefinition[] = CLOUD_PRESETS.map(cloudProvider);

/** A cloud provider as the model picker shows it: where its key comes from and the models it suggests. */
interface CloudOffer {
  name: CloudPreset["name"];
  label: string;
  keyVariable: string;
  suggested: CloudPreset["suggested"];
}

export const CLOUD_OFFERS: readonly CloudOffer[] = CLOUD_PRESETS.map(
  ({ name, label, keyVariable, suggested }) => ({
    name,
    label,
    keyVariable,
    suggested,
  }),
);
