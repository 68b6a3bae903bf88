import type {
  DisabledEntry,
  ExtensionsStatus,
  McpServerInfo,
  PluginInfo,
} from "../../shared/extensions-schemas.ts";
import {
  SETTINGS_FOLDER_MODE,
  SettingsFile,
  TrustStore,
  mcpCommandLine,
  mcpLogFile,
  pluginLogFile,
  pluginPinKey,
  type Engine,
  type ManagedPluginStatus,
  type Settings,
  type SettingsDocument,
} from "../engine/index.ts";
import { formFromConfig } from "./mcp-server-config.ts";
import { errorMessage } from "../engine/light.ts";

/** A settings file as the panels need it: what it says, or why it cannot be read. */
type SettingsView = { document: SettingsDocument; settings: Settings } | { problem: string };

async function readSettings(file: string, scope: "user" | "project"): Promise<SettingsView> {
  try {
    return await new SettingsFile(file, { folderMode: SETTINGS_FOLDER_MODE[scope] }).read();
  } catch (error) {
    return { problem: errorMessage(error) };
  }
}

function approvalOf(
  plugin: ManagedPluginStatus,
  trusted: boolean,
  pins: Record<string, string>,
): PluginInfo["approval"] {
  if (plugin.layer !== "project") return undefined;
  if (!trusted) return "untrusted";
  const pinned = pins[pluginPinKey(plugin.name)];
  if (pinned === undefined) return "new";
  return pinned === plugin.hash ? "approved" : "changed";
}

function pluginInfos(engine: Engine): PluginInfo[] {
  const statuses = engine.extensions?.plugins.status() ?? [];
  const trusted = engine.policy.projectTrusted;
  const pins =
    trusted && statuses.some((s) => s.layer === "project")
      ? new TrustStore(engine.latheHome).pins(engine.root)
      : {};
  return statuses.map((s) => {
    const approval = approvalOf(s, trusted, pins);
    return {
      name: s.name,
      layer: s.layer,
      dir: s.dir,
      state: s.state === "active" || s.state === "initialized" ? "loaded" : "disabled",
      ...(s.toolId !== undefined ? { toolId: s.toolId } : {}),
      ...(s.version !== undefined ? { version: s.version } : {}),
      ...(s.hash !== undefined ? { hash: s.hash } : {}),
      ...(s.reason !== undefined ? { reason: s.reason } : {}),
      ...(s.fix !== undefined ? { fix: s.fix } : {}),
      logFile: pluginLogFile(engine.latheHome, s.name),
      disabledByUser: s.disabledByUser,
      ...(approval !== undefined ? { approval } : {}),
    };
  });
}

function mcpInfos(engine: Engine, user: SettingsView, project: SettingsView | undefined): McpServerInfo[] {
  const userServers = "settings" in user ? user.settings.mcpServers : {};
  const userDocument = "document" in user ? user.document["mcpServers"] : undefined;
  const inUserFile = (name: string): boolean =>
    typeof userDocument === "object" && userDocument !== null && Object.hasOwn(userDocument, name);
  const userFile = engine.policy.userSettingsFile;

  const running: McpServerInfo[] = (engine.extensions?.mcp.status() ?? []).map((s) => {
    const editable = s.layer === "global" && inUserFile(s.name);
    const config = editable ? userServers[s.name] : undefined;
    return {
      name: s.name,
      layer: s.layer,
      state: s.state,
      commandLine: s.commandLine,
      toolCount: s.toolCount,
      ...(s.lastError !== undefined ? { lastError: s.lastError } : {}),
      ...(s.notes !== undefined ? { notes: s.notes } : {}),
      source: s.source,
      logFile: s.logFile,
      ...(s.pid !== undefined ? { pid: s.pid } : {}),
      canRestart: true,
      editable,
      disabledInSettings: false,
      ...(config ? { config: formFromConfig(config) } : {}),
    };
  });
  const listed = new Set(running.map((s) => s.name));
  const idle: McpServerInfo[] = [];
  for (const [name, config] of Object.entries(userServers)) {
    if (listed.has(name) || !config.disabled) continue;
    idle.push({
      name,
      layer: "global",
      state: "disabled",
      commandLine: mcpCommandLine(config, engine.root),
      toolCount: 0,
      lastError: `Turned off in ${userFile} ("disabled": true); it is not started.`,
      source: userFile,
      logFile: mcpLogFile(engine.latheHome, name),
      canRestart: false,
      editable: inUserFile(name),
      disabledInSettings: true,
      config: formFromConfig(config),
    });
  }
  if (project && "settings" in project) {
    for (const [name, config] of Object.entries(project.settings.mcpServers)) {
      if (config.disabled) continue;
      idle.push({
        name,
        layer: "project",
        state: "disabled",
        commandLine: mcpCommandLine(config, engine.root),
        toolCount: 0,
        lastError: `Not started: this folder is not trusted. Its servers start once you trust it, with exactly this command.`,
        source: engine.policy.projectSettingsFile,
        logFile: mcpLogFile(engine.latheHome, name),
        canRestart: false,
        editable: false,
        disabledInSettings: false,
      });
    }
  }
  return [...running, ...idle].sort((a, b) => a.name.localeCompare(b.name));
}

function pluginFix(plugin: PluginInfo | undefined): string {
  if (!plugin) return "Fix the file named above; Lathe reloads plugin folders when they change.";
  if (plugin.disabledByUser) return "Enable it under Plugins.";
  if (plugin.approval === "untrusted")
    return "Review the folder, then trust it (Plugins → Trust this folder).";
  if (plugin.approval === "new" || plugin.approval === "changed") {
    return "Review the plugin's folder, then approve it under Plugins.";
  }
  return "Fix the file named above; Lathe reloads plugin folders when they change.";
}

function disabledEntries(
  engine: Engine,
  plugins: PluginInfo[],
  servers: McpServerInfo[],
  project: SettingsView | undefined,
): DisabledEntry[] {
  const entries: DisabledEntry[] = engine.registry.disabledTools().map((d) => {
    let fix: string;
    if (d.origin.name === undefined) fix = "Fix the file or folder named above.";
    else if (d.origin.kind === "plugin") {
      const plugin = plugins.find((p) => p.layer === d.origin.layer && p.name === d.origin.name);
      fix = pluginFix(plugin);
    } else fix = "Open its log under MCP servers, fix the server or its settings, then restart it.";
    return { id: d.id, origin: { ...d.origin }, reason: d.reason, fix };
  });
  for (const server of servers) {
    if (server.disabledInSettings) {
      entries.push({
        id: server.name,
        origin: { layer: server.layer, kind: "mcp", name: server.name },
        reason: server.lastError ?? "Turned off in settings.",
        fix: "Enable it under MCP servers.",
      });
    } else if (server.layer === "project" && !engine.policy.projectTrusted) {
      entries.push({
        id: server.name,
        origin: { layer: "project", kind: "mcp", name: server.name },
        reason: server.lastError ?? "This folder is not trusted.",
        fix: "Review its command under MCP servers, then trust this folder.",
      });
    }
  }
  if (project && "problem" in project) {
    entries.push({
      id: engine.policy.projectSettingsFile,
      origin: { layer: "project", kind: "mcp" },
      reason: project.problem,
      fix: "Fix the project's settings file.",
    });
  }
  return entries;
}

/**
 * Everything the Tools, Plugins and MCP servers panels show about extensions, read from the
 * engine (plugin and server status, the registry's disabled entries), the user's settings
 * (servers turned off, what the app may edit) and, for a folder not trusted yet, the project's
 * servers and the exact command each would run.
 */
export async function extensionsStatus(engine: Engine): Promise<ExtensionsStatus> {
  const user = await readSettings(engine.policy.userSettingsFile, "user");
  const project = engine.policy.projectTrusted
    ? undefined
    : await readSettings(engine.policy.projectSettingsFile, "project");
  const plugins = pluginInfos(engine);
  const mcpServers = mcpInfos(engine, user, project);
  return {
    projectTrusted: engine.policy.projectTrusted,
    userSettingsFile: engine.policy.userSettingsFile,
    plugins,
    mcpServers,
    disabled: disabledEntries(engine, plugins, mcpServers, project),
    ...("problem" in user ? { settingsProblem: user.problem } : {}),
  };
}
