// The engine's light door: what a host needs while it starts, before it decides to load the
// engine (index.ts) or the agent (agent/index.ts) — the CLI reads its version and checks a
// `--model` value on every start. Everything here is cheap to load (no package, no engine
// module behind it; test/engine-imports.test.ts keeps it so). Hosts import the engine through
// these three doors only (an eslint rule in eslint.config.js).
export { installRoot, latheVersion } from "./config/install-root.ts";
export { resolveLatheHome } from "./config/lathe-home.ts";
export { parseModelSpec } from "./agent/model-spec.ts";
export { agentIdProblem } from "./agent/agent-id.ts";
export { sessionIdProblem } from "./session/session-id.ts";
export { AuditUnwrittenError } from "./errors/audit-unwritten-error.ts";
// Before one-line-path: all three land in the chunk the entry shares with the engine, which keeps the
// name test/cli-bundle.test.ts knows it by only in this order.
export { counted } from "./tools/counted.ts";
export { byteSize } from "./tools/byte-size.ts";
export { escapedControl, oneLinePath, terminalSafeLines } from "./tools/one-line-path.ts";
export { compactionLine } from "./agent/compaction-line.ts";
export { NOT_REACHED } from "./checkpoints/not-reached.ts";
export { removeFilesBeingWritten } from "./temp/files-being-written.ts";
export { errorMessage } from "./errors/error-message.ts";
export { callNeedsExtensions } from "./tools/extension-free-tools.ts";
