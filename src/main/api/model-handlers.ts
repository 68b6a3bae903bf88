import type { ModelCatalog } from "../../shared/model-catalog-schemas.ts";
import type { Engine } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";
import { agentModule, asApiError, projectScope } from "./chat-setup.ts";
import { ProjectModels } from "./project-models.ts";

interface ModelCatalogTarget {
  engine(): Promise<Engine>;
  /** A probe timeout other than the default (tests). */
  timeoutMs?: number;
}

type ModelChannels = "models.catalog" | "models.setProjectModel" | "models.addGguf";

/**
 * What the picker offers for the engine's folder: detection (settings decide where each local
 * server is looked for), and the folder's remembered model.
 */
async function modelCatalog(engine: Engine, timeoutMs?: number): Promise<ModelCatalog> {
  const { detectModels, loadModelSettings } = await agentModule();
  let settings: ReturnType<typeof loadModelSettings>;
  try {
    settings = loadModelSettings(projectScope(engine));
  } catch (error) {
    throw asApiError(error);
  }
  const found = await detectModels({
    providers: settings.providers,
    latheHome: engine.latheHome,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  const projectModel = new ProjectModels(engine.latheHome).get(engine.root);
  return {
    ...found,
    ...(projectModel !== undefined ? { projectModel } : {}),
    ...(settings.defaultModel !== undefined ? { defaultModel: settings.defaultModel } : {}),
    notices: settings.notices,
  };
}

/** The model picker's channels: detect, remember this folder's model, add a GGUF file. */
export function createModelHandlers(target: ModelCatalogTarget): Pick<ApiHandlers, ModelChannels> {
  return {
    "models.catalog": async () => modelCatalog(await target.engine(), target.timeoutMs),
    "models.setProjectModel": async ({ model }) => {
      const engine = await target.engine();
      new ProjectModels(engine.latheHome).set(engine.root, model ?? undefined);
      return modelCatalog(engine, target.timeoutMs);
    },
    "models.addGguf": async ({ path }) => {
      const engine = await target.engine();
      const { addGgufFile } = await agentModule();
      try {
        await addGgufFile(engine.latheHome, path);
      } catch (error) {
        throw asApiError(error);
      }
      return modelCatalog(engine, target.timeoutMs);
    },
  };
}
