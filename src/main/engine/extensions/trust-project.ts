import { approveServers, serversTrustApproves, type ApprovalResult } from "../mcp/mcp-approval.ts";
import { pinProjectPlugins, type ProjectPluginInfo } from "../plugins/project-plugins.ts";
import path from "node:path";
import { projectGrantsFingerprint } from "../config/project-settings-grants.ts";
import { ConfigError } from "../errors/config-error.ts";
import { TrustStore } from "../policy/trust-store.ts";

/** What trusting a project recorded. */
interface ProjectTrustOutcome {
  /** The file trust is recorded in (`$LATHE_HOME/trust.json`). */
  trustFile: string;
  /** The project plugins pinned as they are now. */
  pinnedPlugins: ProjectPluginInfo[];
  /**
   * The project's MCP servers, and the user's own whose command line changed since approved,
   * each started once to pin its command line and tools.
   */
  mcpServers: ApprovalResult[];
}

/**
 * Trust a project folder, as `lathe trust` and the app's trust dialog do: record the trust, then
 * pin what it turns on as it is now — every project plugin's content, and each project MCP
 * server's command line and tools — so one that changes later is disabled until trusted again.
 * The user's own servers whose command line changed since approved are approved again too.
 * `root` is the project's real path; `reviewed` the review's `grants`, when the person was shown
 * one (then a folder that changed since is refused). Once the trust is recorded, a failure to pin is thrown with
 * the folder left trusted (`TrustStore.isTrusted` tells).
 */
export async function trustProject(
  root: string,
  latheHome: string,
  reviewed?: string,
): Promise<ProjectTrustOutcome> {
  const trust = new TrustStore(latheHome);
  // What the person was shown is what gets trusted: a folder that changed since is refused.
  if (reviewed !== undefined && projectGrantsFingerprint(root) !== reviewed) {
    const settingsFile = path.join(root, ".lathe", "settings.json");
    throw new ConfigError(
      settingsFile,
      `What ${settingsFile} or the agents in ${path.join(root, ".lathe", "agents")} grant changed after the review you saw, so nothing was trusted. Review it again (lathe trust --dry-run --root ${root}, or reopen the folder in the app), then trust it.`,
    );
  }
  trust.trust(root, {}, reviewed);
  const pinnedPlugins = await pinProjectPlugins(root, latheHome);
  const servers = serversTrustApproves(root, latheHome, trust);
  const mcpServers = servers.length > 0 ? await approveServers({ servers, trust, root, latheHome }) : [];
  return { trustFile: trust.file, pinnedPlugins, mcpServers };
}
