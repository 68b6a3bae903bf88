import path from "node:path";
import { effectiveSandboxSettings, type EffectiveSandboxSettings } from "../sandbox/sandbox-settings.ts";
import type { ShellRunRequirement } from "../tools/requirement-set.ts";
import {
  loadSettings,
  type ApprovalMode,
  type Hook,
  type McpServerConfig,
  type Settings,
} from "./lathe-settings.ts";
import type { PermissionRule, ScopedRule } from "../policy/permission-rule.ts";
import { TrustStore } from "../policy/trust-store.ts";
import { keyVariablesOf } from "./key-variables.ts";

export interface SourcedHook extends Hook {
  source: string;
}

/** An MCP server from settings, with the layer and file it came from. */
export interface SourcedMcpServer {
  name: string;
  config: McpServerConfig;
  layer: "global" | "project";
  source: string;
}

/** Everything the policy needs from settings files, manifest and trust, resolved once per engine. */
export interface PolicyConfig {
  rules: ScopedRule[];
  hooks: SourcedHook[];
  /** The approval mode settings ask for; a host's explicit mode wins over it. */
  mode: ApprovalMode | undefined;
  allowlist: string[];
  cacheApprovalsInProject: boolean;
  shell: ShellRunRequirement[];
  /** MCP servers: the user's, then the project's (only once the project is trusted; same name: project wins). */
  mcpServers: SourcedMcpServer[];
  /** web_fetch and web_search settings (the user's; a trusted project's replace them). */
  web: Settings["web"];
  /** Variables holding Lathe's keys (defaults, and those the user's or a trusted project's settings name). */
  keyVariables: string[];
  /** The OS sandbox: the user's settings, narrowed (never widened) by the project's. */
  sandbox: EffectiveSandboxSettings;
  projectTrusted: boolean;
  userSettingsFile: string;
  projectSettingsFile: string;
  /** Things the user should be told once (ignored project settings). */
  notices: string[];
}

interface PolicyConfigInput {
  root: string;
  latheHome: string;
  manifestRules?: readonly PermissionRule[];
  manifestName?: string;
}

function scoped(rules: readonly PermissionRule[], scope: ScopedRule["scope"], source: string): ScopedRule[] {
  return rules.map((r) => ({ ...r, scope, source }));
}

/**
 * Read user and project settings and apply Project Trust: until the user trusts the folder, and
 * again once its settings grant something other than what was trusted, its settings can only add
 * deny rules; its allow/ask rules, hooks, approval settings and extra shell commands are ignored,
 * with one notice saying so and how to trust it.
 */
export function loadPolicyConfig(input: PolicyConfigInput): PolicyConfig {
  const userSettingsFile = path.join(input.latheHome, "settings.json");
  const projectSettingsFile = path.join(input.root, ".lathe", "settings.json");
  const user = loadSettings(userSettingsFile);
  const project = loadSettings(projectSettingsFile);
  const trustState = new TrustStore(input.latheHome).state(input.root);
  const projectTrusted = trustState === "trusted";
  const notices: string[] = [];

  let projectRules = project.permissions;
  let effectiveProject: Settings = project;
  if (!projectTrusted) {
    const ignoredRules = project.permissions.filter((r) => r.action !== "deny");
    const ignored: string[] = [];
    if (ignoredRules.length > 0)
      ignored.push(`${ignoredRules.length} allow/ask rule${ignoredRules.length > 1 ? "s" : ""}`);
    if (project.hooks.length > 0)
      ignored.push(`${project.hooks.length} hook${project.hooks.length > 1 ? "s" : ""}`);
    if (project.shell.length > 0) ignored.push("extra shell commands");
    if (
      project.approvals.mode ||
      project.approvals.allowlist.length > 0 ||
      project.approvals.cacheInProject
    ) {
      ignored.push("approval settings");
    }
    const servers = Object.keys(project.mcpServers).length;
    if (servers > 0) ignored.push(`${servers} MCP server${servers > 1 ? "s" : ""}`);
    if (project.web.fetch.allowPrivateHosts.length > 0 || project.web.search.providers.length > 0)
      ignored.push("web settings");
    if (trustState === "settings-changed") {
      notices.push(
        `What ${projectSettingsFile} or the agents in ${path.join(input.root, ".lathe", "agents")} grant is not what they granted when you trusted this folder (they changed since, or it was trusted by an older Lathe), so the folder counts as not trusted: ${ignored.length > 0 ? `${ignored.join(", ")} in it ${areOrIs(ignored)} ignored (its deny rules still apply), and ` : ""}its plugins, agents and skills do not load. Review what it grants with: lathe trust --dry-run --root ${input.root}; then trust it again: lathe trust --root ${input.root}`,
      );
    } else if (ignored.length > 0) {
      notices.push(
        `This folder is not trusted, so ${ignored.join(", ")} in ${projectSettingsFile} ${areOrIs(ignored)} ignored (its deny rules still apply). Review the file, then run: lathe trust --root ${input.root}`,
      );
    }
    projectRules = project.permissions.filter((r) => r.action === "deny");
    effectiveProject = {
      ...project,
      hooks: [],
      shell: [],
      mcpServers: {},
      approvals: { allowlist: [], cacheInProject: false },
    };
  }

  // Only the person's own settings turn plugins off (the Plugins panel writes them there); read
  // from the folder's file it would be silently ignored, the plugin still loading.
  if (project.disabledPlugins.length > 0) {
    notices.push(
      `${projectSettingsFile} lists disabledPlugins (${project.disabledPlugins.join(", ")}), which only your own settings can do, so the plugins still load: move the entries to ${userSettingsFile}, or turn the plugins off under Plugins in the app.`,
    );
  }

  const sandbox = effectiveSandboxSettings(user.sandbox, project.sandbox, {
    user: userSettingsFile,
    project: projectSettingsFile,
  });
  notices.push(...sandbox.notices);

  return {
    rules: [
      ...scoped(input.manifestRules ?? [], "manifest", input.manifestName ?? "the agent manifest"),
      ...scoped(projectRules, "project", projectSettingsFile),
      ...scoped(user.permissions, "user", userSettingsFile),
    ],
    hooks: [
      ...user.hooks.map((h) => ({ ...h, source: userSettingsFile })),
      ...effectiveProject.hooks.map((h) => ({ ...h, source: projectSettingsFile })),
    ],
    mode: effectiveProject.approvals.mode ?? user.approvals.mode,
    allowlist: [...user.approvals.allowlist, ...effectiveProject.approvals.allowlist],
    cacheApprovalsInProject: user.approvals.cacheInProject || effectiveProject.approvals.cacheInProject,
    shell: [...user.shell, ...effectiveProject.shell],
    mcpServers: mergeServers(user, effectiveProject, userSettingsFile, projectSettingsFile),
    web: projectTrusted && hasWebSettings(project) ? project.web : user.web,
    keyVariables: keyVariablesOf(projectTrusted ? [user, project] : [user]),
    sandbox,
    projectTrusted,
    userSettingsFile,
    projectSettingsFile,
    notices,
  };
}

function hasWebSettings(settings: Settings): boolean {
  return settings.web.fetch.allowPrivateHosts.length > 0 || settings.web.search.providers.length > 0;
}

function mergeServers(
  user: Settings,
  project: Settings,
  userFile: string,
  projectFile: string,
): SourcedMcpServer[] {
  const byName = new Map<string, SourcedMcpServer>();
  for (const [name, config] of Object.entries(user.mcpServers))
    byName.set(name, { name, config, layer: "global", source: userFile });
  for (const [name, config] of Object.entries(project.mcpServers))
    byName.set(name, { name, config, layer: "project", source: projectFile });
  return [...byName.values()].filter((s) => !s.config.disabled);
}

/**
 * The verb for a list of ignored things: "are" for several, or for one said in the plural
 * ("approval settings", "web settings", "extra shell commands", "2 hooks"); "is" for "1 hook".
 */
function areOrIs(things: readonly string[]): string {
  return things.length > 1 || things[0]?.endsWith("s") === true ? "are" : "is";
}
