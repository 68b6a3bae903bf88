import path from "node:path";
import type { McpServerConfig } from "../config/lathe-settings.ts";

export type McpStdioConfig = Extract<McpServerConfig, { command: string }>;

export function isStdio(config: McpServerConfig): config is McpStdioConfig {
  return "command" in config;
}

function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The folder a stdio server runs in: its `cwd` (relative to the workspace root), else the root. */
export function serverCwd(config: McpStdioConfig, root: string): string {
  return config.cwd ? path.resolve(root, config.cwd) : root;
}

/**
 * The exact command a server starts with, as a person should review it before it runs:
 * `cd <cwd> && KEY=value … command args…` (shell-quoted), or the URL and the header names of a
 * Streamable HTTP server (header values are credentials and are not shown).
 */
export function commandLine(config: McpServerConfig, root: string): string {
  if (!isStdio(config)) {
    const headers = Object.keys(config.headers).sort();
    return headers.length > 0 ? `${config.url} (headers: ${headers.join(", ")})` : config.url;
  }
  const env = Object.entries(config.env)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${quote(v)}`);
  const words = [...env, quote(config.command), ...config.args.map(quote)];
  return `cd ${quote(serverCwd(config, root))} && ${words.join(" ")}`;
}
