import path from "node:path";
import { MASK, redactText } from "../audit/redact.ts";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import { shownEnvValue } from "./shown-env-value.ts";

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
 * The command a server starts with, as a person should review it before it runs and as it is
 * printed and logged: `cd <cwd> && KEY=value … command args…` (shell-quoted), or the URL and the
 * header names of a Streamable HTTP server (header values are credentials and are not shown).
 * Environment values are shown only when plainly no credential (see shownEnvValue), and
 * secret-looking arguments (`--token …`, a password in a URL) are masked as the audit masks them.
 */
export function commandLine(config: McpServerConfig, root: string): string {
  if (!isStdio(config)) {
    const headers = Object.keys(config.headers).sort();
    return headers.length > 0 ? `${config.url} (headers: ${headers.join(", ")})` : config.url;
  }
  const env = Object.entries(config.env)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => {
      const shown = shownEnvValue(k, v);
      return `${k}=${shown === undefined ? MASK : quote(shown)}`;
    });
  const words = [...env, quote(config.command), ...config.args.map(quote)];
  return redactText(`cd ${quote(serverCwd(config, root))} && ${words.join(" ")}`);
}
