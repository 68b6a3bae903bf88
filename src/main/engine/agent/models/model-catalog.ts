import type { ProviderEndpoint, ProvidersSettings } from "../../config/lathe-settings.ts";
import { CLOUD_OFFERS } from "../providers/cloud-provider.ts";
import { OPENAI_COMPATIBLE_PRESETS } from "../providers/openai-compatible-provider.ts";
import type { SecretSource } from "../provider-registry.ts";
import { ggufFolder, listGgufFiles, type GgufFile } from "./gguf-folder.ts";
import { probeLocalServer, type ServerProbe } from "./local-server-probe.ts";
import { errorMessage } from "../../errors/error-message.ts";

/** One model the picker offers, as `PROVIDER:MODEL`. */
interface CatalogModel {
  id: string;
  /** The model's own name (after `PROVIDER:`). */
  name: string;
  contextTokens?: number;
}

/** A local server (Ollama, LM Studio, llama.cpp, vLLM, or the configured OpenAI-compatible one). */
interface LocalServer extends Omit<ServerProbe, "models"> {
  provider: string;
  label: string;
  baseURL: string;
  /** Settings name its address (otherwise it was looked for on its usual port). */
  configured: boolean;
  models: CatalogModel[];
}

interface CloudProvider {
  provider: string;
  label: string;
  keyVariable: string;
  /** A key is in the environment (or the keychain): its models can be used. */
  keySet: boolean;
  /** Offered once a key is set. */
  models: CatalogModel[];
}

/** Everything the model picker offers, found now. */
interface ModelCatalog {
  local: LocalServer[];
  gguf: { folder: string; files: Array<GgufFile & { id: string }>; problem?: string };
  cloud: CloudProvider[];
}

interface CatalogOptions {
  /** Merged `providers` settings (model-settings.ts): where each server is, and its key variable. */
  providers: ProvidersSettings;
  latheHome: string;
  env?: NodeJS.ProcessEnv;
  secrets?: SecretSource;
  fetch?: typeof fetch;
  /** Per server probe (default 1500 ms). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

function endpointOf(providers: ProvidersSettings, name: string): ProviderEndpoint | undefined {
  return (providers as Record<string, ProviderEndpoint | undefined>)[name];
}

function withIds(provider: string, probe: ServerProbe): CatalogModel[] {
  return probe.models.map((m) => ({ ...m, id: `${provider}:${m.name}` }));
}

/**
 * What the model picker offers: each local server probed at its settings' address (else its
 * usual port) with a short timeout — running with its models and their context sizes, or not
 * running and how to start it; the GGUF files in `$LATHE_HOME/models`; the cloud providers, with
 * their suggested models when a key is set. Servers are asked in parallel; nothing here throws
 * for a server that is missing.
 */
export async function detectModels(options: CatalogOptions): Promise<ModelCatalog> {
  const env = options.env ?? process.env;
  const local = OPENAI_COMPATIBLE_PRESETS.flatMap((preset) => {
    const endpoint = endpointOf(options.providers, preset.name);
    const baseURL = endpoint?.baseURL ?? preset.defaultBaseURL;
    // The generic OpenAI-compatible provider has no usual port: only an address settings give it.
    return baseURL === undefined ? [] : [{ preset, endpoint, baseURL }];
  });
  const probes = Promise.all(
    local.map(async ({ preset, endpoint, baseURL }): Promise<LocalServer> => {
      const apiKey = endpoint?.apiKeyEnv ? env[endpoint.apiKeyEnv] : options.secrets?.(preset.name);
      const probe = await probeLocalServer(preset, baseURL, {
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(apiKey ? { apiKey } : {}),
      });
      return {
        ...probe,
        provider: preset.name,
        label: preset.label,
        baseURL,
        configured: endpoint?.baseURL !== undefined,
        models: withIds(preset.name, probe),
      };
    }),
  );
  const folder = ggufFolder(options.latheHome);
  const gguf = listGgufFiles(options.latheHome).then(
    (files) => ({ folder, files: files.map((f) => ({ ...f, id: `gguf:${f.path}` })) }),
    (err: unknown) => ({
      folder,
      files: [],
      problem: `${folder} could not be read: ${errorMessage(err)}`,
    }),
  );
  const cloud = CLOUD_OFFERS.map((offer): CloudProvider => {
    const variable = endpointOf(options.providers, offer.name)?.apiKeyEnv ?? offer.keyVariable;
    const keySet = Boolean(env[variable] || options.secrets?.(offer.name));
    return {
      provider: offer.name,
      label: offer.label,
      keyVariable: variable,
      keySet,
      models: keySet ? offer.suggested.map((m) => ({ ...m, id: `${offer.name}:${m.name}` })) : [],
    };
  });
  return { local: await probes, gguf: await gguf, cloud };
}
