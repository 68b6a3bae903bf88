import { parse as parseYaml } from "yaml";
import { ManifestError } from "../errors/manifest-error.ts";
import { agentManifestFrom, type AgentLayer, type AgentManifest } from "./agent-manifest.ts";

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Parse an agent manifest file: YAML front matter between `---` lines, then the system prompt.
 * Throws ManifestError naming the file, the field and the fix.
 */
export function parseAgentManifest(text: string, file: string, layer: AgentLayer): AgentManifest {
  const match = FRONT_MATTER.exec(text);
  if (!match) {
    throw new ManifestError(
      `${file} has no front matter: start the file with a line "---", then YAML (description, tools, budgets…), then "---" and the system prompt.`,
    );
  }
  let data: unknown;
  try {
    data = parseYaml(match[1] as string);
  } catch (err) {
    throw new ManifestError(`${file}: the front matter is not valid YAML: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return agentManifestFrom(data, text.slice(match[0].length), file, layer);
}
