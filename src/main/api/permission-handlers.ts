import { isDeepStrictEqual } from "node:util";
import type { PermissionsView } from "../../shared/permission-schemas.ts";
import { TrustStore, type SettingsFile, type Settings, type SettingsDocument } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { refusing } from "./refusing.ts";
import type { ApiHandlers } from "./api-router.ts";
import type { EngineHost } from "./engine-host.ts";
import { permissionsView, scopeFile, scopeSettingsFile } from "./permissions-view.ts";
import { checkDraft } from "./rules-check.ts";

type PermissionChannels =
  | "permissions.get"
  | "permissions.saveRules"
  | "permissions.setApprovals"
  | "permissions.revoke"
  | "permissions.check";

/**
 * Refuse a save made from a view of `file` older than the file: another window saved into it, or
 * it was edited by hand, since the editor read it. Saving would silently drop that change.
 */
async function refuseIfChanged(
  file: SettingsFile,
  unchanged: (settings: Settings) => boolean,
  then: string,
): Promise<void> {
  const { settings } = await file.read();
  if (!unchanged(settings)) {
    throw new ApiError(
      `${file.file} changed since this view read it (saved from another window, or edited by hand), so Lathe did not save over it. ${then}`,
    );
  }
}

const trimmed = (rules: ReadonlyArray<{ permission: string; pattern: string; action: string }>) =>
  rules.map(({ permission, pattern, action }) => ({
    permission: permission.trim(),
    pattern: pattern.trim(),
    action,
  }));

/**
 * The Settings view's permissions: read them, save a scope's rules or the user's approval mode
 * (through SettingsFile, which validates the result and never writes over a file it cannot read;
 * the engine is then reloaded so they apply), revoke sessions' "always" answers, and check rules
 * being edited.
 */
export function createPermissionHandlers(host: EngineHost): Pick<ApiHandlers, PermissionChannels> {
  const view = (): Promise<PermissionsView> => permissionsView(host.current, host.chatSessions);
  const save = async (
    scope: "user" | "project",
    unchanged: { test: (settings: Settings) => boolean; then: string },
    change: (document: SettingsDocument) => void,
  ): Promise<PermissionsView> => {
    const engine = host.current;
    const file = scopeSettingsFile(engine, scope);
    await refusing(() => refuseIfChanged(file, unchanged.test, unchanged.then));
    // Trust records what the project's settings grant; a person's own edit here keeps a trusted
    // folder trusted (one whose settings changed behind Lathe's back stays untrusted: the
    // person has not reviewed that change).
    const keepTrust = scope === "project" && engine.policy.projectTrusted;
    await host.changingSettings(async () => {
      await refusing(() => file.update(change));
      if (keepTrust) new TrustStore(engine.latheHome).trust(engine.root);
      await host.reload();
    });
    return view();
  };
  return {
    "permissions.get": () => view(),
    "permissions.saveRules": ({ scope, rules, expected }) =>
      save(
        scope,
        {
          test: (settings) => isDeepStrictEqual(trimmed(settings.permissions), trimmed(expected)),
          then: "Press Revert to see the rules it holds now, then make your change again.",
        },
        (document) => {
          if (rules.length === 0) delete document["permissions"];
          else
            document["permissions"] = rules.map(({ permission, pattern, action }) => ({
              permission,
              pattern,
              action,
            }));
        },
      ),
    "permissions.setApprovals": ({ mode, allowlist, expected }) =>
      save(
        "user",
        {
          test: ({ approvals }) =>
            (approvals.mode ?? null) === expected.mode &&
            isDeepStrictEqual(approvals.allowlist, expected.allowlist),
          then: "The view shows the mode and allowlist it holds now: make your choice again.",
        },
        (document) => {
          const current = document["approvals"];
          const approvals: Record<string, unknown> =
            typeof current === "object" && current !== null && !Array.isArray(current) ? { ...current } : {};
          if (mode === null) delete approvals["mode"];
          else approvals["mode"] = mode;
          if (allowlist.length === 0) delete approvals["allowlist"];
          else approvals["allowlist"] = allowlist;
          if (Object.keys(approvals).length === 0) delete document["approvals"];
          else document["approvals"] = approvals;
        },
      ),
    "permissions.revoke": async ({ sessionId, approval }) => {
      if (host.chatSessions.has(sessionId)) {
        throw new ApiError(
          `Session ${sessionId} has a run going on: stop it (or wait for it), then revoke its answers.`,
        );
      }
      await refusing(async () => host.current.revokeSessionApprovals(sessionId, approval));
      return view();
    },
    "permissions.check": ({ rules, probe }) => {
      const engine = host.current;
      return checkDraft(rules, probe, {
        root: engine.root,
        files: { user: scopeFile(engine, "user"), project: scopeFile(engine, "project") },
        projectTrusted: engine.policy.projectTrusted,
      });
    },
  };
}
