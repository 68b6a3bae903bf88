// The engine's public surface. Hosts (src/main/cli, api, electron, serve) import the engine
// through three doors only, enforced by an eslint rule in eslint.config.js: this file (the
// engine: loading it loads the tool runtime), agent/index.ts (the agent: the ai SDK and the model
// providers, loaded only by hosts that run one) and light.ts (what a host needs while it starts).
export { Engine, type AuditPruned, type EngineOptions } from "./engine.ts";
export type { ApprovalMode } from "./config/lathe-settings.ts";
export type { Session } from "./session/session.ts";
export type { Envelope } from "./tools/envelope.ts";
export type { ToolInfo, ToolOrigin } from "./tools/contract.ts";
export { DEFAULT_CONTEXT_TOKENS } from "./tools/deferral.ts";
export { LatheError } from "./errors/lathe-error.ts";
export { RunStopped } from "./agent/run-stopped.ts";
export { resolveLatheHome } from "./config/lathe-home.ts";
export { TrustStore } from "./policy/trust-store.ts";
export { describeTrustReview, type ReviewedExtension, type TrustReview } from "./extensions/trust-review.ts";
export { trustProject } from "./extensions/trust-project.ts";
export type { ApprovalRequest, Approver } from "./policy/approval-request.ts";
export {
  answerProblems,
  type Asker,
  type QuestionReply,
  type QuestionRequest,
} from "./tools/question-request.ts";
export type { TodoItem } from "./tools/todo-list.ts";
export { RotatingLogFile } from "./logs/rotating-log-file.ts";
export type { ToolInvocationFinished, ToolInvocationPhase, ToolInvocationStarted } from "./engine-events.ts";
export type { CallPhase } from "./tools/call-phase.ts";
export { SETTINGS_FOLDER_MODE, SettingsFile, type SettingsDocument } from "./config/settings-file.ts";
export { readSettingsBytes } from "./config/settings-bytes.ts";
export { McpServerSchema, type McpServerConfig, type Settings } from "./config/lathe-settings.ts";
export type { DisabledTool } from "./tools/tool-registry.ts";
export type { ManagedPluginStatus } from "./plugins/plugin-manager.ts";
export { pluginLogFile, type PluginLogEntry } from "./plugins/plugin-log-files.ts";
export { checkPluginFolder, type PluginCheckReport } from "./plugins/plugin-folder-check.ts";
export { describeProjectPlugins, pinKey as pluginPinKey } from "./plugins/project-plugins.ts";
export { commandLine as mcpCommandLine } from "./mcp/mcp-command-line.ts";
export { configDigest as mcpConfigDigest } from "./mcp/mcp-config-digest.ts";
export { approveServers, configuredMcpServers } from "./mcp/mcp-approval.ts";
export { mcpLogFile } from "./mcp/mcp-manager.ts";
export { keepMcpServersRunning, type McpServerPool } from "./mcp/mcp-server-pool.ts";
export { serverPinKey } from "./mcp/mcp-pins.ts";
export type { CallSessionSummary, SessionSummary } from "./store/session-catalog.ts";
export type { CheckpointSummary, RestoreOutcome } from "./checkpoints/checkpoints.ts";
export type { PlannedPath, RestorePlan } from "./checkpoints/restore-plan.ts";
export type { SkippedPath } from "./checkpoints/restore-apply.ts";
export type { Checkpoint } from "./checkpoints/checkpoint-store.ts";
export type { StoredPrompt } from "./store/conversation-store.ts";
export { doctor, type DoctorReport } from "./doctor/doctor.ts";
export type { SandboxStatus } from "./sandbox/sandbox-availability.ts";
export type { UnsandboxedServerApprover, UnsandboxedServerRequest } from "./mcp/mcp-manager.ts";
export type { McpEvent } from "./mcp/mcp-event.ts";
export { checkRules } from "./policy/rule-check.ts";
export type { ScopedRule } from "./policy/permission-rule.ts";
export type { AuditEntry } from "./store/audit-log.ts";
export { ConfigError } from "./errors/config-error.ts";
export { validateWithoutJit } from "./config/validation-jit.ts";
export { warmSpawnerForServers } from "./spawner/spawner-for-servers.ts";
