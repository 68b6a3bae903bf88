import type * as AgentModule from "../engine/agent/index.ts";
import type { AgentManifest, ResolvedModel } from "../engine/agent/index.ts";
import { LatheError, type Engine } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";

/** The agent module (the `ai` SDK and the providers) loads on the first chat, not with the window. */
export const agentModule = (): Promise<typeof AgentModule> => import("../engine/agent/index.ts");

interface ChatChoice {
  /** The agent's id; default: the session's, else "default". */
  agent?: string;
  /** `PROVIDER:MODEL`; default: the session's, the agent's, then settings' defaultModel. */
  model?: string;
  /** The session being continued, if it has a recorded conversation. */
  conversation?: { sessionId: string; root: string; agent: string; model: string };
}

interface ChatSetup {
  agent: AgentManifest;
  model: ResolvedModel;
  /** The engine the run uses: the UI's own (the agent's rules bind the run's session). */
  engine: Engine;
  /** What the run is told when it starts (how an old session's model path was read). */
  notices: string[];
  /** Let go of what the run held. */
  release(): Promise<void>;
}

/** Lathe's own refusals (no such agent, no model, a bad settings file) go to the person as they are. */
export function asApiError(error: unknown): unknown {
  return LatheError.isInstance(error) ? new ApiError(error.message, { cause: error }) : error;
}

/** What the project allows: its agents and model settings count only once the folder is trusted. */
export function projectScope(engine: Engine): { root: string; latheHome: string; projectTrusted: boolean } {
  return { root: engine.root, latheHome: engine.latheHome, projectTrusted: engine.policy.projectTrusted };
}

/**
 * Resolve what a send asks for against the UI's engine: the agent from the catalog and the model
 * (the send's, the session's, the agent's, then settings'). Throws ApiError with a message that
 * says how to fix what is wrong.
 */
export async function setupChat(engine: Engine, choice: ChatChoice): Promise<ChatSetup> {
  const { loadAgentCatalog, loadModelSettings, defaultProviderRegistry, noModelChosen, sessionModelSpec } =
    await agentModule();
  const scope = projectScope(engine);
  let agent: AgentManifest;
  let model: ResolvedModel;
  const notices: string[] = [];
  try {
    const catalog = await loadAgentCatalog(scope);
    agent = catalog.get(choice.agent ?? choice.conversation?.agent ?? "default");
    const settings = loadModelSettings(scope);
    // A session recorded before gguf: paths were kept absolute holds its path as written.
    const recorded =
      choice.model === undefined && choice.conversation !== undefined
        ? await sessionModelSpec(
            choice.conversation.model,
            choice.conversation,
            "pick it in the model picker",
          )
        : undefined;
    if (recorded?.notice !== undefined) notices.push(recorded.notice);
    const spec = choice.model ?? recorded?.spec ?? agent.model ?? settings.defaultModel;
    if (spec === undefined) {
      throw new ApiError(
        noModelChosen(
          "pick one in the model picker (PROVIDER:MODEL, e.g. ollama:llama3.2)",
          agent,
          engine.latheHome,
        ),
      );
    }
    model = await defaultProviderRegistry().resolve(spec, { providers: settings.providers });
  } catch (error) {
    throw asApiError(error);
  }
  // runAgent gives the session the agent's own rules (a manifest deny is final), so every agent
  // runs on the UI's engine: no second engine, no second load of plugins and MCP servers.
  return { agent, model, engine, notices, release: () => Promise.resolve() };
}
