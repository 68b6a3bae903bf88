import { createStore, type StoreApi } from "zustand/vanilla";
import type { LatheApi } from "../../shared/api-contract.ts";
import type {
  RestoreOutcome,
  RestorePlan,
  RewindOutcome,
  RewindPlan,
} from "../../shared/checkpoint-schemas.ts";

/**
 * What the person asked to undo: one call's changes (or, with `undoes`, what a restore or a
 * rewind replaced), or the session back to before a prompt.
 */
export type RestoreTarget =
  | {
      kind: "restore";
      sessionId: string;
      checkpointId: number;
      tool: string;
      undoes?: "restore" | "rewind";
    }
  | { kind: "rewind"; sessionId: string; runId: string; prompt: string };

export type PathChoice = "overwrite" | "keep";
type PlannedPath = RestorePlan["paths"][number];

export interface RestoreState {
  target: RestoreTarget | undefined;
  plan: RestorePlan | RewindPlan | undefined;
  loading: boolean;
  applying: boolean;
  /** The person's answer for each path they changed since (a conflict). */
  choices: Record<string, PathChoice>;
  outcome: RestoreOutcome | RewindOutcome | undefined;
  error: string | undefined;
  /** Preview what undoing `target` would do (nothing changes yet). */
  open(target: RestoreTarget): Promise<void>;
  choose(path: string, choice: PathChoice): void;
  /** Apply with the choices made; a conflict that appeared since the preview is asked about again. */
  apply(): Promise<void>;
  close(): void;
}

export type RestoreStore = StoreApi<RestoreState>;

interface RestoreStoreOptions {
  /** A restore or rewind was applied (the chat redraws; a rewind hands back its prompt). */
  onApplied?(target: RestoreTarget, outcome: RestoreOutcome | RewindOutcome): void;
}

/** Paths that need the person's answer before anything is changed. */
export function conflictsOf(plan: RestorePlan | undefined): PlannedPath[] {
  return (plan?.paths ?? []).filter((p) => p.conflict !== undefined && p.unavailable === undefined);
}

/** Whether every conflict has an answer (the Apply button waits for that). */
/**
 * Whether applying the plan would change anything: a rewind always does (the conversation goes
 * back); a restore only when some path is to change or asks what to do.
 */
export function changesSomething(plan: RestorePlan | RewindPlan): boolean {
  if ("messages" in plan) return true;
  return plan.paths.some(
    (p) => p.unavailable === undefined && (p.action !== "none" || p.conflict !== undefined),
  );
}

export function readyToApply(plan: RestorePlan | undefined, choices: Record<string, PathChoice>): boolean {
  return conflictsOf(plan).every((p) => choices[p.path] !== undefined);
}

const IDLE = {
  target: undefined,
  plan: undefined,
  loading: false,
  applying: false,
  choices: {},
  outcome: undefined,
  error: undefined,
};

/**
 * The restore and rewind dialog: a preview first (files restored, recreated, deleted; conflicts
 * where the person changed a file since), an answer for every conflict (overwrite it, or keep
 * theirs), then the change. Nothing is overwritten without that answer.
 */
export function createRestoreStore(api: LatheApi, options: RestoreStoreOptions = {}): RestoreStore {
  return createStore<RestoreState>()((set, get) => ({
    ...IDLE,

    async open(target) {
      set({ ...IDLE, target, loading: true });
      const answer =
        target.kind === "restore"
          ? await api.checkpoints.preview({ sessionId: target.sessionId, checkpointId: target.checkpointId })
          : await api.checkpoints.previewRewind({
              sessionId: target.sessionId,
              before: { runId: target.runId },
            });
      if (get().target !== target) return;
      if (answer.ok) set({ plan: answer.data, loading: false });
      else set({ loading: false, error: answer.error.message });
    },

    choose(path, choice) {
      set((state) => ({ choices: { ...state.choices, [path]: choice } }));
    },

    async apply() {
      const { target, plan, choices, applying } = get();
      if (!target || !plan || applying || !readyToApply(plan, choices)) return;
      set({ applying: true, error: undefined });
      const decisions = Object.keys(choices).length > 0 ? { choices } : {};
      const answer =
        target.kind === "restore"
          ? await api.checkpoints.restore({
              sessionId: target.sessionId,
              checkpointId: target.checkpointId,
              ...decisions,
            })
          : await api.checkpoints.rewind({
              sessionId: target.sessionId,
              before: { runId: target.runId },
              ...decisions,
            });
      if (!answer.ok) {
        set({ applying: false, error: answer.error.message });
        return;
      }
      if (!answer.data.applied) {
        // Someone changed a file after the preview: show the new plan and ask about it.
        set({ applying: false, plan: answer.data.plan, error: undefined });
        return;
      }
      set({ applying: false, outcome: answer.data });
      options.onApplied?.(target, answer.data);
    },

    close() {
      set({ ...IDLE });
    },
  }));
}
