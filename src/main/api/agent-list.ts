import type { AgentList } from "../../shared/chat-schemas.ts";
import type { Engine } from "../engine/index.ts";
import { agentModule, asApiError, projectScope } from "./chat-setup.ts";

/** The agent picker's choices: every valid agent, what could not be read, and why project agents are ignored. */
export async function listAgents(engine: Engine): Promise<AgentList> {
  const { loadAgentCatalog } = await agentModule();
  try {
    const catalog = await loadAgentCatalog(projectScope(engine));
    return {
      agents: catalog.agents().map((agent) => ({
        id: agent.id,
        description: agent.description,
        ...(agent.model !== undefined ? { model: agent.model } : {}),
        layer: agent.layer,
      })),
      problems: catalog.problems().map((problem) => problem.message),
      notices: [...catalog.notices],
    };
  } catch (error) {
    throw asApiError(error);
  }
}
