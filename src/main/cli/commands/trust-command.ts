import type { Command } from "commander";
import type { ReviewedExtension, TrustReview } from "../../engine/index.ts";
import { CliError } from "../cli-error.ts";
import { rootOf, rootOption } from "../cli-options.ts";
import { writeStdout } from "../output.ts";
import { shownText } from "../shown-path.ts";

interface TrustOptions {
  root?: string;
  revoke?: boolean;
  json?: boolean;
  dryRun?: boolean;
  mcpServer?: string;
}

function pinNote(pinned: ReviewedExtension["pinned"]): string {
  return pinned === "changed" ? " (changed since you last trusted it)" : pinned === "new" ? " (new)" : "";
}

/**
 * One plugin or MCP server: what it requires, gated, shadows, warnings, load error. Every name,
 * path, pattern, host and command comes from the project being reviewed, so each is shown with
 * its control and reordering characters escaped (shownText): an escape sequence in a tool.yaml
 * could otherwise erase, hide (`\e[8m`) or rewrite the very lines the person decides on.
 */
function extensionLines(ext: ReviewedExtension): string[] {
  const head =
    ext.kind === "plugin"
      ? `  plugin    ${shownText(ext.name)}${pinNote(ext.pinned)}: ${shownText(ext.location)}`
      : `  mcp       ${shownText(ext.name)}${pinNote(ext.pinned)}: ${shownText(ext.requires.commands[0] ?? ext.requires.hosts[0] ?? "")}`;
  const lines = [head];
  const detail = (label: string, values: readonly string[]): void => {
    if (values.length > 0) lines.push(`              ${label.padEnd(9)} ${values.map(shownText).join(", ")}`);
  };
  if (ext.error !== undefined) {
    lines.push(`              ✗ it will not load: ${shownText(ext.error)}`);
    return lines;
  }
  if (ext.toolId !== undefined) detail("tool", [ext.toolId]);
  detail("reads", ext.requires.read);
  detail("writes", ext.requires.write);
  detail("hosts", ext.requires.hosts);
  if (ext.kind === "plugin") detail("commands", ext.requires.commands);
  detail("gated", [ext.gated ? "true" : "false (runs without asking)"]);
  detail("shadows", ext.shadows);
  for (const warning of ext.warnings) lines.push(`              ! ${shownText(warning)}`);
  return lines;
}

function reviewLines(review: TrustReview, settingsFile: string): string[] {
  const lines: string[] = [];
  // The project's own settings and agents: shown escaped, as its plugins' requirements are.
  for (const r of review.settings.rules) lines.push(`  rule      ${shownText(r)}`);
  for (const h of review.settings.hooks) lines.push(`  hook      ${shownText(h)}`);
  for (const c of review.settings.commands) lines.push(`  command   bash may run ${shownText(c)}`);
  for (const a of review.agents) lines.push(`  agent     ${shownText(a)}`);
  for (const ext of review.extensions) lines.push(...extensionLines(ext));
  if (review.settings.approvals) lines.push(`  approvals ${review.settings.approvals}`);
  if (lines.length === 0) lines.push(`  (nothing in ${settingsFile} grants anything yet)`);
  return lines;
}

/**
 * `lathe trust [--root DIR] [--dry-run] [--json]`: trust a project folder, so its settings may
 * grant power (allow rules, hooks, MCP servers, plugins) and not only add deny rules. Shows first
 * what that turns on — per plugin and MCP server what it requires, whether it skips approval,
 * what it shadows — and pins it; `--dry-run` only shows.
 */
export function registerTrustCommand(program: Command): void {
  program
    .command("trust")
    .description("Trust a project folder: its settings, hooks, plugins and MCP servers take effect.")
    .addOption(rootOption())
    .option("--revoke", "stop trusting the folder")
    .option("--dry-run", "show what trusting would turn on, and change nothing")
    .option("--json", "print the review (and what was pinned) as one JSON object")
    .option(
      "--mcp-server <name>",
      "approve one MCP server as it is now (its command line, and its tools as it lists them), without trusting the folder",
    )
    .action(async (options: TrustOptions, command: Command) => {
      // Approving one server starts it and pins it: with --revoke or --dry-run it would do the
      // opposite of what was asked, so the combination is refused before anything runs.
      const clash = options.revoke ? "--revoke" : options.dryRun ? "--dry-run" : undefined;
      if (options.mcpServer !== undefined && clash !== undefined) {
        command.error(
          `error: --mcp-server approves the server now (it starts it and pins it), so it cannot be combined with ${clash}. ${options.revoke ? "To stop trusting the folder, run lathe trust --revoke without --mcp-server." : "To see what a project's servers would run, use lathe trust --dry-run without --mcp-server."}`,
          { exitCode: 2, code: "lathe.trust.conflict" },
        );
      }
      const { realpath } = await import("node:fs/promises");
      const path = await import("node:path");
      const { ConfigError, TrustStore, describeTrustReview, resolveLatheHome, trustProject } =
        await import("../../engine/index.ts");
      const root = await realpath(rootOf(options));
      const latheHome = resolveLatheHome();
      if (options.mcpServer !== undefined) {
        await approveOneServer(options.mcpServer, root, latheHome, options.json === true);
        return;
      }
      if (options.revoke) {
        const store = new TrustStore(latheHome);
        // --dry-run only shows, for --revoke too.
        const was = options.dryRun ? store.get(root) !== undefined : store.revoke(root);
        const said = options.dryRun
          ? was
            ? `${root} would no longer be trusted. Nothing was changed (--dry-run).`
            : `${root} is not trusted. Nothing was changed (--dry-run).`
          : was
            ? `${root} is no longer trusted.`
            : `${root} was not trusted.`;
        await writeStdout(
          options.json
            ? `${JSON.stringify({ root, trusted: options.dryRun === true && was, revoked: options.dryRun !== true && was }, null, 2)}\n`
            : `${said}\n`,
        );
        return;
      }
      const settingsFile = path.join(root, ".lathe", "settings.json");
      const review = await describeTrustReview(root, latheHome);
      // A malformed settings file is refused, as reading it always was: nothing gets trusted.
      if (review.problems[0] !== undefined) throw new ConfigError(settingsFile, review.problems[0]);
      if (options.dryRun) {
        await writeStdout(
          options.json
            ? `${JSON.stringify({ review, trusted: review.trusted }, null, 2)}\n`
            : `${[`Trusting ${root} would turn on:`, ...reviewLines(review, settingsFile), "Nothing was changed (--dry-run)."].join("\n")}\n`,
        );
        return;
      }
      // Pins what was approved: a plugin or MCP server that changes later is disabled until trusted again.
      const {
        trustFile,
        pinnedPlugins,
        mcpServers: approved,
      } = await trustProject(root, latheHome, review.grants);
      if (options.json) {
        await writeStdout(
          `${JSON.stringify(
            {
              review,
              trusted: true,
              pinnedPlugins: pinnedPlugins.map((p) => p.name),
              mcpServers: approved,
              trustFile,
            },
            null,
            2,
          )}\n`,
        );
        return;
      }
      const lines = [
        `Trusting ${root}. From now on these take effect:`,
        ...reviewLines(review, settingsFile),
      ];
      for (const result of approved) {
        lines.push(
          result.error
            ? `  mcp       ${result.name}: could not list its tools (${shownText(result.error)}); its command line is pinned`
            : `  mcp       ${result.name}: pinned with ${result.tools.length} tool${result.tools.length === 1 ? "" : "s"}`,
        );
      }
      lines.push(`Trust recorded in ${trustFile}. Undo with: lathe trust --revoke --root ${root}`);
      await writeStdout(`${lines.join("\n")}\n`);
    });
}

/**
 * `lathe trust --mcp-server NAME`: approve one server as it is now, as the app's approve does —
 * start it once (confined when the sandbox is on), pin its command line and every tool it lists,
 * and say what was pinned. The way back for the user's own server whose tools changed (trusting
 * a folder does not start the user's servers); a project's server needs the project trusted.
 */
async function approveOneServer(name: string, root: string, latheHome: string, json: boolean): Promise<void> {
  const { TrustStore, approveServers, configuredMcpServers, mcpCommandLine } =
    await import("../../engine/index.ts");
  const servers = configuredMcpServers(root, latheHome);
  const server = servers.find((s) => s.name === name);
  if (!server) {
    const known = servers.map((s) => s.name);
    throw new CliError(
      `There is no MCP server "${name}" in your settings or ${root}'s${known.length > 0 ? ` (there are: ${known.join(", ")})` : ""}. Check the name in the "mcpServers" of your settings.`,
    );
  }
  const trust = new TrustStore(latheHome);
  if (server.layer === "project" && !trust.isTrusted(root)) {
    throw new CliError(
      `MCP server "${name}" comes from ${server.source}, and ${root} is not trusted: review and trust the folder with lathe trust --root ${root} (that approves its servers too).`,
    );
  }
  const [result] = await approveServers({ servers: [server], trust, root, latheHome });
  if (json) {
    await writeStdout(`${JSON.stringify({ server: name, layer: server.layer, ...result }, null, 2)}\n`);
    return;
  }
  const lines = [
    `Approved MCP server ${name} (${server.layer}, ${server.source}): ${mcpCommandLine(server.config, root)}`,
  ];
  if (result?.error !== undefined) {
    lines.push(
      `  its tools could not be listed (${shownText(result.error)}); its command line is pinned, its tools are not.`,
    );
  } else {
    lines.push(
      `  pinned with ${result?.tools.length ?? 0} tool${result?.tools.length === 1 ? "" : "s"}: ${result?.tools.map(shownText).join(", ") || "none"}`,
    );
  }
  await writeStdout(`${lines.join("\n")}\n`);
}
