import { open } from "node:fs/promises";
import {
  LatheError,
  SETTINGS_FOLDER_MODE,
  SettingsFile,
  TrustStore,
  approveServers,
  describeProjectPlugins,
  mcpCommandLine,
  mcpConfigDigest,
  mcpLogFile,
  pluginLogFile,
  pluginPinKey,
  serverPinKey,
  type Engine,
  type McpServerConfig,
  type SettingsDocument,
} from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import type { ApiHandlers } from "./api-router.ts";
import type { EngineHost } from "./engine-host.ts";
import { entryFromForm } from "./mcp-server-config.ts";

type ExtensionChannels =
  | "extensions.status"
  | "plugins.setEnabled"
  | "plugins.approve"
  | "plugins.log"
  | "mcp.preview"
  | "mcp.save"
  | "mcp.remove"
  | "mcp.setEnabled"
  | "mcp.restart"
  | "mcp.log";

/** How much of a log file on disk is read to find its last lines. */
const LOG_READ_BYTES = 256 * 1024;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A settings file the person must fix is their problem to solve, not a host failure: say it as-is. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (LatheError.isInstance(error)) throw new ApiError(error.message, { cause: error });
    throw error;
  }
}

function userSettings(engine: Engine): SettingsFile {
  return new SettingsFile(engine.policy.userSettingsFile, { folderMode: SETTINGS_FOLDER_MODE.user });
}

/** The `mcpServers` object of a settings document (created when absent). */
function serversIn(document: SettingsDocument): Record<string, unknown> {
  const servers = document["mcpServers"];
  if (isObject(servers)) return servers;
  const fresh: Record<string, unknown> = {};
  document["mcpServers"] = fresh;
  return fresh;
}

function notInUserSettings(name: string, engine: Engine): ApiError {
  return new ApiError(
    `There is no MCP server "${name}" in your settings (${engine.policy.userSettingsFile}). A server from the project's settings (${engine.policy.projectSettingsFile}) is changed in that file, not here.`,
  );
}

function extensionsOf(engine: Engine) {
  const extensions = engine.extensions;
  if (!extensions) throw new ApiError("This Lathe runs without plugins and MCP servers.");
  return extensions;
}

/** The last `count` lines of a log file on disk; none when it does not exist yet. */
async function tailOfFile(file: string, count: number): Promise<string[]> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - LOG_READ_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString("utf8").split("\n");
    if (start > 0) lines.shift();
    if (lines.at(-1) === "") lines.pop();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}

/** Whether the user approved a server of this name before (its command line or its tools are pinned). */
function hasPins(engine: Engine, name: string): boolean {
  const key = serverPinKey(name);
  return Object.keys(new TrustStore(engine.latheHome).pins("global")).some(
    (pin) => pin === key || pin.startsWith(`${key}:`),
  );
}

/**
 * The extensions channels: the panels' status, turning plugins off and on, approving a changed
 * project plugin, reading a plugin's log, and adding, editing, removing, enabling, restarting MCP servers and reading
 * their logs. Changes to servers edit the user's settings file (never the project's) and then
 * reload the host's engine; plugin changes apply to the running engine between calls.
 */
export function createExtensionHandlers(host: EngineHost): Pick<ApiHandlers, ExtensionChannels> {
  /** After a change to the running engine: apply it, tell every window, answer with the status. */
  const settled = async () => {
    await host.refreshExtensions();
    return host.extensions();
  };

  return {
    "extensions.status": () => host.extensions(),

    "plugins.setEnabled": ({ layer, name, enabled }) =>
      refusing(() =>
        host.changingSettings(async () => {
          const engine = host.current;
          const plugins = extensionsOf(engine).plugins;
          const all = plugins.status();
          if (!all.some((p) => p.layer === layer && p.name === name)) {
            throw new ApiError(`There is no ${layer} plugin "${name}". Reload the list and try again.`);
          }
          await userSettings(engine).update((document) => {
            const current = Array.isArray(document["disabledPlugins"])
              ? document["disabledPlugins"].filter((entry): entry is string => typeof entry === "string")
              : [];
            const scoped = `${layer}:${name}`;
            let next = current.filter((entry) => entry !== scoped);
            if (!enabled) next.push(scoped);
            else if (next.includes(name)) {
              // A bare name turns the plugin off in every layer: keep the other layers off.
              next = next.filter((entry) => entry !== name);
              for (const other of all) {
                const entry = `${other.layer}:${name}`;
                if (other.name === name && other.layer !== layer && !next.includes(entry)) next.push(entry);
              }
            }
            if (next.length > 0) document["disabledPlugins"] = next;
            else delete document["disabledPlugins"];
          });
          await plugins.reload();
          return settled();
        }),
      ),

    "plugins.approve": ({ name, hash }) =>
      refusing(async () => {
        const engine = host.current;
        if (!engine.policy.projectTrusted) {
          throw new ApiError(`Trust this folder before approving its plugins (Plugins → Trust this folder).`);
        }
        const plugin = (await describeProjectPlugins(engine.root, engine.latheHome)).find(
          (p) => p.name === name,
        );
        if (!plugin)
          throw new ApiError(`There is no project plugin "${name}" in ${engine.root}/.lathe/tools.`);
        if (plugin.hash !== hash) {
          throw new ApiError(
            `The plugin ${name} changed again after it was shown to you, so nothing was approved. Review ${plugin.dir} again.`,
          );
        }
        new TrustStore(engine.latheHome).pin(engine.root, { [pluginPinKey(name)]: hash });
        await extensionsOf(engine).plugins.reload();
        return settled();
      }),

    "plugins.log": ({ layer, name, lines }) =>
      refusing(async () => {
        const engine = host.current;
        if (
          !extensionsOf(engine)
            .plugins.status()
            .some((p) => p.layer === layer && p.name === name)
        ) {
          throw new ApiError(`There is no ${layer} plugin "${name}". Reload the list and try again.`);
        }
        const file = pluginLogFile(engine.latheHome, name);
        return { name, layer, file, lines: await tailOfFile(file, lines) };
      }),

    "mcp.preview": ({ name, server }) =>
      refusing(async () => {
        const engine = host.current;
        const { document } = await userSettings(engine).read();
        const existing = isObject(document["mcpServers"]) ? document["mcpServers"][name] : undefined;
        const { config } = entryFromForm(name, server, existing);
        return {
          commandLine: mcpCommandLine(config, engine.root),
          digest: mcpConfigDigest(config, engine.root),
          exists: existing !== undefined,
        };
      }),

    "mcp.save": ({ name, server, mode, confirmedDigest }) =>
      refusing(() =>
        host.changingSettings(async () => {
          const engine = host.current;
          const file = engine.policy.userSettingsFile;
          let saved: McpServerConfig | undefined;
          await userSettings(engine).update((document) => {
            const servers = serversIn(document);
            const existing = servers[name];
            if (mode === "add" && existing !== undefined) {
              throw new ApiError(
                `There is already an MCP server "${name}" in ${file}. Pick another name, or edit that one.`,
              );
            }
            if (mode === "edit" && existing === undefined) throw notInUserSettings(name, engine);
            const { entry, config } = entryFromForm(name, server, existing);
            // The digest, not the shown line: that masks secret values, so it would let a token
            // changed after the review pass as confirmed (and be approved below).
            if (mcpConfigDigest(config, engine.root) !== confirmedDigest) {
              throw new ApiError(
                `MCP server "${name}" was not saved: the command you confirmed is not the one that would run (${mcpCommandLine(config, engine.root)}; a masked value may differ). Review it again.`,
              );
            }
            servers[name] = entry;
            saved = config;
          });
          // A server of this name was approved before: approve what the person just confirmed
          // (its command line and its tools as listed now), so an edit does not lock it out.
          if (saved && !saved.disabled && hasPins(engine, name)) {
            const results = await approveServers({
              servers: [{ name, config: saved, layer: "global", source: file }],
              trust: new TrustStore(engine.latheHome),
              root: engine.root,
              latheHome: engine.latheHome,
              connectTimeoutMs: 20_000,
            });
            for (const result of results) {
              if (result.error !== undefined) {
                console.error(
                  `lathe: MCP server ${name} could not list its tools for approval: ${result.error}`,
                );
              }
            }
          }
          await host.reload();
          return host.extensions();
        }),
      ),

    "mcp.remove": ({ name }) =>
      refusing(() =>
        host.changingSettings(async () => {
          const engine = host.current;
          await userSettings(engine).update((document) => {
            const servers = serversIn(document);
            if (servers[name] === undefined) throw notInUserSettings(name, engine);
            delete servers[name];
          });
          await host.reload();
          return host.extensions();
        }),
      ),

    "mcp.setEnabled": ({ name, enabled }) =>
      refusing(() =>
        host.changingSettings(async () => {
          const engine = host.current;
          await userSettings(engine).update((document) => {
            const entry = serversIn(document)[name];
            if (!isObject(entry)) throw notInUserSettings(name, engine);
            if (enabled) delete entry["disabled"];
            else entry["disabled"] = true;
          });
          await host.reload();
          return host.extensions();
        }),
      ),

    "mcp.restart": ({ name }) =>
      refusing(async () => {
        const mcp = extensionsOf(host.current).mcp;
        if (!mcp.status().some((s) => s.name === name)) {
          throw new ApiError(
            `MCP server "${name}" is not running in this window (it is turned off, not trusted, or not configured), so it cannot be restarted.`,
          );
        }
        const restarting = mcp.restart(name);
        // Show "starting" at once; the watch reports "connected" (or why not) when it settles.
        void host.refreshExtensions();
        await restarting;
        return settled();
      }),

    "mcp.log": ({ name, lines }) =>
      refusing(async () => {
        const engine = host.current;
        const mcp = extensionsOf(engine).mcp;
        const running = mcp.status().find((s) => s.name === name);
        if (running) return { name, file: running.logFile, lines: mcp.logTail(name, lines) };
        const file = mcpLogFile(engine.latheHome, name);
        return { name, file, lines: await tailOfFile(file, lines) };
      }),
  };
}
