import path from "node:path";
import type { PermissionsView, ScopeRules, SessionApprovals } from "../../shared/permission-schemas.ts";
import {
  ConfigError,
  SETTINGS_FOLDER_MODE,
  SettingsFile,
  type Engine,
  type Settings,
} from "../engine/index.ts";

/** The settings file of each scope the rules editor edits. */
export function scopeFile(engine: Engine, scope: "user" | "project"): string {
  return scope === "user"
    ? path.join(engine.latheHome, "settings.json")
    : path.join(engine.root, ".lathe", "settings.json");
}

/** A scope's settings file: a save makes Lathe's home the user's alone, a project's `.lathe/` by the umask. */
export function scopeSettingsFile(engine: Engine, scope: "user" | "project"): SettingsFile {
  return new SettingsFile(scopeFile(engine, scope), { folderMode: SETTINGS_FOLDER_MODE[scope] });
}

/** A scope's settings as written, or why they cannot be read. */
async function readScope(
  engine: Engine,
  scope: "user" | "project",
): Promise<{ file: string; settings?: Settings; problem?: string }> {
  const file = scopeFile(engine, scope);
  try {
    return { file, settings: (await scopeSettingsFile(engine, scope).read()).settings };
  } catch (error) {
    if (ConfigError.isInstance(error)) return { file, problem: error.message };
    throw error;
  }
}

/**
 * What the Settings view shows about permissions: the approval mode new sessions use and where it
 * comes from, the rules of the user's and the project's settings (the project's only add denies
 * until the folder is trusted), and the "always" answers this folder's sessions keep.
 */
export async function permissionsView(
  engine: Engine,
  running: ReadonlySet<string>,
): Promise<PermissionsView> {
  const [user, project] = await Promise.all([readScope(engine, "user"), readScope(engine, "project")]);
  const trusted = engine.policy.projectTrusted;
  const scope = (name: "user" | "project", read: typeof user): ScopeRules => ({
    scope: name,
    file: read.file,
    rules: (read.settings?.permissions ?? []).map(({ permission, pattern, action }) => ({
      permission,
      pattern,
      action,
    })),
    applies: name === "project" && !trusted ? "deny-only" : "all",
    ...(read.problem !== undefined ? { problem: read.problem } : {}),
  });
  const userMode = user.settings?.approvals.mode;
  const projectMode = trusted ? project.settings?.approvals.mode : undefined;
  const bySession = new Map<string, SessionApprovals>();
  const catalog = engine.sessionCatalog();
  for (const approval of engine.sessionApprovals()) {
    let entry = bySession.get(approval.sessionId);
    if (!entry) {
      entry = {
        sessionId: approval.sessionId,
        title: catalog.get(approval.sessionId)?.title ?? approval.sessionId,
        running: running.has(approval.sessionId),
        approvals: [],
      };
      bySession.set(approval.sessionId, entry);
    }
    entry.approvals.push({ tool: approval.tool, key: approval.key, createdAt: approval.createdAt });
  }
  return {
    approvals: {
      mode: engine.policy.mode ?? "ask",
      source: projectMode !== undefined ? "project" : userMode !== undefined ? "user" : "default",
      ...(userMode !== undefined ? { userMode } : {}),
      allowlist: user.settings?.approvals.allowlist ?? [],
    },
    scopes: [scope("user", user), scope("project", project)],
    sessions: [...bySession.values()],
  };
}
