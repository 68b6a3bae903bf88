import path from "node:path";
import type { AgentManifest } from "./agent-manifest.ts";

/**
 * What a run with no model says, the same in the CLI and the app: `how` names the host's own way
 * to pick one; then the agent's front matter (when the agent is a file the person can edit) and
 * the user settings' defaultModel.
 */
export function noModelChosen(how: string, agent: AgentManifest, latheHome: string): string {
  const manifest = agent.source === "built-in" ? "" : `, add "model:" to the front matter of ${agent.source}`;
  return `No model chosen: ${how}${manifest}, or set "defaultModel" in ${path.join(latheHome, "settings.json")}.`;
}
