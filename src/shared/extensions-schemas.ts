// The shapes of the extensions panels: plugins, MCP servers, and what could not load. The host
// sends them as answers and as the `extensions.changed` push; requests that change the user's
// settings (add, edit, remove a server; enable or disable a plugin) are checked against them too.
import { z } from "zod";
import { ToolOriginSchema } from "./tool-origin.ts";

export const PluginLayerSchema = z.enum(["bundled", "global", "project"]);
const McpLayerSchema = z.enum(["global", "project"]);

/** A plugin folder name, as `disabledPlugins` and trust pins name it. */
export const PluginNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\s:/\\]+$/, "use the plugin's folder name");

export const PluginHashSchema = z.string().regex(/^[0-9a-f]{64}$/, "use the plugin's content hash");

/** An MCP server's name in `mcpServers` (the same rule as the settings file). */
export const McpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, _ or -");

const EnvNameSchema = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    "use a variable name: letters, digits and _, not starting with a digit",
  );
const HeaderNameSchema = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, "use a header name such as Authorization");

const atMost =
  (count: number) =>
  (record: Record<string, unknown>): boolean =>
    Object.keys(record).length <= count;

/**
 * An MCP server as the form edits it: a command with its arguments and environment, or a
 * Streamable HTTP URL with headers. A header value of `null` means "keep the value saved now"
 * (the host never sends header values to the page: they are credentials).
 */
export const McpServerFormSchema = z.discriminatedUnion("transport", [
  z.strictObject({
    transport: z.literal("stdio"),
    command: z.string().trim().min(1, "enter the command to run").max(4096),
    args: z.array(z.string().max(8192)).max(256),
    env: z.record(EnvNameSchema, z.string().max(8192)).refine(atMost(100), "at most 100 variables"),
    /** Relative to the workspace root; the root when absent. */
    cwd: z.string().min(1).max(4096).optional(),
  }),
  z.strictObject({
    transport: z.literal("http"),
    url: z.url({ protocol: /^https?$/, error: "enter an http:// or https:// URL" }).max(4096),
    headers: z
      .record(HeaderNameSchema, z.string().max(8192).nullable())
      .refine(atMost(100), "at most 100 headers"),
  }),
]);

const PluginInfoSchema = z.strictObject({
  /** The folder name. */
  name: z.string(),
  layer: PluginLayerSchema,
  dir: z.string(),
  state: z.enum(["loaded", "disabled"]),
  toolId: z.string().optional(),
  version: z.string().optional(),
  /** The content hash of tool.yaml, TOOL.md and the entry file, as read now. */
  hash: z.string().optional(),
  /** Why it is disabled, and what fixes it. */
  reason: z.string().optional(),
  /** The one command or action that loads it again (`lathe trust …`, `lathe plugin check …`). */
  fix: z.string().optional(),
  /** Where its log goes (runtime.log, console, restarts): `$LATHE_HOME/logs/plugins/<name>.log`. */
  logFile: z.string(),
  /** The user turned it off (`disabledPlugins` in their settings). */
  disabledByUser: z.boolean(),
  /**
   * Project plugins only: approved as it is now, new or changed since the folder was trusted
   * (it needs the user's approval again), or waiting for the folder to be trusted at all.
   */
  approval: z.enum(["approved", "new", "changed", "untrusted"]).optional(),
});

const McpServerStateSchema = z.enum(["starting", "connected", "reconnecting", "failed", "disabled"]);

const McpServerInfoSchema = z.strictObject({
  name: z.string(),
  layer: McpLayerSchema,
  state: McpServerStateSchema,
  /** The exact command line (or URL) it starts with. */
  commandLine: z.string(),
  toolCount: z.number().int().nonnegative(),
  lastError: z.string().optional(),
  /** What a person should know about its tools that is no error (a description cut for the model). */
  notes: z.array(z.string()).optional(),
  /** The settings file it comes from. */
  source: z.string(),
  logFile: z.string().optional(),
  pid: z.number().int().optional(),
  /** Started by the engine (connected or not): it can be restarted. */
  canRestart: z.boolean(),
  /** In the user's own settings: the app may edit, remove, enable or disable it. */
  editable: z.boolean(),
  /** `"disabled": true` in settings: it is not started. */
  disabledInSettings: z.boolean(),
  /** What the edit form starts from (user servers only; header values withheld as null). */
  config: McpServerFormSchema.optional(),
});

/** A tool, plugin or server that is not in use: why, and what the person can do about it. */
const DisabledEntrySchema = z.strictObject({
  id: z.string(),
  origin: ToolOriginSchema,
  reason: z.string(),
  fix: z.string(),
});

export const ExtensionsStatusSchema = z.strictObject({
  projectTrusted: z.boolean(),
  /** The file the app edits for plugin and MCP server changes. */
  userSettingsFile: z.string(),
  plugins: z.array(PluginInfoSchema),
  mcpServers: z.array(McpServerInfoSchema),
  disabled: z.array(DisabledEntrySchema),
  /** Why the user's settings cannot be read right now (nothing can be changed until it is fixed). */
  settingsProblem: z.string().optional(),
});

export const McpPreviewSchema = z.strictObject({
  /** Exactly what will run (or be connected to), as it will be shown in the server list. */
  commandLine: z.string(),
  /**
   * What will run, exactly and unmasked, as an opaque digest: send it back to `mcp.save` to
   * confirm. The line above masks secret values; this does not, so a secret changed after the
   * review is not saved as confirmed.
   */
  digest: z.string(),
  /** A server of this name is already in the user's settings. */
  exists: z.boolean(),
});

export const McpLogSchema = z.strictObject({
  name: z.string(),
  file: z.string(),
  lines: z.array(z.string()),
});

/** The last lines of a plugin's log file: what it logged, and Lathe's notes (restarts, failed calls). */
export const PluginLogSchema = z.strictObject({
  name: z.string(),
  layer: PluginLayerSchema,
  file: z.string(),
  lines: z.array(z.string()),
});

export type PluginLayer = z.output<typeof PluginLayerSchema>;
export type McpServerForm = z.output<typeof McpServerFormSchema>;
export type PluginInfo = z.output<typeof PluginInfoSchema>;
export type McpServerState = z.output<typeof McpServerStateSchema>;
export type McpServerInfo = z.output<typeof McpServerInfoSchema>;
export type DisabledEntry = z.output<typeof DisabledEntrySchema>;
export type ExtensionsStatus = z.output<typeof ExtensionsStatusSchema>;
export type McpPreview = z.output<typeof McpPreviewSchema>;
