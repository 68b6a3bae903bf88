import type { Command } from "commander";
import { rootOf, rootOption } from "../cli-options.ts";
import { writeStdout } from "../output.ts";

interface TrustOptions {
  root?: string;
  revoke?: boolean;
}

/**
 * `lathe trust [--root DIR]`: trust a project folder, so its settings may grant power (allow
 * rules, hooks, MCP servers, plugins) and not only add deny rules. Shows what that turns on first.
 */
export function registerTrustCommand(program: Command): void {
  program
    .command("trust")
    .description("Trust a project folder: its settings, hooks, plugins and MCP servers take effect.")
    .addOption(rootOption())
    .option("--revoke", "stop trusting the folder")
    .action(async (options: TrustOptions) => {
      const { realpath } = await import("node:fs/promises");
      const path = await import("node:path");
      const { resolveLatheHome } = await import("../../engine/index.ts");
      const { TrustStore } = await import("../../engine/policy/trust-store.ts");
      const { loadSettings } = await import("../../engine/policy/lathe-settings.ts");
      const { describeProjectPlugins, pinProjectPlugins } =
        await import("../../engine/plugins/project-plugins.ts");
      const { approveServers, configuredMcpServers } = await import("../../engine/mcp/mcp-approval.ts");
      const root = await realpath(rootOf(options));
      const latheHome = resolveLatheHome();
      const store = new TrustStore(latheHome);
      if (options.revoke) {
        const was = store.revoke(root);
        await writeStdout(was ? `${root} is no longer trusted.\n` : `${root} was not trusted.\n`);
        return;
      }
      const settingsFile = path.join(root, ".lathe", "settings.json");
      const settings = loadSettings(settingsFile);
      const lines = [`Trusting ${root}. From now on these take effect:`];
      const grants = settings.permissions.filter((r) => r.action !== "deny");
      for (const r of grants) lines.push(`  rule      ${r.action} ${r.permission} "${r.pattern}"`);
      for (const h of settings.hooks)
        lines.push(`  hook      ${h.command}${h.tools ? ` (for ${h.tools.join(", ")})` : ""}`);
      for (const c of settings.shell)
        lines.push(`  command   bash may run ${c.cmd}${c.args ? ` ${JSON.stringify(c.args)}` : ""}`);
      for (const [name, server] of Object.entries(settings.mcpServers)) {
        const line = "command" in server ? [server.command, ...server.args].join(" ") : server.url;
        lines.push(`  mcp       ${name}: ${line}`);
      }
      for (const plugin of await describeProjectPlugins(root, latheHome)) {
        const note =
          plugin.pinned === "changed"
            ? " (changed since you last trusted it)"
            : plugin.pinned === "new"
              ? " (new)"
              : "";
        lines.push(`  plugin    ${plugin.name}${note}: ${plugin.dir}`);
      }
      if (settings.approvals.mode) lines.push(`  approvals mode ${settings.approvals.mode}`);
      if (lines.length === 1) lines.push(`  (nothing in ${settingsFile} grants anything yet)`);
      store.trust(root);
      // Pin what was approved: a plugin or MCP server that changes later is disabled until trusted again.
      await pinProjectPlugins(root, latheHome);
      const servers = configuredMcpServers(root, latheHome).filter((s) => s.layer === "project");
      for (const result of await approveServers({ servers, trust: store, root, latheHome })) {
        lines.push(
          result.error
            ? `  mcp       ${result.name}: could not list its tools (${result.error}); its command line is pinned`
            : `  mcp       ${result.name}: pinned with ${result.tools.length} tool${result.tools.length === 1 ? "" : "s"}`,
        );
      }
      lines.push(`Trust recorded in ${store.file}. Undo with: lathe trust --revoke --root ${root}`);
      await writeStdout(`${lines.join("\n")}\n`);
    });
}
