import path from "node:path";
import { loadSettings, type ProvidersSettings } from "../config/lathe-settings.ts";

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

/**
 * Read `providers` and `defaultModel` from the user's settings and, once the folder is trusted,
 * the project's (which win per provider). An untrusted project cannot redirect the model to
 * another endpoint: its entries are ignored with a notice.
 */
export function loadModelSettings(input: ModelSettingsInput): ModelSettings {
  const userFile = path.join(input.latheHome, "settings.json");
  const projectFile = path.join(input.root, ".lathe", "settings.json");
  const user = loadSettings(userFile);
  const project = loadSettings(projectFile);
  const projectHasModels = Object.keys(project.providers).length > 0 || project.defaultModel !== undefined;
  if (!input.projectTrusted) {
    return {
      providers: user.providers,
      defaultModel: user.defaultModel,
      defaultModelSource: user.defaultModel ? userFile : undefined,
      notices: projectHasModels
        ? [
            `This folder is not trusted, so the model settings (providers, defaultModel) in ${projectFile} are ignored. Review the file, then run: lathe trust --root ${input.root}`,
          ]
        : [],
    };
  }
  const defaultModel = project.defaultModel ?? user.defaultModel;
  return {
    providers: { ...user.providers, ...project.providers },
    defaultModel,
    defaultModelSource: project.defaultModel ? projectFile : user.defaultModel ? userFile : undefined,
    notices: [],
  };
}
