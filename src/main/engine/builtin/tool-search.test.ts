import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AnyTool, ToolOrigin } from "../tools/contract.ts";
import { LOCKED_TOOL_IDS, TOOL_SEARCH_ID } from "../tools/deferral.ts";
import { modelSchema } from "../tools/model-schema.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import type { ToolSearchData } from "./tool-search.ts";

const PLUGIN: ToolOrigin = { layer: "global", kind: "plugin", name: "extras" };
const MCP: ToolOrigin = { layer: "project", kind: "mcp", name: "crm" };

function extra(id: string, description: string, defer: boolean, props: Record<string, string> = {}): AnyTool {
  const shape = Object.fromEntries(Object.entries(props).map(([k, d]) => [k, z.string().describe(d)]));
  return {
    ...defineBuiltin({
      id,
      description,
      schema: z.strictObject(shape),
      requires: {},
      readOnly: true,
      kind: "other",
      execute: async (args) => ({ called: id, args }),
    }),
    defer,
  };
}

let ws: TestWorkspace;
const BIG_CONTEXT = 1_000_000;

beforeEach(async () => {
  ws = await openTestWorkspace();
  const r = ws.engine.registry;
  r.register(
    extra("github_create_issue", "Open a new issue in a GitHub repository.", true, {
      repo: "owner/name",
      title: "Issue title",
    }),
    PLUGIN,
  );
  r.register(extra("github_list_issues", "List the open issues of a GitHub repository.", true), PLUGIN);
  r.register(extra("github_close_issue", "Close an issue in a GitHub repository.", true), PLUGIN);
  r.register(extra("crm_find_contact", "Find a customer contact by name or email.", true), MCP);
  r.register(extra("word_count", "Count the words of a text.", false, { text: "The text" }), PLUGIN);
  for (let i = 0; i < 8; i++)
    r.register(extra(`github_extra_${i}`, `GitHub helper number ${i}.`, true), PLUGIN);
  // A large model: only config defers here; the budget cases set their own context size.
  ws.engine.toolExposure(ws.session, { contextTokens: BIG_CONTEXT });
});

afterEach(async () => {
  await ws.cleanup();
});

async function search(args: unknown) {
  return ws.session.call(TOOL_SEARCH_ID, args);
}

describe("tool_search", () => {
  it("is a locked, read-only, ungated search built-in with no requirements", () => {
    const info = ws.engine.listTools().find((t) => t.id === TOOL_SEARCH_ID);
    expect(info).toMatchObject({
      kind: "search",
      readOnly: true,
      gated: false,
      requires: {},
      deferred: false,
      origin: { layer: "builtin", kind: "builtin" },
    });
    expect(info?.parameters).toMatchObject({ required: ["query"], additionalProperties: false });
    expect(LOCKED_TOOL_IDS.has(TOOL_SEARCH_ID)).toBe(true);
  });

  it("returns the matching deferred tools with their definitions as the model is shown them, best first", async () => {
    const data = outputOf<ToolSearchData>(await search({ query: "create github issue" }));
    expect(data.tools[0]).toEqual({
      id: "github_create_issue",
      description: "Open a new issue in a GitHub repository.",
      parameters: modelSchema(ws.engine.registry.get("github_create_issue")!.tool.parameters),
    });
    expect(Object.keys(data.tools[0]!).sort()).toEqual(["description", "id", "parameters"]);
    expect(data.note).toBeUndefined();
  });

  it("finds a tool by its exact name", async () => {
    const data = outputOf<ToolSearchData>(await search({ query: "crm_find_contact" }));
    expect(data.tools.map((t) => t.id)).toEqual(["crm_find_contact"]);
  });

  it.each([
    { query: "github_create_issue", found: ["github_create_issue"] },
    { query: "  GITHUB_CREATE_ISSUE ", found: ["github_create_issue"] },
    { query: "github_close_issue, crm_find_contact", found: ["github_close_issue", "crm_find_contact"] },
    { query: "github_list_issues github_extra_3", found: ["github_list_issues", "github_extra_3"] },
    // The form some models were trained to use for exact names.
    {
      query: "select:github_create_issue,crm_find_contact",
      found: ["github_create_issue", "crm_find_contact"],
    },
  ])("loads only the tools a query names exactly: $query", async ({ query, found }) => {
    const data = outputOf<ToolSearchData>(await search({ query }));
    expect(data.tools.map((t) => t.id)).toEqual(found);
    // Nothing else was loaded into the session: the other GitHub tools stay names only.
    expect(ws.engine.toolExposure(ws.session).discoveredIds()).toEqual([...found].sort());
  });

  it("still searches when a query holds words besides exact names", async () => {
    const data = outputOf<ToolSearchData>(await search({ query: "github_create_issue or close" }));
    expect(data.tools.map((t) => t.id)).toEqual(expect.arrayContaining(["github_close_issue"]));
    expect(data.tools.length).toBeGreaterThan(1);
  });

  it("returns at most 5 tools by default and max_results when given", async () => {
    expect(outputOf<ToolSearchData>(await search({ query: "github" })).tools).toHaveLength(5);
    expect(outputOf<ToolSearchData>(await search({ query: "github", max_results: 2 })).tools).toHaveLength(2);
    expect(outputOf<ToolSearchData>(await search({ query: "github", max_results: 20 })).tools).toHaveLength(
      11,
    );
  });

  it("never returns tools that are not deferred, and finds them once the budget defers them", async () => {
    const data = outputOf<ToolSearchData>(await search({ query: "count the words" }));
    expect(data.tools.map((t) => t.id)).not.toContain("word_count");
    ws.engine.toolExposure(ws.session, { contextTokens: 1000 });
    const deferred = outputOf<ToolSearchData>(await search({ query: "count the words" }));
    expect(deferred.tools.map((t) => t.id)).toEqual(["word_count"]);
  });

  it("says a tool is already available when asked for one that is not deferred", async () => {
    const data = outputOf<ToolSearchData>(await search({ query: "word_count" }));
    expect(data).toEqual({
      tools: [],
      note: expect.stringMatching(/^word_count is not deferred.*Call it directly/),
    });
  });

  it("says so when nothing matches", async () => {
    const data = outputOf<ToolSearchData>(await search({ query: "quantum teleportation" }));
    expect(data.tools).toEqual([]);
    expect(data.note).toMatch(/No deferred tool matches "quantum teleportation"\. Try other or fewer words/);
  });

  it("quotes a long query that matches nothing in part, not whole, in its note", async () => {
    const query = `zxqv ${"blorft ".repeat(20_000)}`;
    const data = outputOf<ToolSearchData>(await search({ query }));
    expect(data.tools).toEqual([]);
    expect(data.note).toMatch(
      /^No deferred tool matches "zxqv blorft blorft .*…" \(140,\d{3} characters\)\. Try other or fewer words/,
    );
    expect(data.note!.length).toBeLessThan(400);
  });

  it.each([
    ["an empty query", { query: "" }, /query/],
    ["a blank query", { query: "   " }, /query is blank\. Pass a few words/],
    ["no query", {}, /query/],
    ["max_results 0", { query: "github", max_results: 0 }, /max_results/],
    ["max_results 21", { query: "github", max_results: 21 }, /max_results/],
    ["max_results 2.5", { query: "github", max_results: 2.5 }, /max_results/],
    ["an unknown argument", { query: "github", limit: 3 }, /limit/],
  ])("refuses %s with an error the model can act on", async (_name, args, message) => {
    expect(errorOf(await search(args))).toMatch(message);
  });

  // Each step of a call (the search, then per hit its load check and its discovery, which count
  // the loaded tools' tokens) asked for the deferral plan afresh: some 16 passes over every tool.
  it("plans deferral once per call, and again when a tool comes or goes", async () => {
    let asked = 0;
    const exposure = ws.engine.toolExposure(ws.session, {
      visible: () => {
        asked += 1;
        return true;
      },
    });
    const tools = ws.engine.registry.all().length;
    const data = outputOf<ToolSearchData>(await search({ query: "github" }));
    expect(data.tools).toHaveLength(5);
    expect(asked).toBe(tools);
    asked = 0;
    await search({ query: "crm" });
    expect(asked).toBe(0);
    ws.engine.registry.register(extra("crm_add_note", "Add a note to a customer contact.", true), MCP);
    const after = outputOf<ToolSearchData>(await search({ query: "crm_add_note" }));
    expect(after.tools.map((t) => t.id)).toEqual(["crm_add_note"]);
    expect(asked).toBe(tools + 1);
    expect(exposure.isDeferred("crm_add_note")).toBe(false);
  });

  it("loads what it found into the session's exposure, not other sessions'", async () => {
    const exposure = ws.engine.toolExposure(ws.session);
    expect(exposure.isDeferred("crm_find_contact")).toBe(true);
    await search({ query: "crm_find_contact" });
    expect(exposure.isDeferred("crm_find_contact")).toBe(false);
    expect(exposure.visibleIds()).toContain("crm_find_contact");
    const other = await ws.engine.openSession({ mode: "yolo" });
    expect(ws.engine.toolExposure(other).isDeferred("crm_find_contact")).toBe(true);
    await other.close();
  });

  // A server's schema may list 10,000 regions (about 40,000 tokens): loaded, it would be sent with
  // every request from then on, past a 32k model's whole context, and every later turn would fail.
  it.each([
    ["a 32k context", 32_768, false],
    ["a million-token context", BIG_CONTEXT, true],
  ])(
    "with %s, loads a tool whose definition takes ~40k tokens only when it fits in a quarter of the context",
    async (_name, contextTokens, loads) => {
      const regions = Array.from({ length: 10_000 }, (_, i) => `region-${i}`);
      const huge: AnyTool = {
        ...defineBuiltin({
          id: "cloud_pick_region",
          description: "Pick a cloud region.",
          schema: z.strictObject({ region: z.enum(regions as [string, ...string[]]) }),
          requires: {},
          readOnly: true,
          kind: "other",
          execute: async (args) => args,
        }),
        defer: true,
      };
      ws.engine.registry.register(huge, MCP);
      const exposure = ws.engine.toolExposure(ws.session, { contextTokens });
      const data = outputOf<ToolSearchData>(await search({ query: "cloud_pick_region github_create_issue" }));
      expect(data.tools.map((t) => t.id).sort()).toEqual(
        loads ? ["cloud_pick_region", "github_create_issue"] : ["github_create_issue"],
      );
      expect(exposure.isDeferred("cloud_pick_region")).toBe(!loads);
      expect(exposure.isDeferred("github_create_issue")).toBe(false);
      if (!loads) {
        expect(data.note).toMatch(
          /^cloud_pick_region was found but not loaded: its definition takes about \d{2},\d{3} tokens, more than a quarter of this model's context \(8,192 of 32,768\)\. Tell the user/,
        );
        expect(JSON.stringify(data).length).toBeLessThan(5_000);
      }
    },
  );

  it("loads no more tools than fit in half of the context, all searches together", async () => {
    // About 5,000 tokens each: one fits in a quarter of a 32k context, four do not fit in half of it.
    for (let i = 0; i < 4; i++)
      ws.engine.registry.register(
        extra(`bulk_helper_${i}`, `Bulk helper ${i}. ${"Details of what it does. ".repeat(800)}`, true),
        MCP,
      );
    const exposure = ws.engine.toolExposure(ws.session, { contextTokens: 32_768 });
    const first = outputOf<ToolSearchData>(await search({ query: "bulk_helper_0 bulk_helper_1" }));
    expect(first.tools.map((t) => t.id)).toEqual(["bulk_helper_0", "bulk_helper_1"]);
    expect(first.note).toBeUndefined();
    const second = outputOf<ToolSearchData>(await search({ query: "bulk_helper_2 bulk_helper_3" }));
    expect(second.tools.map((t) => t.id)).toEqual(["bulk_helper_2"]);
    expect(second.note).toMatch(
      /^bulk_helper_3 was found but not loaded: the tools loaded so far take about 1\d,\d{3} tokens of every request, and with its \d,\d{3} they would take more than half of this model's context \(16,384 of 32,768\)\./,
    );
    expect(exposure.discoveredIds()).toEqual(["bulk_helper_0", "bulk_helper_1", "bulk_helper_2"]);
    // Asking again for one already loaded still answers it.
    expect(outputOf<ToolSearchData>(await search({ query: "bulk_helper_0" })).tools.map((t) => t.id)).toEqual(
      ["bulk_helper_0"],
    );
  });

  it("unloads the tools a smaller context learned later cannot hold, oldest first, and tells the model which", async () => {
    // About 5,000 tokens each: all four fit in half of a 64k context, three in half of 32k.
    for (let i = 0; i < 4; i++)
      ws.engine.registry.register(
        extra(`bulk_helper_${i}`, `Bulk helper ${i}. ${"Details of what it does. ".repeat(800)}`, true),
        MCP,
      );
    const exposure = ws.engine.toolExposure(ws.session, { contextTokens: 65_536 });
    for (const id of ["bulk_helper_2", "bulk_helper_0", "bulk_helper_3", "bulk_helper_1"])
      expect(outputOf<ToolSearchData>(await search({ query: id })).tools.map((t) => t.id)).toEqual([id]);
    expect(exposure.deferredNotice()).not.toMatch(/Unloaded/);

    // The model's server says its window is 32k: the first one loaded goes.
    ws.engine.toolExposure(ws.session, { contextTokens: 32_768 });
    expect(exposure.discoveredIds()).toEqual(["bulk_helper_0", "bulk_helper_1", "bulk_helper_3"]);
    expect(exposure.visibleIds()).not.toContain("bulk_helper_2");
    expect(exposure.isDeferred("bulk_helper_2")).toBe(true);
    expect(exposure.deferredNotice()).toMatch(
      /\nUnloaded, since this model's context \(32,768 tokens\) cannot hold them with every request: bulk_helper_2\. .*load it again with tool_search/,
    );
    // Loading it again is weighed against the tools loaded now.
    const again = outputOf<ToolSearchData>(await search({ query: "bulk_helper_2" }));
    expect(again.tools).toEqual([]);
    expect(again.note).toMatch(/^bulk_helper_2 was found but not loaded: the tools loaded so far take about/);

    // A 16k window: each alone takes more than a quarter of it, so none stays loaded.
    ws.engine.toolExposure(ws.session, { contextTokens: 16_384 });
    expect(exposure.discoveredIds()).toEqual([]);
    expect(exposure.deferredNotice()).toMatch(
      /: bulk_helper_0, bulk_helper_1, bulk_helper_2, bulk_helper_3\. Their definitions/,
    );
    // A larger window again unloads nothing more, and a tool loaded again is no longer named.
    ws.engine.toolExposure(ws.session, { contextTokens: 65_536 });
    expect(outputOf<ToolSearchData>(await search({ query: "bulk_helper_1" })).tools.map((t) => t.id)).toEqual(
      ["bulk_helper_1"],
    );
    expect(exposure.deferredNotice()).toMatch(/: bulk_helper_0, bulk_helper_2, bulk_helper_3\. Their/);
  });

  it("says there is nothing to load when no tool is deferred", async () => {
    const fresh = await openTestWorkspace();
    try {
      const data = outputOf<ToolSearchData>(
        await fresh.session.call(TOOL_SEARCH_ID, { query: "deploy to production" }),
      );
      expect(data).toEqual({ tools: [], note: expect.stringMatching(/No tool is deferred/) });
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("deferred tools and hosts", () => {
  it("a host can call a deferred tool directly, without searching first", async () => {
    expect(ws.engine.toolExposure(ws.session).isDeferred("github_create_issue")).toBe(true);
    const envelope = await ws.session.call("github_create_issue", { repo: "a/b", title: "Bug" });
    expect(outputOf(envelope)).toEqual({
      called: "github_create_issue",
      args: { repo: "a/b", title: "Bug" },
    });
  });

  it("a deferred tool's call is still validated like any other", async () => {
    expect(errorOf(await ws.session.call("github_create_issue", { repo: 1 }))).toMatch(/repo/);
  });

  it("listTools reports deferred: true for tools deferred by config or by the budget", async () => {
    const byId = new Map(ws.engine.listTools({ contextTokens: BIG_CONTEXT }).map((t) => [t.id, t]));
    expect(byId.get("github_create_issue")).toMatchObject({ deferred: true, deferredBy: "config" });
    expect(byId.get("word_count")?.deferred).toBe(false);
    expect(byId.get("word_count")?.deferredBy).toBeUndefined();
    for (const id of ["read", "write", "edit", "glob", "grep", "bash"])
      expect(byId.get(id)?.deferred).toBe(false);
    // A tiny context defers the non-locked word_count too; the locked built-ins stay.
    const tiny = new Map(ws.engine.listTools({ contextTokens: 1000 }).map((t) => [t.id, t]));
    expect(tiny.get("word_count")).toMatchObject({ deferred: true, deferredBy: "budget" });
    expect(tiny.get("github_create_issue")?.deferredBy).toBe("config");
    for (const id of ["read", "write", "edit", "glob", "grep", "bash", TOOL_SEARCH_ID])
      expect(tiny.get(id)?.deferred).toBe(false);
  });
});
