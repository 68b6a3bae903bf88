import type { McpEvent } from "../mcp/mcp-event.ts";
import { McpManager, type UnsandboxedServerApprover } from "../mcp/mcp-manager.ts";
import { PluginManager, type PluginLogEntry } from "../plugins/plugin-manager.ts";
import type { PolicyConfig } from "../config/policy-config.ts";
import { TrustStore } from "../policy/trust-store.ts";
import type { EngineSandbox } from "../sandbox/engine-sandbox.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";

interface ExtensionOptions {
  registry: ToolRegistry;
  root: string;
  latheHome: string;
  policy: PolicyConfig;
  /** Folder of bundled plugins (default: the `plugins/` folder shipped with Lathe). */
  bundledDir?: string;
  /** Watch plugin folders for changes (applied between turns). Default true. */
  watch?: boolean;
  onMcpEvent?: (event: McpEvent) => void;
  /** Every plugin log line and Lathe's notes about plugins (restarts, failed calls). */
  onPluginLog?: (entry: PluginLogEntry) => void;
  /** The OS sandbox stdio MCP servers run in. */
  sandbox: EngineSandbox;
  /** Asked before a stdio MCP server starts unconfined (the sandbox not active); none: refused. */
  approveUnsandboxedMcp?: UnsandboxedServerApprover;
}

/**
 * An engine's extensions: plugin tools (bundled, the user's, the trusted project's) and MCP
 * servers from settings. Plugins register at once (no plugin code runs until called); MCP
 * servers connect in the background and their tools join the registry only when the host
 * applies pending changes between turns — never mid-turn, and never blocking a start.
 */
export class EngineExtensions {
  readonly plugins: PluginManager;
  readonly mcp: McpManager;

  private constructor(plugins: PluginManager, mcp: McpManager) {
    this.plugins = plugins;
    this.mcp = mcp;
  }

  static async start(options: ExtensionOptions): Promise<EngineExtensions> {
    const trust = new TrustStore(options.latheHome);
    const plugins = new PluginManager({
      registry: options.registry,
      root: options.root,
      latheHome: options.latheHome,
      projectTrusted: options.policy.projectTrusted,
      trust,
      watch: options.watch ?? true,
      ...(options.bundledDir ? { bundledDir: options.bundledDir } : {}),
      ...(options.onPluginLog ? { onLog: options.onPluginLog } : {}),
    });
    const mcp = new McpManager({
      registry: options.registry,
      servers: options.policy.mcpServers,
      trust,
      root: options.root,
      latheHome: options.latheHome,
      sandbox: options.sandbox,
      ...(options.onMcpEvent ? { onEvent: options.onMcpEvent } : {}),
      ...(options.approveUnsandboxedMcp ? { approveUnsandboxed: options.approveUnsandboxedMcp } : {}),
    });
    // The servers first: they take the longest to be ready (a process each, its own start), and
    // they start while the plugins load rather than after. Their tools join the registry only
    // when the host applies pending changes, so the order the tools are bound in is unchanged.
    // The plugins load once every server has been asked for: loaded alongside, their many file
    // reads would queue before the servers' few steps to their start (and so hold the start back).
    mcp.start();
    try {
      await mcp.launched();
      await plugins.load();
    } catch (loadError) {
      // No engine is made: the servers just started must not outlive it.
      await mcp.close().catch((closeError: unknown) => {
        throw new AggregateError(
          [loadError, closeError],
          `${(loadError as Error).message}; stopping the MCP servers failed too: ${(closeError as Error).message}`,
        );
      });
      throw loadError;
    }
    return new EngineExtensions(plugins, mcp);
  }

  /** Whether something waits for `applyPendingChanges()` (a plugin folder edited, a server's new tools). */
  hasPendingChanges(): boolean {
    return this.plugins.hasPendingChanges() || this.mcp.hasPendingChanges();
  }

  /** Bring the registry up to date: plugin folder changes and MCP connects, reconnects, list changes. */
  async applyPendingChanges(): Promise<void> {
    await this.plugins.applyPendingChanges();
    this.mcp.applyPendingChanges();
  }

  /**
   * Wait (at most `timeoutMs`) for MCP servers' first connects, then apply what they brought; a
   * server still starting by then is listed as disabled, saying so.
   */
  async settle(timeoutMs = 15_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      this.mcp.ready().then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    await this.applyPendingChanges();
    if (!settled) this.mcp.reportStillStarting(timeoutMs);
  }

  async close(): Promise<void> {
    await Promise.all([this.plugins.close(), this.mcp.close()]);
  }
}
