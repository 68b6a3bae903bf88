import { createHash } from "node:crypto";
import path from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import { loadSettings, type Settings } from "./lathe-settings.ts";

/**
 * What a project's settings grant once the folder is trusted: everything but its deny rules, its
 * sandbox entry (which can only narrow the user's) and `disabledPlugins` (which only turns
 * things off). Hooks run unconfined on this machine, allow rules and approval settings lift
 * asks, extra commands widen bash, MCP servers start programs, web settings open private hosts,
 * providers and `defaultModel` decide where the conversation (and which key) is sent.
 */
function grants(settings: Settings): unknown {
  return {
    permissions: settings.permissions.filter((r) => r.action !== "deny"),
    hooks: settings.hooks,
    approvals: settings.approvals,
    shell: settings.shell,
    mcpServers: settings.mcpServers,
    web: settings.web,
    providers: settings.providers,
    defaultModel: settings.defaultModel ?? null,
  };
}

/** A fingerprint of what the settings grant: equal exactly when the grants are. */
export function settingsGrantsFingerprint(settings: Settings): string {
  return createHash("sha256")
    .update(JSON.stringify(grants(settings)))
    .digest("hex");
}

/**
 * The fingerprint of the grants in `<realRoot>/.lathe/settings.json` as it is now (a missing
 * file grants nothing), or undefined when the file cannot be read as settings: then nothing in
 * it can be the settings a person trusted.
 */
export function projectGrantsFingerprint(realRoot: string): string | undefined {
  try {
    return settingsGrantsFingerprint(loadSettings(path.join(realRoot, ".lathe", "settings.json")));
  } catch (err) {
    if (ConfigError.isInstance(err)) return undefined;
    throw err;
  }
}
