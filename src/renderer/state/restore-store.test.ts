import { describe, expect, it } from "vitest";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { RestoreOutcome, RestorePlan } from "../../shared/checkpoint-schemas.ts";
import { unusedApi } from "../../../test/support/unused-api.ts";
import { createRestoreStore, readyToApply, type RestoreTarget } from "./restore-store.ts";

const plan: RestorePlan = {
  checkpoints: [3],
  paths: [
    { path: "src/a.ts", type: "file", action: "restore" },
    {
      path: "notes.md",
      type: "file",
      action: "restore",
      conflict: "changed since the call (by you or a later call)",
    },
    { path: "gone.txt", type: "file", action: "delete" },
  ],
};

const outcome = (applied: boolean, next: RestorePlan = plan): RestoreOutcome => ({
  applied,
  plan: next,
  blocked: applied ? [] : next.paths.filter((p) => p.conflict),
  skipped: [],
  failed: [],
  undoCheckpoint: applied ? 9 : null,
});

function setup(answers: Array<ApiResult<RestoreOutcome>>) {
  const calls: unknown[] = [];
  const applied: unknown[] = [];
  const api: LatheApi = {
    ...unusedApi(),
    checkpoints: {
      ...unusedApi().checkpoints,
      preview: () => Promise.resolve({ ok: true, data: plan }),
      restore: (request) => {
        calls.push(request);
        return Promise.resolve(answers.shift() ?? { ok: false, error: { message: "no more answers" } });
      },
    },
  };
  const store = createRestoreStore(api, { onApplied: (target, result) => applied.push([target, result]) });
  return { store, calls, applied };
}

const target: RestoreTarget = { kind: "restore", sessionId: "s-1", checkpointId: 3, tool: "write" };

describe("the restore dialog", () => {
  it("waits for an answer on every file changed since, then restores with those answers", async () => {
    const { store, calls, applied } = setup([{ ok: true, data: outcome(true) }]);
    await store.getState().open(target);
    expect(store.getState().plan).toEqual(plan);
    expect(readyToApply(store.getState().plan, store.getState().choices)).toBe(false);
    await store.getState().apply();
    expect(calls).toEqual([]);
    store.getState().choose("notes.md", "keep");
    await store.getState().apply();
    expect(calls).toEqual([{ sessionId: "s-1", checkpointId: 3, choices: { "notes.md": "keep" } }]);
    expect(store.getState().outcome?.undoCheckpoint).toBe(9);
    expect(applied).toHaveLength(1);
  });

  it("asks again when a file changed after the preview, and changes nothing meanwhile", async () => {
    const later: RestorePlan = {
      checkpoints: [3],
      paths: plan.paths.map((p) =>
        p.path === "src/a.ts" ? { ...p, conflict: "changed since the preview" } : p,
      ),
    };
    const { store, applied } = setup([{ ok: true, data: outcome(false, later) }]);
    await store.getState().open(target);
    store.getState().choose("notes.md", "overwrite");
    await store.getState().apply();
    expect(store.getState().outcome).toBeUndefined();
    expect(store.getState().plan).toEqual(later);
    expect(readyToApply(store.getState().plan, store.getState().choices)).toBe(false);
    expect(applied).toEqual([]);
  });

  it("shows the host's refusal and keeps the dialog open", async () => {
    const { store } = setup([{ ok: false, error: { message: "Session s-1 has a run going on" } }]);
    await store.getState().open(target);
    store.getState().choose("notes.md", "keep");
    await store.getState().apply();
    expect(store.getState()).toMatchObject({ error: "Session s-1 has a run going on", target });
  });
});
