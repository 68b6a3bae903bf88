import { createHash } from "node:crypto";
import { agentManifestEntries } from "../agent/agent-manifest-entries.ts";
import { readAgentManifestFile } from "../agent/agent-manifest-file.ts";
import path from "node:path";
import { LatheError } from "../errors/lathe-error.ts";
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
 * The project's agent manifests (`.lathe/agents/*.md`), by name and content: each carries
 * permission rules (an `allow` there lifts an ask), tools and a system prompt, and one named
 * `default` replaces the built-in agent every run uses.
 */
function agentManifests(realRoot: string): Array<[string, string]> {
  // A link refused for leading out of the project loads nothing: what it leads to is not read.
  return agentManifestEntries(path.join(realRoot, ".lathe", "agents"), realRoot).map(
    ({ name, file, refused }) => [
      name,
      refused !== undefined
        ? `refused: ${refused}`
        : createHash("sha256").update(readAgentManifestFile(file)).digest("hex"),
    ],
  );
}

/**
 * The fingerprint of what `<realRoot>/.lathe/` grants as it is now — its settings' grants and
 * its agent manifests (a missing file grants nothing) — or undefined when something there
 * cannot be read: then it cannot be what a person trusted.
 */
export function projectGrantsFingerprint(realRoot: string): string | undefined {
  try {
    const settings = loadSettings(path.join(realRoot, ".lathe", "settings.json"));
    return createHash("sha256")
      .update(JSON.stringify([settingsGrantsFingerprint(settings), agentManifests(realRoot)]))
      .digest("hex");
  } catch (err) {
    // A settings file or an agent manifest that cannot be read (a ConfigError, a ManifestError).
    if (LatheError.isInstance(err) && (err.code === "config" || err.code === "manifest")) return undefined;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EISDIR" || code === "ENOTDIR" || code === "ELOOP") return undefined;
    throw err;
  }
}
