import { describe, expect, it } from "vitest";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { SessionSummary } from "../../shared/session-schemas.ts";
import { createSessionsStore, sessionTree } from "./sessions-store.ts";

function summary(id: string, extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    title: `Title of ${id}`,
    titleSource: "prompt",
    agent: "default",
    model: "ollama:m",
    createdAt: 1,
    updatedAt: 2,
    running: false,
    waiting: false,
    ...extra,
  };
}

function fakeApi(sessions: SessionSummary[], answers: { delete?: ApiResult<{ deleted: string[] }> } = {}) {
  const calls: Array<[string, unknown]> = [];
  const unused = () => Promise.reject(new Error("not part of this test"));
  const api = {
    sessions: {
      list: (request?: { query?: string }) => {
        calls.push(["list", request]);
        const q = request?.query?.toLowerCase();
        return Promise.resolve({
          ok: true as const,
          data: {
            root: "/w",
            sessions: q ? sessions.filter((s) => s.title.toLowerCase().includes(q)) : sessions,
          },
        });
      },
      rename: ({ sessionId, title }: { sessionId: string; title: string }) => {
        calls.push(["rename", { sessionId, title }]);
        if (title.length > 5) return Promise.resolve({ ok: false as const, error: { message: "too long" } });
        return Promise.resolve({
          ok: true as const,
          data: summary(sessionId, { title, titleSource: "custom" }),
        });
      },
      delete: ({ sessionId }: { sessionId: string }) => {
        calls.push(["delete", sessionId]);
        return Promise.resolve(answers.delete ?? { ok: true as const, data: { deleted: [sessionId] } });
      },
    },
    on: unused,
  } as unknown as LatheApi;
  return { api, calls };
}

describe("the sessions store", () => {
  it("nests tasks under their parent; a task whose parent is not listed stands alone", () => {
    const tree = sessionTree([
      summary("t2", { parentId: "t1" }),
      summary("a"),
      summary("t1", { parentId: "a" }),
      summary("orphan", { parentId: "gone" }),
    ]);
    expect(tree.map((n) => n.session.id)).toEqual(["a", "orphan"]);
    expect(tree[0]?.children.map((n) => n.session.id)).toEqual(["t1"]);
    expect(tree[0]?.children[0]?.children.map((n) => n.session.id)).toEqual(["t2"]);
  });

  it("loads, and searches with what is typed", async () => {
    const { api, calls } = fakeApi([summary("a", { title: "Fix tests" }), summary("b", { title: "Docs" })]);
    const store = createSessionsStore(api, { searchDelayMs: 0 });
    await store.getState().load();
    expect(store.getState()).toMatchObject({ status: "ready", root: "/w" });
    store.getState().setQuery("fix");
    await expect.poll(() => store.getState().sessions.map((s) => s.id)).toEqual(["a"]);
    expect(calls).toContainEqual(["list", { query: "fix" }]);
  });

  it("keeps every session for the palette while the search narrows the list", async () => {
    const { api } = fakeApi([summary("a", { title: "Fix tests" }), summary("b", { title: "Docs" })]);
    const store = createSessionsStore(api, { searchDelayMs: 0 });
    store.getState().setQuery("docs");
    await expect.poll(() => store.getState().sessions.map((s) => s.id)).toEqual(["b"]);
    expect(store.getState().all.map((s) => s.id)).toEqual(["a", "b"]);
    store.getState().setQuery("");
    await expect.poll(() => store.getState().sessions.map((s) => s.id)).toEqual(["a", "b"]);
    expect(store.getState().all.map((s) => s.id)).toEqual(["a", "b"]);
  });

  it("renames in place, and keeps the field open with the reason when refused", async () => {
    const { api } = fakeApi([summary("a")]);
    const store = createSessionsStore(api, { searchDelayMs: 0 });
    await store.getState().load();
    store.getState().startRename("a");
    expect(await store.getState().rename("a", "Short")).toBe(true);
    expect(store.getState()).toMatchObject({
      renamingId: undefined,
      sessions: [{ title: "Short", titleSource: "custom" }],
    });
    store.getState().startRename("a");
    expect(await store.getState().rename("a", "Far too long")).toBe(false);
    expect(store.getState()).toMatchObject({ renamingId: "a", actionError: "too long" });
  });

  it("deletes only after the confirmation, removing the session and its tasks", async () => {
    const { api, calls } = fakeApi([summary("a"), summary("t1", { parentId: "a" }), summary("b")], {
      delete: { ok: true, data: { deleted: ["a", "t1"] } },
    });
    const store = createSessionsStore(api, { searchDelayMs: 0 });
    await store.getState().load();
    store.getState().askDelete("a");
    expect(store.getState().confirmingDelete?.id).toBe("a");
    store.getState().cancelDelete();
    expect(calls.some(([name]) => name === "delete")).toBe(false);
    store.getState().askDelete("a");
    expect(await store.getState().confirmDelete()).toEqual(["a", "t1"]);
    expect(store.getState().sessions.map((s) => s.id)).toEqual(["b"]);
    expect(store.getState().confirmingDelete).toBeUndefined();
  });

  it("keeps the confirmation open and says why a delete was refused", async () => {
    const { api } = fakeApi([summary("a")], {
      delete: { ok: false, error: { message: "A run is going on in this session" } },
    });
    const store = createSessionsStore(api, { searchDelayMs: 0 });
    await store.getState().load();
    store.getState().askDelete("a");
    expect(await store.getState().confirmDelete()).toEqual([]);
    expect(store.getState()).toMatchObject({
      confirmingDelete: { id: "a" },
      actionError: "A run is going on in this session",
      sessions: [{ id: "a" }],
    });
  });
});
