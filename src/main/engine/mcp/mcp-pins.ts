import { createHash } from "node:crypto";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import type { SourcedMcpServer } from "../config/policy-config.ts";
import type { TrustStore } from "../policy/trust-store.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import { commandLine, isStdio } from "./mcp-command-line.ts";

/** How a server's or tool's current descriptor compares with what the user approved. */
type PinStatus = "match" | "changed" | "new";

/**
 * What an MCP tool publishes that the model reads or Lathe acts on (`readOnlyHint` makes a tool
 * run in parallel and shows it as a read): pinned so a change cannot slip in unseen.
 */
interface McpToolDescriptor {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | undefined;
}

interface ServerDescription {
  name: string;
  layer: "global" | "project";
  /** The exact command line (or URL) the server starts with, for display. */
  commandLine: string;
  /** Where the settings came from. */
  source: string;
  /** The TrustStore scope the pin lives in: the project's real root, or "global". */
  scope: string;
  pinKey: string;
  hash: string;
  pinned: PinStatus;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Project servers are pinned under the project's real root, the user's own under "global". */
export function pinScope(server: Pick<SourcedMcpServer, "layer">, root: string): string {
  return server.layer === "project" ? root : "global";
}

export function serverPinKey(server: string): string {
  return `mcp:${server}`;
}

export function toolPinKey(server: string, tool: string): string {
  return `mcp:${server}:tool:${tool}`;
}

/**
 * What a server's start is made of, to hash: command, args, env, cwd, and the hosts its sandbox
 * lets it reach, the hidden paths it may read and the variables of Lathe's environment it
 * receives — or URL and headers (their values only when `headerValues`, which pins leave out).
 */
export function serverIdentity(
  config: McpServerConfig,
  how: { cwd: string | undefined; headerValues: boolean },
): Record<string, unknown> {
  if (!isStdio(config)) {
    const headers = how.headerValues ? config.headers : Object.keys(config.headers).sort();
    return { transport: "http", url: config.url, headers };
  }
  // Undefined fields drop out of the hash, so pins made before a field existed still match.
  return {
    transport: "stdio",
    command: config.command,
    args: config.args,
    env: config.env,
    cwd: how.cwd,
    allowNetwork: config.allowNetwork,
    allowRead: config.allowRead,
    allowEnv: config.allowEnv,
  };
}

/** The hash of a server's exact command line as written (see serverIdentity), header names only. */
export function serverHash(config: McpServerConfig): string {
  const cwd = isStdio(config) ? config.cwd : undefined;
  return sha256(stableStringify(serverIdentity(config, { cwd, headerValues: false })));
}

/**
 * The hash of a tool's name, description, input schema, and — when it has them — its title and
 * annotations (`readOnlyHint`, `destructiveHint`, …). A tool without either hashes exactly as
 * before they were pinned, so existing approvals stay valid; adding, removing or flipping one
 * changes the hash.
 */
export function toolHash(tool: McpToolDescriptor): string {
  const extras = {
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
  return sha256(
    stableStringify({
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      ...extras,
    }),
  );
}

export function pinStatus(pins: Readonly<Record<string, string>>, key: string, hash: string): PinStatus {
  const pinned = pins[key];
  return pinned === undefined ? "new" : pinned === hash ? "match" : "changed";
}

/**
 * What `lathe trust` shows before it pins: each server's exact command line and whether it
 * matches what the user approved before.
 */
export function describeServers(
  servers: readonly SourcedMcpServer[],
  trust: TrustStore,
  root: string,
): ServerDescription[] {
  const pinsByScope = new Map<string, Record<string, string>>();
  return servers.map((server) => {
    const scope = pinScope(server, root);
    let pins = pinsByScope.get(scope);
    if (!pins) {
      pins = trust.pins(scope);
      pinsByScope.set(scope, pins);
    }
    const pinKey = serverPinKey(server.name);
    const hash = serverHash(server.config);
    return {
      name: server.name,
      layer: server.layer,
      commandLine: commandLine(server.config, root),
      source: server.source,
      scope,
      pinKey,
      hash,
      pinned: pinStatus(pins, pinKey, hash),
    };
  });
}

function approveHint(root: string, server?: SourcedMcpServer): string {
  // The user's own server's tools are approved server by server (trusting a folder does not
  // start the user's servers to see what they offer now); a project's with the project.
  return server?.layer === "global"
    ? `Review it, then run: lathe trust --mcp-server ${server.name}`
    : `Review it, then run: lathe trust --root ${root}`;
}

/** Why a server is not started, or undefined when its command line may run. */
export function serverBlockReason(
  server: SourcedMcpServer,
  status: PinStatus,
  root: string,
): string | undefined {
  if (status === "match") return undefined;
  const shown = commandLine(server.config, root);
  if (status === "changed") {
    return `MCP server "${server.name}" was not started: its command line in ${server.source} changed since you approved it (now: ${shown}). ${approveHint(root, server)}`;
  }
  if (server.layer === "global") return undefined;
  return `MCP server "${server.name}" was not started: the project added it to ${server.source} after you trusted the folder, and you have not approved it (${shown}). ${approveHint(root)}`;
}

/** Why a tool is left out, or undefined when its descriptor may be bound. */
export function toolBlockReason(
  server: SourcedMcpServer,
  tool: McpToolDescriptor,
  status: PinStatus,
  root: string,
): string | undefined {
  if (status === "match") return undefined;
  const description = (tool.description ?? "").replace(/\s+/g, " ").slice(0, 200);
  if (status === "changed") {
    return `Tool "${tool.name}" of MCP server "${server.name}" is disabled: its description, input schema or annotations changed since you approved it (the description now reads: "${description}"). ${approveHint(root, server)}`;
  }
  if (server.layer === "global") return undefined;
  return `Tool "${tool.name}" of MCP server "${server.name}" is disabled: the server started offering it after you approved the project (description: "${description}"). ${approveHint(root)}`;
}
