// The engine's public surface: hosts import from here only.
export { Engine, type EngineOptions, type OpenSessionOptions } from "./engine.ts";
export type { ApprovalMode } from "./policy/lathe-settings.ts";
export type { Session } from "./session/session.ts";
export type { Envelope, EnvelopeMetadata, OutputEnvelope, ErrorEnvelope } from "./tools/envelope.ts";
export type { ToolInfo, ToolOrigin, ToolKind, Layer } from "./tools/contract.ts";
export type { RequirementSet } from "./tools/requirement-set.ts";
export { LatheError } from "./errors/lathe-error.ts";
export { resolveLatheHome } from "./config/lathe-home.ts";
export { TrustStore } from "./policy/trust-store.ts";
export type { ApprovalAnswer, ApprovalRequest, Approver } from "./policy/approval-request.ts";
export type { ToolInvocationFinished, ToolInvocationStarted } from "./engine-events.ts";
