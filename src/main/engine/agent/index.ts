// The agent's public surface for hosts (CLI, app, `lathe serve`).
export { runAgent, newSessionId } from "./run-agent.ts";
export type { AgentRunResult, RunAgentOptions } from "./agent-run.ts";
export { ToolCallStops } from "./tool-call-stops.ts";
export { replaySession } from "./replay-session.ts";
export { setupAgentRun, type AgentSetup, type AgentSetupInput } from "./agent-setup.ts";
export { loadAgentCatalog, type AgentCatalog } from "./agent-catalog.ts";
export { agentManifestFrom, type AgentManifest, type AgentBudgets } from "./agent-manifest.ts";
export { AgentNotFoundError } from "./agent-not-found-error.ts";
export { defaultProviderRegistry } from "./default-providers.ts";
export {
  ProviderRegistry,
  type ProviderDefinition,
  type ProviderContext,
  type ResolvedModel,
  type SecretSource,
} from "./provider-registry.ts";
export { ModelError, type ModelErrorCode } from "./model-error.ts";
export { parseModelSpec, formatModelSpec, type ModelSpec } from "./model-spec.ts";
export { loadModelSettings, type ModelSettings } from "./model-settings.ts";
export type { RunEvent, RunEventType, RunStatus, RunUsage } from "./run-events.ts";
export { taskStatus, settleTasks } from "./task-status.ts";
export { MAX_TASK_DEPTH } from "./subagent-runner.ts";
export type { TaskResult, TaskStatus } from "../tools/task-host.ts";
export {
  detectModels,
  type CatalogModel,
  type CatalogOptions,
  type CloudProvider,
  type LocalServer,
  type ModelCatalog,
} from "./models/model-catalog.ts";
export { addGgufFile, ggufFolder, type GgufFile } from "./models/gguf-folder.ts";
