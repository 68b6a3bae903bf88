import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { Engine } from "../../src/main/engine/engine.ts";
import type { ApprovalMode } from "../../src/main/engine/config/lathe-settings.ts";
import { TrustStore } from "../../src/main/engine/policy/trust-store.ts";
import type { Session } from "../../src/main/engine/session/session.ts";
import { globalToolsDir, projectToolsDir } from "../../src/main/engine/plugins/plugin-discovery.ts";
import {
  PluginManager,
  type PluginLogEntry,
  type PluginManagerOptions,
} from "../../src/main/engine/plugins/plugin-manager.ts";

/**
 * Test support (not shipped behaviour): temp workspaces with plugin folders in every layer, a
 * real engine and a PluginManager wired to its registry, and helpers to write plugins.
 */

export interface PluginFiles {
  /** tool.yaml: text as is, or fields written as YAML. */
  yaml?: string | Record<string, unknown>;
  md?: string;
  js?: string;
  entryName?: string;
}

/** A valid tool.yaml for a tool `name`, with overrides. */
export function manifestFields(
  name: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    version: "1.0.0",
    description: `The ${name} test tool.`,
    input_schema: { type: "object", properties: {} },
    readOnly: true,
    gated: false,
    ...overrides,
  };
}

/** Write a plugin folder (files left undefined are not written). */
export async function writePlugin(toolsDir: string, folder: string, files: PluginFiles): Promise<string> {
  const dir = path.join(toolsDir, folder);
  await mkdir(dir, { recursive: true });
  if (files.yaml !== undefined) {
    await writeFile(
      path.join(dir, "tool.yaml"),
      typeof files.yaml === "string" ? files.yaml : stringify(files.yaml),
    );
  }
  if (files.md !== undefined) await writeFile(path.join(dir, "TOOL.md"), files.md);
  if (files.js !== undefined) {
    const entry = path.join(dir, files.entryName ?? "index.js");
    await mkdir(path.dirname(entry), { recursive: true });
    await writeFile(entry, files.js);
  }
  return dir;
}

/** A plugin whose execute body is `body` (it sees `args` and `runtime`). */
export function plugin(name: string, body: string, overrides: Record<string, unknown> = {}): PluginFiles {
  return {
    yaml: manifestFields(name, overrides),
    md: `Use ${name} in tests.`,
    js: `export async function execute(args, runtime) {\n${body}\n}\n`,
  };
}

export interface PluginWorld {
  base: string;
  /** Canonical workspace root. */
  root: string;
  latheHome: string;
  bundledDir: string;
  globalDir: string;
  projectDir: string;
  engine: Engine;
  manager: PluginManager;
  logs: PluginLogEntry[];
  session(mode?: ApprovalMode): Promise<Session>;
  cleanup(): Promise<void>;
}

export interface PluginWorldOptions {
  /** Trust the project before the engine starts (so its plugins may load). */
  trusted?: boolean;
  /** Use this bundled directory (e.g. the repo's plugins/) instead of an empty one. */
  bundledDir?: string;
  /** Write plugins before loading. */
  arrange?(world: Omit<PluginWorld, "engine" | "manager" | "session" | "cleanup" | "logs">): Promise<void>;
  manager?: Partial<PluginManagerOptions>;
}

export async function openPluginWorld(options: PluginWorldOptions = {}): Promise<PluginWorld> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-plugins-")));
  const root = path.join(base, "ws");
  const latheHome = path.join(base, "home");
  const bundledDir = options.bundledDir ?? path.join(base, "bundled");
  await mkdir(root);
  await mkdir(latheHome);
  if (!options.bundledDir) await mkdir(bundledDir);
  const dirs = {
    base,
    root,
    latheHome,
    bundledDir,
    globalDir: globalToolsDir(latheHome),
    projectDir: projectToolsDir(root),
  };
  await options.arrange?.(dirs);
  if (options.trusted) new TrustStore(latheHome).trust(root);
  // The kit runs its own PluginManager; the engine's own extensions would load the same folders twice.
  const engine = await Engine.create({ root, latheHome, extensions: false });
  const logs: PluginLogEntry[] = [];
  const manager = new PluginManager({
    registry: engine.registry,
    root: engine.root,
    latheHome: engine.latheHome,
    bundledDir,
    projectTrusted: engine.policy.projectTrusted,
    watch: false,
    onLog: (entry) => logs.push(entry),
    ...options.manager,
  });
  await manager.load();
  return {
    ...dirs,
    engine,
    manager,
    logs,
    session: (mode = "yolo") => engine.openSession({ mode }),
    async cleanup() {
      await manager.close();
      await engine.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
