import { createHmac, randomBytes } from "node:crypto";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import { isStdio, serverCwd } from "./mcp-command-line.ts";
import { serverIdentity } from "./mcp-pins.ts";

/**
 * Keyed per process: a digest leaves the engine (the UI gets one with a preview and sends it back
 * to confirm), and a plain hash of a config would let whoever sees it test guesses of the secrets
 * inside. A process only ever compares digests it made itself.
 */
const KEY = randomBytes(32);

/**
 * What identifies a server's start exactly, unmasked: for a stdio server its command, arguments,
 * every environment variable with its real value, the folder it runs in (resolved against the
 * workspace root) and what its sandbox lets it reach and receive; for a Streamable HTTP server
 * its URL and headers with their values. The command line a person is shown (`commandLine`)
 * masks secret values, so two different starts can look the same there: approvals and
 * confirmations compare this digest instead, never the shown line. Whether the server is turned
 * off or defers its tools does not change what runs, so it is left out.
 */
export function configDigest(config: McpServerConfig, root: string): string {
  const cwd = isStdio(config) ? serverCwd(config, root) : undefined;
  const identity = serverIdentity(config, { cwd, headerValues: true });
  return createHmac("sha256", KEY).update(stableStringify(identity)).digest("hex");
}
