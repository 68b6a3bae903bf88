import path from "node:path";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import { loadSettings } from "../config/lathe-settings.ts";
import { loadPolicyConfig, type SourcedMcpServer } from "../config/policy-config.ts";
import { ProtectedPaths } from "../policy/protected-paths.ts";
import type { TrustStore } from "../policy/trust-store.ts";
import { EngineSandbox } from "../sandbox/engine-sandbox.ts";
import { commandLine, isStdio } from "./mcp-command-line.ts";
import { serverConfinement } from "./mcp-confinement.ts";
import { McpConnection } from "./mcp-connection.ts";
import { loginShellPath } from "./login-shell-path.ts";
import { mcpLogFile } from "./mcp-manager.ts";
import { describeServers, pinScope, serverHash, serverPinKey, toolHash, toolPinKey } from "./mcp-pins.ts";
import { McpServerLog } from "./mcp-server-log.ts";

interface ApprovalInput {
  /** The servers to approve (e.g. from `configuredMcpServers`). */
  servers: readonly SourcedMcpServer[];
  trust: TrustStore;
  /** The project's real root; it must be trusted before its servers can be pinned. */
  root: string;
  latheHome: string;
  connectTimeoutMs?: number;
  pathProvider?: () => Promise<string>;
  /** The OS sandbox the servers are listed in (default: one for this root and the user's settings). */
  sandbox?: EngineSandbox;
}

export interface ApprovalResult {
  name: string;
  layer: "global" | "project";
  commandLine: string;
  /** The tools whose descriptors were pinned. */
  tools: string[];
  /** Why the tools could not be listed (the command line is pinned all the same). */
  error?: string;
}

/**
 * Every MCP server the settings name, whether or not the project is trusted yet: the user's,
 * then the project's (same name: the project's wins), without disabled ones. What `lathe trust`
 * lists before the user approves.
 */
export function configuredMcpServers(root: string, latheHome: string): SourcedMcpServer[] {
  const userFile = path.join(latheHome, "settings.json");
  const projectFile = path.join(root, ".lathe", "settings.json");
  const byName = new Map<string, SourcedMcpServer>();
  for (const [name, config] of Object.entries(loadSettings(userFile).mcpServers)) {
    byName.set(name, { name, config, layer: "global", source: userFile });
  }
  for (const [name, config] of Object.entries(loadSettings(projectFile).mcpServers)) {
    byName.set(name, { name, config, layer: "project", source: projectFile });
  }
  return [...byName.values()].filter((s) => !s.config.disabled);
}

/**
 * The servers trusting the project approves (`trustProject`, after `lathe trust` or the trust
 * dialog showed them): the project's own, and the user's own whose command line changed since
 * it was approved — pinned on first sight, such a server stays stopped until a person approves
 * the new command line, and this is where they do.
 */
export function serversTrustApproves(root: string, latheHome: string, trust: TrustStore): SourcedMcpServer[] {
  const servers = configuredMcpServers(root, latheHome);
  const described = describeServers(servers, trust, root);
  return servers.filter((server, i) => server.layer === "project" || described[i]?.pinned === "changed");
}

/**
 * List a server's tools, starting it once: in the OS sandbox when it is active. When it is not,
 * the server starts unconfined: approving it (`lathe trust`, the app's approve button) is a
 * person's decision to run exactly this command line.
 */
async function listTools(
  server: SourcedMcpServer,
  input: ApprovalInput,
  sandbox: EngineSandbox,
): Promise<{ tools: Tool[]; error?: string }> {
  const confinement =
    sandbox.status.active && isStdio(server.config)
      ? serverConfinement(sandbox, server.name, server.config, input.root)
      : undefined;
  try {
    return await listToolsIn(server, input, sandbox.hiddenEnv, confinement?.sandbox);
  } finally {
    await confinement?.dispose();
  }
}

async function listToolsIn(
  server: SourcedMcpServer,
  input: ApprovalInput,
  hiddenEnv: readonly string[],
  sandbox: ProcessSandbox | undefined,
): Promise<{ tools: Tool[]; error?: string }> {
  let tools: Tool[] = [];
  const log = new McpServerLog(mcpLogFile(input.latheHome, server.name));
  log.note("starting to record its tools for approval");
  const connection = new McpConnection({
    name: server.name,
    config: server.config,
    root: input.root,
    source: server.source,
    log,
    reconnect: false,
    ...(input.connectTimeoutMs !== undefined ? { connectTimeoutMs: input.connectTimeoutMs } : {}),
    pathProvider: input.pathProvider ?? (() => loginShellPath(input.latheHome)),
    hiddenEnv,
    ...(sandbox ? { sandbox } : {}),
    onTools: (listed) => {
      tools = listed;
    },
  });
  await connection.start();
  const error = connection.state === "failed" ? connection.lastError : undefined;
  await connection.close();
  await log.flush();
  return error === undefined ? { tools } : { tools, error };
}

/** The OS sandbox of the folder's engine, as its settings make it (Lathe's keys withheld too). */
function folderSandbox(input: ApprovalInput): Promise<EngineSandbox> {
  const policy = loadPolicyConfig({ root: input.root, latheHome: input.latheHome });
  return EngineSandbox.create({
    root: input.root,
    settings: policy.sandbox,
    protectedPaths: new ProtectedPaths({
      root: input.root,
      latheHome: input.latheHome,
      servers: configuredMcpServers(input.root, input.latheHome),
    }),
    hiddenEnv: policy.keyVariables,
  });
}

/**
 * Approve servers as they are now: pin each one's command line and, after starting it once to
 * list its tools, each tool's name, description and schema — project servers under the
 * project's root (trust the project first), the user's own under "global". Re-approving after a
 * change replaces the old pins.
 */
export async function approveServers(input: ApprovalInput): Promise<ApprovalResult[]> {
  const needsTrust = input.servers.some((s) => s.layer === "project");
  if (needsTrust && !input.trust.isTrusted(input.root)) {
    throw new Error(
      `Trust ${input.root} before approving its MCP servers (lathe trust --root ${input.root}).`,
    );
  }
  const sandbox = input.sandbox ?? (await folderSandbox(input));
  return Promise.all(input.servers.map((server) => approveServer(server, input, sandbox)));
}

async function approveServer(
  server: SourcedMcpServer,
  input: ApprovalInput,
  sandbox: EngineSandbox,
): Promise<ApprovalResult> {
  const scope = pinScope(server, input.root);
  const { tools, error } = await listTools(server, input, sandbox);
  const pins: Record<string, string> = { [serverPinKey(server.name)]: serverHash(server.config) };
  for (const tool of tools) pins[toolPinKey(server.name, tool.name)] = toolHash(tool);
  input.trust.pin(scope, pins);
  const result: ApprovalResult = {
    name: server.name,
    layer: server.layer,
    commandLine: commandLine(server.config, input.root),
    tools: tools.map((t) => t.name),
  };
  return error === undefined ? result : { ...result, error };
}
