import { describe, expect, it } from "vitest";
import type { LatheApi } from "../../shared/api-contract.ts";
import type { AuditEntry, AuditPage } from "../../shared/audit-schemas.ts";
import { createAuditStore } from "./audit-store.ts";

const entry = (id: number, sessionId: string, toolId: string): AuditEntry => ({
  id,
  callId: `c${id}`,
  sessionId,
  toolId,
  args: {},
  decisions: [],
  outcome: "output",
  envelopeHead: "{}",
  durationMs: 1,
  startedAt: 1,
});

/** A server whose open folder the test switches, answering each query with that folder's calls. */
function fakeApi() {
  const trails: Record<string, AuditEntry[]> = {
    "/a": [entry(2, "s-a", "read"), entry(1, "s-a", "glob")],
    "/b": [entry(3, "s-b", "bash")],
  };
  const server = { open: "/a" };
  const queries: unknown[] = [];
  const api = {
    audit: {
      query: (request: { sessionId?: string }) => {
        queries.push(request);
        const all = trails[server.open] ?? [];
        const page: AuditPage = {
          root: server.open,
          entries: all.filter((e) => request.sessionId === undefined || e.sessionId === request.sessionId),
          more: false,
          sessions: [...new Set(all.map((e) => e.sessionId))],
          tools: [...new Set(all.map((e) => e.toolId))],
        };
        return Promise.resolve({ ok: true as const, data: page });
      },
    },
  } as unknown as LatheApi;
  return { api, server, queries };
}

describe("the audit store", () => {
  it("shows the open folder's calls, and starts its filters afresh in another folder", async () => {
    const { api, server, queries } = fakeApi();
    const store = createAuditStore(api);
    await store.getState().showFolder("/a");
    expect(store.getState()).toMatchObject({ root: "/a", sessions: ["s-a"], tools: ["read", "glob"] });
    await store.getState().setFilters({ sessionId: "s-a" });
    expect(store.getState().entries.map((e) => e.callId)).toEqual(["c2", "c1"]);

    // Back to the view in the same folder: the filter stays.
    await store.getState().showFolder("/a");
    expect(store.getState().filters).toEqual({ sessionId: "s-a" });

    // Another folder: the last folder's session is none of its own, so the filter goes.
    server.open = "/b";
    await store.getState().showFolder("/b");
    expect(queries.at(-1)).toEqual({ limit: 50 });
    expect(store.getState()).toMatchObject({
      root: "/b",
      filters: {},
      sessions: ["s-b"],
      tools: ["bash"],
    });
    expect(store.getState().entries.map((e) => e.callId)).toEqual(["c3"]);
  });
});
