import { readFrontMatter } from "../config/front-matter.ts";
import { agentManifestFrom, type AgentLayer, type AgentManifest } from "./agent-manifest.ts";

/**
 * Parse an agent manifest file: YAML front matter between `---` lines, then the system prompt.
 * Throws ManifestError naming the file, the field and the fix.
 */
export function parseAgentManifest(text: string, file: string, layer: AgentLayer): AgentManifest {
  const { data, body } = readFrontMatter(
    text,
    file,
    'start the file with a line "---", then YAML (description, tools, budgets…), then "---" and the system prompt.',
  );
  return agentManifestFrom(data, body, file, layer);
}
