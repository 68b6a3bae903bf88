import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { serversTrustApproves } from "../mcp/mcp-approval.ts";
import { isStdio } from "../mcp/mcp-command-line.ts";
import { describeServers } from "../mcp/mcp-pins.ts";
import {
  defaultBundledDir,
  discoverFolders,
  globalToolsDir,
  projectToolsDir,
  type PluginFolder,
} from "../plugins/plugin-discovery.ts";
import { hashPluginSource } from "../plugins/plugin-hash.ts";
import type { PluginManifest } from "../plugins/plugin-manifest.ts";
import { pinKey } from "../plugins/project-plugins.ts";
import { readPluginSource } from "../plugins/plugin-source.ts";
import { ConfigError } from "../errors/config-error.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { EMPTY_SETTINGS, loadSettings, type Settings } from "../config/lathe-settings.ts";
import { projectGrantsFingerprint } from "../config/project-settings-grants.ts";
import { agentManifestEntries } from "../agent/agent-manifest-entries.ts";
import { readAgentManifestFile } from "../agent/agent-manifest-file.ts";
import { decodeText } from "../builtin/text-codec.ts";
import { TrustStore } from "../policy/trust-store.ts";
import type { ArgPattern, ShellRunRequirement } from "../tools/requirement-set.ts";

/** What an extension may touch, as a person reads it before trusting the folder. */
interface ReviewedRequirements {
  read: string[];
  write: string[];
  hosts: string[];
  /** Commands with their argument shapes, e.g. `git log --oneline --max-count=…`. */
  commands: string[];
}

/** One project plugin or MCP server, as `lathe trust` and the app's trust dialog show it. */
export interface ReviewedExtension {
  kind: "plugin" | "mcp";
  /** The plugin folder or the server's name. */
  name: string;
  /** The tool id a plugin registers. */
  toolId?: string;
  /** The plugin folder, or the settings file that names the server. */
  location: string;
  /** Against what was approved last time: unchanged, changed since, or never approved. */
  pinned: "match" | "changed" | "new";
  requires: ReviewedRequirements;
  /** false: its calls run without asking, even where a rule says ask (shown apart from warnings). */
  gated: boolean;
  readOnly?: boolean;
  /** Tools of other layers it would hide (a project plugin over the user's or a bundled one). */
  shadows: string[];
  /** What deserves a second look before saying yes. */
  warnings: string[];
  /** Why it would not load at all. */
  error?: string;
}

export interface TrustReview {
  root: string;
  trusted: boolean;
  /** The project's settings file the grants are read from. */
  settingsFile: string;
  /** What the project's settings turn on once trusted (allow and ask rules; denies apply either way). */
  settings: { rules: string[]; hooks: string[]; commands: string[]; approvals?: string };
  /** How many deny rules the settings hold: they apply whether or not the folder is trusted. */
  denyRules: number;
  /**
   * The project's agent manifests as a person reads them: id, file, whether it replaces an
   * agent of the same id (`default` is the one every run uses), its rules and tools — or why
   * it would not load.
   */
  agents: string[];
  extensions: ReviewedExtension[];
  /** What could not be read (a malformed settings file): trusting the folder would not fix it. */
  problems: string[];
  /**
   * A digest of what the settings and agents grant, taken before the rest was read: trusting with
   * it (`trustProject(…, reviewed)`) records what was shown, and refuses a folder changed since.
   */
  grants?: string;
}

function argText(arg: ArgPattern): string {
  if (typeof arg === "string") return arg;
  return "wildcard" in arg ? "<any>" : `${arg.prefix}…`;
}

/** A shell requirement as a person reads it. */
function commandShape(req: ShellRunRequirement): string {
  return req.args ? [req.cmd, ...req.args.map(argText)].join(" ") : `${req.cmd} <any arguments>`;
}

function pluginWarnings(manifest: PluginManifest): string[] {
  // `gated: false` has its own field; these are the other things worth a second look.
  const warnings: string[] = [];
  if ((manifest.requires.net?.hosts ?? []).some((h) => h.trim() === "*" || h.trim().startsWith("*:")))
    warnings.push(
      'net hosts "*" — it may fetch from any public internet host (private addresses stay refused)',
    );
  for (const req of manifest.requires.shell ?? []) {
    if (!req.args) warnings.push(`it may run ${req.cmd} with any arguments (checked like bash commands)`);
  }
  if ((manifest.requires.fs?.write ?? []).length > 0)
    warnings.push(`it may write files (${(manifest.requires.fs?.write ?? []).join(", ")})`);
  if (manifest.wasm) warnings.push(`it runs WebAssembly (bounded to ${manifest.memoryMb} MB)`);
  return warnings;
}

/** The manifest parser (YAML, JSON Schema, semver), loaded when a review is asked for. */
const manifestParser = () => import("../plugins/plugin-manifest.ts");

async function toolNames(folders: readonly PluginFolder[]): Promise<Map<string, PluginFolder>> {
  const { parseManifest } = await manifestParser();
  const byTool = new Map<string, PluginFolder>();
  for (const folder of folders) {
    try {
      const source = await readPluginSource(folder);
      if (source.yamlDoc) byTool.set(parseManifest(source.yaml.file, source.yamlDoc).name, folder);
    } catch {
      // A broken plugin of another layer binds nothing, so nothing is shadowed.
    }
  }
  return byTool;
}

async function reviewPlugins(
  root: string,
  latheHome: string,
  bundledDir: string,
): Promise<ReviewedExtension[]> {
  const pins = new TrustStore(latheHome).pins(root);
  const project = await discoverFolders({ layer: "project", dir: projectToolsDir(root) });
  if (project.length === 0) return [];
  const { parseManifest } = await manifestParser();
  const earlier = await toolNames([
    ...(await discoverFolders({ layer: "bundled", dir: bundledDir })),
    ...(await discoverFolders({ layer: "global", dir: globalToolsDir(latheHome) })),
  ]);
  return Promise.all(
    project.map(async (folder): Promise<ReviewedExtension> => {
      const source = await readPluginSource(folder);
      const hash = hashPluginSource(source);
      const pinned = pins[pinKey(folder.name)];
      const base = {
        kind: "plugin" as const,
        name: folder.name,
        location: folder.dir,
        pinned:
          pinned === hash
            ? ("match" as const)
            : pinned === undefined
              ? ("new" as const)
              : ("changed" as const),
      };
      // A plugin named after a locked built-in fails here, with the reason.
      let manifest: PluginManifest;
      try {
        if (!source.yamlDoc) throw new Error(`${source.yaml.file} is missing or unreadable`);
        manifest = parseManifest(source.yaml.file, source.yamlDoc);
      } catch (err) {
        return {
          ...base,
          requires: { read: [], write: [], hosts: [], commands: [] },
          gated: true,
          shadows: [],
          warnings: [],
          error: (err as Error).message,
        };
      }
      const shadowed = earlier.get(manifest.name);
      const shadows = shadowed ? [`${shadowed.layer} plugin "${shadowed.name}" (tool ${manifest.name})`] : [];
      return {
        ...base,
        toolId: manifest.name,
        requires: {
          read: manifest.requires.fs?.read ?? [],
          write: manifest.requires.fs?.write ?? [],
          hosts: manifest.requires.net?.hosts ?? [],
          commands: (manifest.requires.shell ?? []).map(commandShape),
        },
        gated: manifest.gated,
        readOnly: manifest.readOnly,
        shadows,
        warnings: [
          ...(shadowed
            ? [`it replaces the ${shadowed.layer} plugin "${shadowed.name}" of the same name`]
            : []),
          ...pluginWarnings(manifest),
        ],
      };
    }),
  );
}

function reviewServers(root: string, latheHome: string): ReviewedExtension[] {
  const trust = new TrustStore(latheHome);
  const servers = serversTrustApproves(root, latheHome, trust);
  const described = describeServers(servers, trust, root);
  return servers.map((server, index): ReviewedExtension => {
    const description = described[index];
    const config = server.config;
    const hosts = isStdio(config) ? [] : [new URL(config.url).host];
    const commands = isStdio(config) ? [description?.commandLine ?? config.command] : [];
    const warnings = [
      server.layer === "global"
        ? `your own server (${server.source}): its command line changed since you approved it, and it stays stopped until you approve it again here`
        : isStdio(config)
          ? "it starts a program on this machine once the folder is trusted"
          : `it sends your calls to ${new URL(config.url).host}`,
      "its tools are listed when it first starts; every call to them is gated, and a tool named like a built-in is renamed mcp__" +
        `${server.name}__<tool>`,
    ];
    if (isStdio(config) && Object.keys(config.env).length > 0)
      warnings.push(`it sets the environment variables ${Object.keys(config.env).sort().join(", ")}`);
    if (isStdio(config) && (config.allowEnv ?? []).length > 0)
      warnings.push(`it receives ${(config.allowEnv ?? []).join(", ")} from your environment (allowEnv)`);
    return {
      kind: "mcp",
      name: server.name,
      location: server.source,
      pinned: description?.pinned ?? "new",
      requires: { read: [], write: [], hosts, commands },
      gated: true,
      shadows: [],
      warnings,
    };
  });
}

/** Each `.lathe/agents/*.md` of the project, as `lathe trust` and the trust dialog list it. */
async function reviewAgents(realRoot: string, latheHome: string): Promise<string[]> {
  const dir = path.join(realRoot, ".lathe", "agents");
  const entries = agentManifestEntries(dir, realRoot);
  if (entries.length === 0) return [];
  const { parseAgentManifest } = await import("../agent/parse-agent-manifest.ts");
  const userAgents = await readdir(path.join(latheHome, "agents")).catch(() => [] as string[]);
  return Promise.all(
    entries.map(async ({ name, file, refused }) => {
      if (refused !== undefined) return `${name}: will not load (${refused})`;
      try {
        const agent = parseAgentManifest(decodeText(readAgentManifestFile(file)).text, file, "project");
        const replaces =
          agent.id === "default"
            ? " — replaces the built-in agent every run uses"
            : userAgents.includes(`${agent.id}.md`)
              ? ` — replaces your agent "${agent.id}"`
              : "";
        const rules = agent.permissions.map((r) => `${r.action} ${r.permission} "${r.pattern}"`);
        const tools =
          agent.tools.allow.join(", ") +
          (agent.tools.deny.length > 0 ? ` except ${agent.tools.deny.join(", ")}` : "");
        return `${agent.id} (${name})${replaces}; rules: ${rules.length > 0 ? rules.join(", ") : "none"}; tools: ${tools}${agent.model ? `; model ${agent.model}` : ""}`;
      } catch (err) {
        if (!LatheError.isInstance(err)) throw err;
        return `${name}: will not load (${err.message.split("\n")[0]})`;
      }
    }),
  );
}

/**
 * What trusting a project turns on, before the person says yes: the grants of its settings, and
 * each of its plugins and MCP servers with what it requires (paths, hosts, commands), whether it
 * skips approval (`gated: false`), what it would shadow, and what deserves a second look. Reads
 * files only; no plugin code runs and no server starts. A malformed settings file is reported in
 * `problems` (its grants and servers are then unknown); the trust dialog and `lathe trust` both
 * read this one description.
 */
export async function describeTrustReview(
  root: string,
  latheHome: string,
  bundledDir: string = defaultBundledDir(),
): Promise<TrustReview> {
  const realRoot = await realpath(path.resolve(root));
  // First: a change while the review is read then makes the trust refuse, never pass unseen.
  const grants = projectGrantsFingerprint(realRoot);
  const settingsFile = path.join(realRoot, ".lathe", "settings.json");
  const problems: string[] = [];
  let settings: Settings;
  try {
    settings = loadSettings(settingsFile);
  } catch (err) {
    if (!ConfigError.isInstance(err)) throw err;
    problems.push(err.message);
    settings = EMPTY_SETTINGS;
  }
  const plugins = await reviewPlugins(realRoot, latheHome, bundledDir);
  return {
    root: realRoot,
    trusted: new TrustStore(latheHome).isTrusted(realRoot),
    settingsFile,
    settings: {
      rules: settings.permissions
        .filter((r) => r.action !== "deny")
        .map((r) => `${r.action} ${r.permission} "${r.pattern}"`),
      hooks: settings.hooks.map((h) => `${h.command}${h.tools ? ` (for ${h.tools.join(", ")})` : ""}`),
      commands: settings.shell.map(commandShape),
      ...(settings.approvals.mode ? { approvals: `mode ${settings.approvals.mode}` } : {}),
    },
    denyRules: settings.permissions.filter((r) => r.action === "deny").length,
    agents: await reviewAgents(realRoot, latheHome),
    extensions: [...plugins, ...(problems.length > 0 ? [] : reviewServers(realRoot, latheHome))],
    problems,
    ...(grants !== undefined ? { grants } : {}),
  };
}
