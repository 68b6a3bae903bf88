import { realpathSync } from "node:fs";
import path from "node:path";
import type { ProviderEndpoint, ProvidersSettings } from "../config/lathe-settings.ts";
import { errorMessage } from "../errors/error-message.ts";
import { TrustStore } from "../policy/trust-store.ts";
import { loadAgentCatalog } from "../agent/agent-catalog.ts";
import { BUILTIN_PROVIDER_NAMES } from "../agent/builtin-provider-names.ts";
import { parseModelSpec } from "../agent/model-spec.ts";
import { loadModelSettings } from "../agent/model-settings.ts";
import { ggufFolder, listGgufFiles } from "../agent/models/gguf-folder.ts";
import { probeLocalServer } from "../agent/models/local-server-probe.ts";
import { CLOUD_OFFERS } from "../agent/providers/cloud-provider.ts";
import { assertGgufFile, ggufTruncation } from "../agent/providers/gguf/gguf-load-error.ts";
import { resolveGgufPath } from "../agent/providers/gguf/gguf-provider.ts";
import { missingModel, OPENAI_COMPATIBLE_PRESETS } from "../agent/providers/openai-compatible-provider.ts";

/** A local model server, asked what it serves only when its address is on this machine. */
interface DoctorServer {
  provider: string;
  baseURL: string;
  /** `not checked`: its address is not on this machine, and doctor asks nothing over the network. */
  state: "running" | "stopped" | "error" | "not checked";
  /** What it serves, as `PROVIDER:MODEL`. */
  models: string[];
  message?: string;
}

/** Which model `lathe run` in this folder would use, and what there is to choose from. */
export interface DoctorModel {
  /** Whether a run without `--model` has a model it can start with (chosen, and no problem found). */
  ready: boolean;
  /**
   * The model a run without `--model` uses: the default agent's (`model:` in its front matter),
   * else `defaultModel` in settings; `source` says which file chose it. Null when none is chosen.
   */
  chosen: { spec: string; source: string; problem?: string } | null;
  /** What to do when not ready: how to choose a model, naming one that is there when one is. */
  fix?: string;
  /** The GGUF files in `$LATHE_HOME/models`, as `gguf:<path>` (with why one would not load). */
  gguf: { folder: string; files: Array<{ id: string; problem?: string }>; problem?: string };
  servers: DoctorServer[];
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
const PROBE_MS = 1_000;

function onThisMachine(baseURL: string): boolean {
  try {
    const host = new URL(baseURL).hostname;
    return LOOPBACK.has(host) || host.startsWith("127.");
  } catch {
    return false;
  }
}

function endpointOf(providers: ProvidersSettings, name: string): ProviderEndpoint | undefined {
  return (providers as Record<string, ProviderEndpoint | undefined>)[name];
}

/** Each local server whose address is on this machine, asked (briefly) what it serves. */
function probeServers(providers: ProvidersSettings, env: NodeJS.ProcessEnv): Promise<DoctorServer[]> {
  return Promise.all(
    OPENAI_COMPATIBLE_PRESETS.flatMap((preset) => {
      const endpoint = endpointOf(providers, preset.name);
      const baseURL = endpoint?.baseURL ?? preset.defaultBaseURL;
      return baseURL === undefined ? [] : [{ preset, endpoint, baseURL }];
    }).map(async ({ preset, endpoint, baseURL }): Promise<DoctorServer> => {
      if (!onThisMachine(baseURL)) {
        return {
          provider: preset.name,
          baseURL,
          state: "not checked",
          models: [],
          message: `${preset.label} at ${baseURL} is not on this machine: doctor does not ask it`,
        };
      }
      const apiKey = endpoint?.apiKeyEnv ? env[endpoint.apiKeyEnv] : undefined;
      const probe = await probeLocalServer(preset, baseURL, {
        timeoutMs: PROBE_MS,
        ...(apiKey ? { apiKey } : {}),
      });
      return {
        provider: preset.name,
        baseURL,
        state: probe.state,
        models: probe.models.map((m) => `${preset.name}:${m.name}`),
        ...(probe.message !== undefined ? { message: probe.message } : {}),
      };
    }),
  );
}

/** Why the chosen model cannot be used, found without loading it; undefined when none is seen. */
async function problemOf(
  spec: string,
  servers: DoctorServer[],
  providers: ProvidersSettings,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  let provider: string;
  let model: string;
  try {
    ({ provider, model } = parseModelSpec(spec, BUILTIN_PROVIDER_NAMES));
  } catch (err) {
    return errorMessage(err);
  }
  if (!BUILTIN_PROVIDER_NAMES.includes(provider)) {
    return `There is no model provider "${provider}". Use one of: ${BUILTIN_PROVIDER_NAMES.join(", ")}.`;
  }
  if (provider === "gguf") {
    let file: string;
    try {
      file = resolveGgufPath(model);
      await assertGgufFile(file);
    } catch (err) {
      return errorMessage(err);
    }
    return ggufTruncation(file);
  }
  const cloud = CLOUD_OFFERS.find((offer) => offer.name === provider);
  if (cloud) {
    const variable = endpointOf(providers, provider)?.apiKeyEnv ?? cloud.keyVariable;
    return env[variable] ? undefined : `${cloud.label} needs its key: set ${variable}.`;
  }
  const server = servers.find((s) => s.provider === provider);
  if (server === undefined || server.state === "not checked") return undefined;
  if (server.state !== "running") return server.message;
  const preset = OPENAI_COMPATIBLE_PRESETS.find((p) => p.name === provider);
  if (!preset) return undefined;
  const ids = server.models.map((m) => m.slice(provider.length + 1));
  return missingModel(preset, server.baseURL, ids, model);
}

/** How to choose a model: one that is here when there is one, else how to get one. */
function howToChoose(candidates: string[], settingsFile: string, folder: string): string {
  if (candidates.length > 0) {
    const first = candidates[0];
    return `pass --model ${first} to lathe run, or set "defaultModel": "${first}" in ${settingsFile}${candidates.length > 1 ? ` (also here: ${candidates.slice(1, 4).join(", ")}${candidates.length > 4 ? ", …" : ""})` : ""}`;
  }
  return `put a .gguf model file in ${folder} (or pass --model gguf:<file.gguf>), or start a local server such as Ollama (ollama serve, then ollama pull <model>); then set "defaultModel" in ${settingsFile}, or pass --model PROVIDER:MODEL to lathe run`;
}

/**
 * Which model `lathe run` in `root` would use without `--model` (as the run chooses it: the
 * default agent's, else `defaultModel`), whether anything is seen to stop it — a GGUF file that
 * is missing or not a GGUF, a local server not running or without the model, a cloud key not
 * set — and what there is to choose from: the GGUF files in `$LATHE_HOME/models` and the local
 * servers. No model is loaded; only servers on this machine are asked, for a second at most.
 */
export async function modelCheck(input: {
  root: string;
  latheHome: string;
  env: NodeJS.ProcessEnv;
}): Promise<DoctorModel> {
  const { latheHome, env } = input;
  const settingsFile = path.join(latheHome, "settings.json");
  const folder = ggufFolder(latheHome);
  const files = listGgufFiles(latheHome).then(
    (found) => ({
      folder,
      files: found.map((f) => ({ id: `gguf:${f.path}`, ...(f.problem ? { problem: f.problem } : {}) })),
    }),
    (err: unknown) => ({ folder, files: [], problem: `${folder} could not be read: ${errorMessage(err)}` }),
  );
  let settings: ReturnType<typeof loadModelSettings>;
  let chosen: { spec: string; source: string } | undefined;
  try {
    let root = input.root;
    try {
      root = realpathSync(root);
    } catch {
      // a folder that is not there is trusted by no one: its settings are not read
    }
    const projectTrusted = new TrustStore(latheHome).isTrusted(root);
    const catalog = await loadAgentCatalog({ root, latheHome, projectTrusted });
    const agent = catalog.get("default");
    settings = loadModelSettings({ root, latheHome, projectTrusted });
    if (agent.model !== undefined) {
      const source = agent.source === "built-in" ? "the default agent" : `model: in ${agent.source}`;
      chosen = { spec: agent.model, source };
    } else if (settings.defaultModel !== undefined) {
      chosen = {
        spec: settings.defaultModel,
        source: `defaultModel in ${settings.defaultModelSource ?? settingsFile}`,
      };
    }
  } catch (err) {
    // A settings file or agent a run would refuse: the run stops on it as well.
    return {
      ready: false,
      chosen: null,
      fix: errorMessage(err),
      gguf: await files,
      servers: [],
    };
  }
  const [gguf, servers] = await Promise.all([files, probeServers(settings.providers, env)]);
  const candidates = [
    ...gguf.files.filter((f) => f.problem === undefined).map((f) => f.id),
    ...servers.flatMap((s) => s.models),
  ];
  if (chosen === undefined) {
    return { ready: false, chosen: null, fix: howToChoose(candidates, settingsFile, folder), gguf, servers };
  }
  const problem = await problemOf(chosen.spec, servers, settings.providers, env);
  if (problem === undefined) return { ready: true, chosen, gguf, servers };
  const others = candidates.filter((c) => c !== chosen.spec);
  return {
    ready: false,
    chosen: { ...chosen, problem },
    fix: `deal with the problem above, or choose another model: ${howToChoose(others, settingsFile, folder)}`,
    gguf,
    servers,
  };
}
