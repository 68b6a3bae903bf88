import path from "node:path";
import type { ModelList } from "../../shared/chat-schemas.ts";
import type { Engine } from "../engine/index.ts";
import { agentModule, asApiError, projectScope } from "./chat-setup.ts";
import { errorMessage } from "../engine/light.ts";

/**
 * The model picker's choices: every model the providers' endpoints list, asked in parallel. An
 * endpoint configured in settings that does not answer becomes a notice saying what to do; the
 * local servers' default addresses are tried too, quietly (most people run one of them, or none).
 * Never throws for an endpoint: only a broken settings file fails the call.
 */
export async function listModels(engine: Engine): Promise<ModelList> {
  const { defaultProviderRegistry, loadModelSettings } = await agentModule();
  let settings: ReturnType<typeof loadModelSettings>;
  try {
    settings = loadModelSettings(projectScope(engine));
  } catch (error) {
    throw asApiError(error);
  }
  const registry = defaultProviderRegistry();
  const configured = settings.providers as Record<string, unknown>;
  const listable = registry.names().filter((name) => registry.get(name)?.listModels !== undefined);
  const answers = await Promise.all(
    listable.map(async (provider) => {
      try {
        const models = await registry.listModels(provider, { providers: settings.providers });
        return { provider, models, error: undefined };
      } catch (error) {
        return { provider, models: [] as string[], error: errorMessage(error) };
      }
    }),
  );
  const models: ModelList["models"] = [];
  const notices: string[] = [...settings.notices];
  for (const answer of answers) {
    for (const model of answer.models)
      models.push({ id: `${answer.provider}:${model}`, provider: answer.provider });
    if (answer.error !== undefined && configured[answer.provider] !== undefined) notices.push(answer.error);
  }
  if (models.length === 0 && settings.defaultModel === undefined) {
    notices.push(
      `No model server answered (Ollama, LM Studio, llama.cpp, vLLM on their usual ports). Start one, point "providers" in ${path.join(engine.latheHome, "settings.json")} at yours, or type a model as PROVIDER:MODEL (e.g. gguf:/path/to/model.gguf).`,
    );
  }
  return {
    models,
    ...(settings.defaultModel !== undefined ? { defaultModel: settings.defaultModel } : {}),
    providers: registry.names().map((name) => ({ name, description: registry.get(name)?.description ?? "" })),
    notices,
  };
}
