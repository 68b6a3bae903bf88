import { readFile } from "node:fs/promises";
import path from "node:path";
import { commandLine } from "../mcp/mcp-command-line.ts";
import { describeProjectPlugins } from "../plugins/project-plugins.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { loadSettings } from "./lathe-settings.ts";
import { TrustStore } from "./trust-store.ts";

/** A project plugin and what its tool.yaml asks for. */
export interface GrantedPlugin {
  name: string;
  dir: string;
  pinned: "match" | "new" | "changed";
  requires?: RequirementSet;
  /** Why its manifest could not be read (it would not load either). */
  problem?: string;
}

/** What trusting a folder would turn on: everything its settings and plugins grant, read now. */
export interface ProjectGrants {
  root: string;
  trusted: boolean;
  settingsFile: string;
  rules: Array<{ permission: string; pattern: string; action: string }>;
  denyRules: number;
  hooks: Array<{ command: string; tools?: string[] }>;
  commands: string[];
  mcpServers: Array<{ name: string; commandLine: string }>;
  plugins: GrantedPlugin[];
  approvalsMode?: string;
  /** What could not be read (a malformed settings file): trusting it would not fix that. */
  problems: string[];
}

async function pluginRequires(dir: string): Promise<Pick<GrantedPlugin, "requires" | "problem">> {
  const file = path.join(dir, "tool.yaml");
  try {
    // The manifest parser (YAML, JSON Schema, semver) loads only when a folder is reviewed.
    const { parseManifest } = await import("../plugins/plugin-manifest.ts");
    return { requires: parseManifest(file, await readFile(file, "utf8")).requires };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Describe what a project folder asks for before a person trusts it (the app's trust dialog,
 * `lathe trust`): its allow and ask rules, hooks, extra shell commands, MCP servers with their
 * exact command lines, its plugins with what each requires, and its approval mode.
 */
export async function describeProjectGrants(root: string, latheHome: string): Promise<ProjectGrants> {
  const settingsFile = path.join(root, ".lathe", "settings.json");
  const grants: ProjectGrants = {
    root,
    trusted: new TrustStore(latheHome).isTrusted(root),
    settingsFile,
    rules: [],
    denyRules: 0,
    hooks: [],
    commands: [],
    mcpServers: [],
    plugins: [],
    problems: [],
  };
  try {
    const settings = loadSettings(settingsFile);
    for (const rule of settings.permissions) {
      if (rule.action === "deny") grants.denyRules++;
      else grants.rules.push({ permission: rule.permission, pattern: rule.pattern, action: rule.action });
    }
    grants.hooks = settings.hooks.map((hook) => ({
      command: hook.command,
      ...(hook.tools ? { tools: [...hook.tools] } : {}),
    }));
    grants.commands = settings.shell.map((c) =>
      c.args
        ? `${c.cmd} ${c.args.map((a) => (typeof a === "string" ? a : "wildcard" in a ? "*" : `${a.prefix}*`)).join(" ")}`
        : c.cmd,
    );
    grants.mcpServers = Object.entries(settings.mcpServers).map(([name, server]) => ({
      name,
      commandLine: commandLine(server, root),
    }));
    if (settings.approvals.mode) grants.approvalsMode = settings.approvals.mode;
  } catch (error) {
    grants.problems.push(error instanceof Error ? error.message : String(error));
  }
  for (const plugin of await describeProjectPlugins(root, latheHome)) {
    grants.plugins.push({
      name: plugin.name,
      dir: plugin.dir,
      pinned: plugin.pinned,
      ...(await pluginRequires(plugin.dir)),
    });
  }
  return grants;
}
