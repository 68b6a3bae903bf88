import { createStore, type StoreApi } from "zustand/vanilla";
import type { LatheApi } from "../../shared/api-contract.ts";
import type {
  ApprovalMode,
  EditableScope,
  PermissionsView,
  Rule,
  RuleCheck,
  RuleProbe,
} from "../../shared/permission-schemas.ts";
import type { SandboxReport } from "../../shared/sandbox-schemas.ts";

/** A rule row as it is being typed. */
type DraftRule = Rule;

export interface ProbeDraft {
  capability: RuleProbe["capability"];
  toolId: string;
  value: string;
}

export interface SettingsState {
  view: PermissionsView | undefined;
  loadError: string | undefined;
  /** The rules of each scope as edited (saved ones until the person changes them). */
  drafts: Record<EditableScope, DraftRule[]>;
  /** The rules each draft started from, as read from the file: a save expects the file to hold them still. */
  bases: Record<EditableScope, Rule[]>;
  dirty: Record<EditableScope, boolean>;
  check: RuleCheck | undefined;
  probe: ProbeDraft;
  /** What is being saved right now. */
  saving: EditableScope | "approvals" | undefined;
  /** Why the last save of a part did not happen. */
  saveError: { part: EditableScope | "approvals" | "revoke"; message: string } | undefined;
  /** The part saved last (for a short "Saved"). */
  saved: EditableScope | "approvals" | undefined;
  /** The approval mode as chosen ("default": the user's settings name none). */
  modeDraft: ApprovalMode | "default";
  allowlistDraft: string;
  /** The person changed the mode or allowlist and has not saved: a reload keeps their drafts. */
  approvalsDirty: boolean;
  /** The user's mode and allowlist the drafts started from (what a save expects the file to hold). */
  approvalsBase: { mode: ApprovalMode | null; allowlist: string[] };
  sandbox: SandboxReport | undefined;
  sandboxLoading: boolean;
  sandboxError: string | undefined;
  load(): Promise<void>;
  updateRule(scope: EditableScope, index: number, patch: Partial<DraftRule>): void;
  addRule(scope: EditableScope): void;
  removeRule(scope: EditableScope, index: number): void;
  /** Drop the scope's draft for the rules its file holds now (read again). */
  revert(scope: EditableScope): Promise<void>;
  saveRules(scope: EditableScope): Promise<void>;
  setProbe(patch: Partial<ProbeDraft>): void;
  /** Ask the host to check the drafts (and the probe): invalid rows, conflicts, the deciding rule. */
  runCheck(): Promise<void>;
  setModeDraft(mode: ApprovalMode | "default"): void;
  setAllowlistDraft(text: string): void;
  saveApprovals(): Promise<void>;
  revoke(sessionId: string, approval?: { tool: string; key: string }): Promise<void>;
  loadSandbox(): Promise<void>;
}

export type SettingsStore = StoreApi<SettingsState>;

const copyRules = (view: PermissionsView, scope: EditableScope): DraftRule[] =>
  (view.scopes.find((s) => s.scope === scope)?.rules ?? []).map((r) => ({ ...r }));

/** Whether the view's user mode and allowlist are `base`. */
function sameApprovals(view: PermissionsView, base: SettingsState["approvalsBase"]): boolean {
  const { userMode, allowlist } = view.approvals;
  return (
    (userMode ?? null) === base.mode &&
    allowlist.length === base.allowlist.length &&
    allowlist.every((key, i) => key === base.allowlist[i])
  );
}

/** The allowlist textarea's lines, without blanks. */
function allowlistLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/**
 * Settings → Permissions and Sandbox: the approval mode and allowlist, each scope's rules edited
 * as drafts (checked by the host as they change, saved per scope into its settings file), the
 * sessions' "always" answers to revoke, and `lathe doctor`'s report on the sandbox.
 */
export function createSettingsStore(api: LatheApi): SettingsStore {
  return createStore<SettingsState>()((set, get) => {
    const apply = (view: PermissionsView, keep: Partial<Record<EditableScope, boolean>> = {}): void =>
      set((state) => ({
        view,
        loadError: undefined,
        drafts: {
          user: keep.user ? state.drafts.user : copyRules(view, "user"),
          project: keep.project ? state.drafts.project : copyRules(view, "project"),
        },
        bases: {
          user: keep.user ? state.bases.user : copyRules(view, "user"),
          project: keep.project ? state.bases.project : copyRules(view, "project"),
        },
        dirty: {
          user: Boolean(keep.user && state.dirty.user),
          project: Boolean(keep.project && state.dirty.project),
        },
        ...(state.approvalsDirty
          ? {}
          : {
              modeDraft: view.approvals.userMode ?? "default",
              allowlistDraft: view.approvals.allowlist.join("\n"),
              approvalsBase: {
                mode: view.approvals.userMode ?? null,
                allowlist: [...view.approvals.allowlist],
              },
            }),
      }));
    const edit = (scope: EditableScope, change: (rules: DraftRule[]) => DraftRule[]): void => {
      set((state) => ({
        drafts: { ...state.drafts, [scope]: change(state.drafts[scope]) },
        dirty: { ...state.dirty, [scope]: true },
        saved: undefined,
      }));
    };
    return {
      view: undefined,
      loadError: undefined,
      drafts: { user: [], project: [] },
      bases: { user: [], project: [] },
      dirty: { user: false, project: false },
      check: undefined,
      probe: { capability: "shell.run", toolId: "bash", value: "" },
      saving: undefined,
      saveError: undefined,
      saved: undefined,
      modeDraft: "default",
      allowlistDraft: "",
      approvalsDirty: false,
      approvalsBase: { mode: null, allowlist: [] },
      sandbox: undefined,
      sandboxLoading: false,
      sandboxError: undefined,

      async load() {
        const answer = await api.permissions.get();
        if (!answer.ok) {
          set({ loadError: answer.error.message });
          return;
        }
        // A scope being edited keeps what the person typed.
        apply(answer.data, get().dirty);
        void get().runCheck();
      },

      updateRule(scope, index, patch) {
        edit(scope, (rules) => rules.map((rule, i) => (i === index ? { ...rule, ...patch } : rule)));
      },

      addRule(scope) {
        edit(scope, (rules) => [...rules, { permission: "", pattern: "*", action: "ask" }]);
      },

      removeRule(scope, index) {
        edit(scope, (rules) => rules.filter((_, i) => i !== index));
      },

      async revert(scope) {
        // Read the file again: it may have changed since the view was loaded (another window).
        const answer = await api.permissions.get();
        if (!answer.ok) {
          set({ saveError: { part: scope, message: answer.error.message } });
          return;
        }
        const other: EditableScope = scope === "user" ? "project" : "user";
        set({ saveError: undefined });
        apply(answer.data, { [other]: get().dirty[other] });
        void get().runCheck();
      },

      async saveRules(scope) {
        if (get().saving) return;
        set({ saving: scope, saveError: undefined, saved: undefined });
        const answer = await api.permissions.saveRules({
          scope,
          rules: get().drafts[scope],
          expected: get().bases[scope],
        });
        if (!answer.ok) {
          set({ saving: undefined, saveError: { part: scope, message: answer.error.message } });
          return;
        }
        const other: EditableScope = scope === "user" ? "project" : "user";
        set({ saving: undefined, saved: scope });
        apply(answer.data, { [other]: get().dirty[other] });
        void get().runCheck();
      },

      setProbe(patch) {
        set((state) => ({ probe: { ...state.probe, ...patch } }));
      },

      async runCheck() {
        const { drafts, probe } = get();
        const value = probe.value.trim();
        const answer = await api.permissions.check({
          rules: drafts,
          ...(value !== ""
            ? {
                probe: {
                  capability: probe.capability,
                  value,
                  ...(probe.toolId.trim() !== "" ? { toolId: probe.toolId.trim() } : {}),
                },
              }
            : {}),
        });
        // Only the answer to what is on screen now counts.
        if (get().drafts !== drafts || get().probe !== probe) return;
        if (answer.ok) set({ check: answer.data });
      },

      setModeDraft(mode) {
        set({ modeDraft: mode, approvalsDirty: true, saved: undefined });
      },

      setAllowlistDraft(text) {
        set({ allowlistDraft: text, approvalsDirty: true, saved: undefined });
      },

      async saveApprovals() {
        if (get().saving) return;
        const { modeDraft, allowlistDraft, approvalsBase } = get();
        set({ saving: "approvals", saveError: undefined, saved: undefined });
        const answer = await api.permissions.setApprovals({
          mode: modeDraft === "default" ? null : modeDraft,
          allowlist: allowlistLines(allowlistDraft),
          expected: approvalsBase,
        });
        if (!answer.ok) {
          set({ saving: undefined, saveError: { part: "approvals", message: answer.error.message } });
          // When the file holds another choice now, show it (the refusal says to choose again).
          const now = await api.permissions.get();
          if (now.ok && !sameApprovals(now.data, approvalsBase)) {
            set({ approvalsDirty: false });
            apply(now.data, get().dirty);
          }
          return;
        }
        set({ saving: undefined, saved: "approvals", approvalsDirty: false });
        apply(answer.data, get().dirty);
      },

      async revoke(sessionId, approval) {
        set({ saveError: undefined });
        const answer = await api.permissions.revoke({ sessionId, ...(approval ? { approval } : {}) });
        if (!answer.ok) {
          set({ saveError: { part: "revoke", message: answer.error.message } });
          return;
        }
        apply(answer.data, get().dirty);
      },

      async loadSandbox() {
        set({ sandboxLoading: true, sandboxError: undefined });
        const answer = await api.sandbox.report();
        if (answer.ok) set({ sandbox: answer.data, sandboxLoading: false });
        else set({ sandboxLoading: false, sandboxError: answer.error.message });
      },
    };
  });
}
