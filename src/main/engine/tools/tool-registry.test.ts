import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { ManifestError } from "../errors/manifest-error.ts";
import type { RequirementSet } from "./requirement-set.ts";
import { ToolRegistry, toolInfo } from "./tool-registry.ts";

function tool(id: string, requires: RequirementSet = {}, description = `${id} tool`) {
  return defineBuiltin({
    id,
    description,
    schema: z.strictObject({}),
    requires,
    readOnly: true,
    kind: "other",
    execute: async () => ({}),
  });
}

describe("ToolRegistry", () => {
  it("binds a name to the latest layer and remembers what it shadows", () => {
    const r = new ToolRegistry();
    r.register(tool("notes", {}, "project notes"), { layer: "project", kind: "plugin", name: "my-notes" });
    r.register(tool("notes", {}, "builtin notes"), { layer: "builtin", kind: "builtin" });
    r.register(tool("notes", {}, "global notes"), { layer: "global", kind: "plugin", name: "g-notes" });
    const bound = r.get("notes");
    expect(bound?.tool.description).toBe("project notes");
    expect(bound?.origin).toEqual({ layer: "project", kind: "plugin", name: "my-notes" });
    expect(bound?.shadows.map((o) => o.layer)).toEqual(["builtin", "global"]);
    expect(r.all()).toHaveLength(1);
  });

  it("keeps each name's binding and shadows right as tools come and go after a look-up", () => {
    const r = new ToolRegistry();
    r.register(tool("notes", {}, "global notes"), { layer: "global", kind: "plugin", name: "g" });
    expect(r.get("notes")?.tool.description).toBe("global notes");
    r.register(tool("notes", {}, "project notes"), { layer: "project", kind: "plugin", name: "p" });
    r.register(tool("todo_list"), { layer: "global", kind: "mcp", name: "srv" });
    expect(r.get("notes")?.tool.description).toBe("project notes");
    expect(r.get("notes")?.shadows).toEqual([{ layer: "global", kind: "plugin", name: "g" }]);
    expect(r.ids()).toEqual(["notes", "todo_list"]);
    r.unregister("project", () => true);
    expect(r.get("notes")?.tool.description).toBe("global notes");
    expect(r.get("notes")?.shadows).toEqual([]);
    r.unregister("global", (origin) => origin.kind === "mcp");
    expect(r.ids()).toEqual(["notes"]);
    expect(r.get("todo_list")).toBeUndefined();
  });

  // A plugin unloading (each one as an engine with 300 plugins closes) walked the layer's every
  // tool with its predicate; it now looks up its own tool by name.
  it("unregisters one named tool of a source, looking at that tool alone", () => {
    const r = new ToolRegistry();
    r.register(tool("notes", {}, "global notes"), { layer: "global", kind: "plugin", name: "g" });
    r.register(tool("notes", {}, "project notes"), { layer: "project", kind: "plugin", name: "p" });
    for (let i = 0; i < 50; i++)
      r.register(tool(`other_${i}`), { layer: "project", kind: "plugin", name: `o${i}` }, { checked: true });
    const asked: string[] = [];
    const isP = (origin: { name?: string }): boolean => {
      asked.push(origin.name ?? "");
      return origin.name === "p";
    };
    r.unregisterTool("project", "other_3", isP);
    expect(r.get("other_3")).toBeDefined();
    r.unregisterTool("project", "notes", isP);
    expect(r.get("notes")?.tool.description).toBe("global notes");
    r.unregisterTool("project", "missing", isP);
    expect(asked).toEqual(["o3", "p"]);
    expect(r.ids()).toHaveLength(51);
  });

  // An MCP server's tools are registered one by one, each after a look-up of whether its name is
  // taken (mcp-binding.ts). Each look-up rebound every name registered so far: 300 tools took
  // 40 ms of `lathe tools`, 1,200 took 0.6 s. A name's binding is now made once, when its own
  // entries change, and stays the same object through every other tool's registration. (A
  // timing ratio was tried: on these shared machines it swung from 9× to 58× for 8× the tools.)
  it("binds a server's tools, each named after a look-up, without rebinding the names bound before", () => {
    const r = new ToolRegistry();
    const first = tool("srv_tool_0");
    r.register(first, { layer: "global", kind: "mcp", name: "srv" }, { checked: true });
    const bound = r.get("srv_tool_0");
    for (let i = 1; i < 300; i++) {
      const id = `srv_tool_${i}`;
      expect(r.get(id)).toBeUndefined();
      r.register(tool(id), { layer: "global", kind: "mcp", name: "srv" }, { checked: true });
    }
    expect(r.get("srv_tool_0")).toBe(bound);
    expect(r.ids()).toHaveLength(300);
    // A change to that name itself does rebind it.
    r.register(tool("srv_tool_0"), { layer: "project", kind: "plugin", name: "p" });
    expect(r.get("srv_tool_0")).not.toBe(bound);
    expect(r.get("srv_tool_0")?.shadows).toEqual([{ layer: "global", kind: "mcp", name: "srv" }]);
  });

  it.each([
    ["a bundled plugin", { layer: "bundled", kind: "plugin", name: "b" }],
    ["a global plugin", { layer: "global", kind: "plugin", name: "g" }],
    ["a project plugin", { layer: "project", kind: "plugin", name: "p" }],
    ["an MCP tool", { layer: "project", kind: "mcp", name: "srv" }],
  ] as const)("refuses %s that takes a locked built-in's name, saying so", (_name, origin) => {
    const r = new ToolRegistry();
    r.register(tool("read", {}, "builtin read"), { layer: "builtin", kind: "builtin" });
    expect(() => r.register(tool("read", {}, "impostor"), origin)).toThrow(
      /"read" is one of Lathe's locked built-in tools, which plugins and MCP servers cannot replace/,
    );
    expect(r.get("read")?.tool.description).toBe("builtin read");
  });

  it.each([
    ["Read", "read"],
    ["BASH", "bash"],
    ["WebFetch", "web_fetch"],
    ["web-search", "web_search"],
    ["Tool_Search", "tool_search"],
  ])("refuses an extension's %s, a case variant of the locked %s", (id, locked) => {
    const r = new ToolRegistry();
    expect(() => r.register(tool(id), { layer: "global", kind: "plugin", name: "g" })).toThrow(
      `"${id}" differs only in case, "_" or "-" from "${locked}", one of Lathe's locked built-in tools`,
    );
    expect(r.get(id)).toBeUndefined();
    // Positive control: a name that is no variant of a locked one registers.
    r.register(tool(`${id}_notes`), { layer: "global", kind: "plugin", name: "g" });
    expect(r.get(`${id}_notes`)).toBeDefined();
  });

  it.each([
    ["https://api.example.com", /has a scheme/],
    ["api.example.com/v1", /is not a bare host/],
    ["api.*.com", /only \* and \*\.example\.com are wildcards/],
    ["127.0.0.1:99999", /not a number from 1 to 65535/],
  ])("refuses a tool whose requires.net.hosts has %s", (entry, message) => {
    const r = new ToolRegistry();
    expect(() =>
      // An extension's declarations are checked here; the built-ins' in builtin-tools.test.ts.
      r.register(tool("fetchy", { net: { hosts: [entry] } }), { layer: "global", kind: "plugin", name: "p" }),
    ).toThrow(message);
  });

  it("reports every tool's origin in its listing", () => {
    const r = new ToolRegistry();
    r.register(tool("b"), { layer: "bundled", kind: "plugin", name: "b-plugin" });
    r.register(tool("a"), { layer: "builtin", kind: "builtin" });
    expect(r.all().map((entry) => toolInfo(entry))).toMatchObject([
      { id: "a", origin: { layer: "builtin", kind: "builtin" } },
      { id: "b", origin: { layer: "bundled", kind: "plugin", name: "b-plugin" } },
    ]);
  });

  it("finds the disabled tool a call meant: the latest layer's, by tool id, never a whole-source problem", () => {
    const registry = new ToolRegistry();
    registry.reportDisabled({
      id: "greet",
      origin: { layer: "bundled", kind: "plugin", name: "greet" },
      reason: "b",
    });
    registry.reportDisabled({
      id: "greet",
      origin: { layer: "project", kind: "plugin", name: "hello" },
      reason: "p",
      fix: "trust",
    });
    registry.reportDisabled({
      id: "greet",
      origin: { layer: "global", kind: "plugin", name: "greet" },
      reason: "g",
    });
    registry.reportDisabled({
      id: "/tools",
      origin: { layer: "global", kind: "plugin" },
      reason: "unreadable",
    });
    expect(registry.disabledTool("greet")).toEqual({
      id: "greet",
      origin: { layer: "project", kind: "plugin", name: "hello" },
      reason: "p",
      fix: "trust",
    });
    expect(registry.disabledTool("/tools")).toBeUndefined();
    expect(registry.disabledTool("other")).toBeUndefined();
  });

  it("rebinds after a layer's tools are removed", () => {
    const r = new ToolRegistry();
    r.register(tool("x", {}, "builtin"), { layer: "builtin", kind: "builtin" });
    r.register(tool("x", {}, "project"), { layer: "project", kind: "plugin", name: "p" });
    r.unregister("project", (o) => o.name === "p");
    expect(r.get("x")?.tool.description).toBe("builtin");
  });

  it.each([
    ["a bad id", () => tool("has space"), /Tool id "has space" is invalid/],
    [
      "an unknown path variable",
      () => tool("t", { fs: { read: ["{workspce}/**"] } }),
      /Unknown path variable \{workspce\}/,
    ],
  ])("refuses %s at registration", (_n, make, message) => {
    const r = new ToolRegistry();
    const origin = { layer: "global", kind: "plugin", name: "p" } as const;
    expect(() => r.register(make(), origin)).toThrow(ManifestError);
    expect(() => r.register(make(), origin)).toThrow(message);
  });

  it("refuses two tools of one name in one layer", () => {
    const r = new ToolRegistry();
    r.register(tool("t"), { layer: "global", kind: "plugin", name: "one" });
    expect(() => r.register(tool("t"), { layer: "global", kind: "plugin", name: "two" })).toThrow(
      /declared twice/,
    );
  });

  it("refuses a schema ajv cannot compile", () => {
    const r = new ToolRegistry();
    const broken = {
      ...tool("t"),
      parameters: { type: "object", properties: { a: { type: "no-such-type" } } },
    };
    expect(() => r.register(broken, { layer: "global", kind: "plugin", name: "x" })).toThrow(
      /invalid parameters schema/,
    );
  });

  it("computes the effective capability set as the union of manifest and tools", () => {
    const r = new ToolRegistry();
    r.register(tool("a", { fs: { read: ["{workspace}/**"] } }), { layer: "builtin", kind: "builtin" });
    r.register(tool("b", { fs: { read: ["{workspace}/**"], write: ["out/**"] }, shell: [{ cmd: "git" }] }), {
      layer: "builtin",
      kind: "builtin",
    });
    expect(r.effectiveRequirements({ net: { hosts: ["example.org"] } })).toEqual({
      fs: { read: ["{workspace}/**"], write: ["out/**"] },
      net: { hosts: ["example.org"] },
      shell: [{ cmd: "git" }],
    });
  });
});
