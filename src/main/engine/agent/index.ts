// The agent's public surface for hosts (CLI, app, `lathe serve`).
export { runAgent, newSessionId } from "./run-agent.ts";
export { ToolCallStops } from "./tool-call-stops.ts";
export { replaySession } from "./replay-session.ts";
export { compactSession } from "./compact-session.ts";
export { compactionLine } from "./compaction-line.ts";
export { setupAgentRun } from "./agent-setup.ts";
export { loadAgentCatalog } from "./agent-catalog.ts";
export type { AgentManifest } from "./agent-manifest.ts";
export { defaultProviderRegistry } from "./default-providers.ts";
export type { ResolvedModel } from "./provider-registry.ts";
export { loadModelSettings } from "./model-settings.ts";
export { noModelChosen } from "./no-model-chosen.ts";
export { sessionModelSpec } from "./file-model-spec.ts";
export type { RunEvent, RunStatus } from "./run-events.ts";
export { taskStatus, settleTasks } from "./task-status.ts";
export { detectModels } from "./models/model-catalog.ts";
export { addGgufFile } from "./models/gguf-folder.ts";
export { releaseSharedLlamaRuntime as releaseInProcessModels } from "./providers/gguf/llama-runtime.ts";
