import path from "node:path";
import { loadSettings, type ProvidersSettings, type Settings } from "../config/lathe-settings.ts";
import { fileModelSpec } from "./file-model-spec.ts";

/** The model choices settings make: provider endpoints and the default model. */
interface ModelSettings {
  providers: ProvidersSettings;
  defaultModel: string | undefined;
  /** Where `defaultModel` came from, for messages. */
  defaultModelSource: string | undefined;
  notices: string[];
}

interface ModelSettingsInput {
  root: string;
  latheHome: string;
  projectTrusted: boolean;
}

/** A file's `defaultModel`, a relative `gguf:` path read against the file's folder. */
function defaultModelOf(settings: Settings, file: string): string | undefined {
  return settings.defaultModel === undefined ? undefined : fileModelSpec(settings.defaultModel, file);
}

/**
 * Read `providers` and `defaultModel` from the user's settings and, once the folder is trusted,
 * the project's (which win per provider). An untrusted project cannot redirect the model to
 * another endpoint: its entries are ignored with a notice. A relative `gguf:` path is read
 * against the folder of the settings file that names it, not the current folder.
 */
export function loadModelSettings(input: ModelSettingsInput): ModelSettings {
  const userFile = path.join(input.latheHome, "settings.json");
  const projectFile = path.join(input.root, ".lathe", "settings.json");
  const user = loadSettings(userFile);
  const project = loadSettings(projectFile);
  const userModel = defaultModelOf(user, userFile);
  const projectHasModels = Object.keys(project.providers).length > 0 || project.defaultModel !== undefined;
  if (!input.projectTrusted) {
    return {
      providers: user.providers,
      defaultModel: userModel,
      defaultModelSource: userModel ? userFile : undefined,
      notices: projectHasModels
        ? [
            `This folder is not trusted, so the model settings (providers, defaultModel) in ${projectFile} are ignored. Review the file, then run: lathe trust --root ${input.root}`,
          ]
        : [],
    };
  }
  const projectModel = defaultModelOf(project, projectFile);
  const defaultModel = projectModel ?? userModel;
  return {
    providers: { ...user.providers, ...project.providers },
    defaultModel,
    defaultModelSource: projectModel ? projectFile : userModel ? userFile : undefined,
    notices: [],
  };
}
