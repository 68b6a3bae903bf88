import { describe, expect, it } from "vitest";
import { EMPTY_SETTINGS } from "../config/lathe-settings.ts";
import { assertCompilable } from "../tools/argument-validator.ts";
import type { AnyTool } from "../tools/contract.ts";
import { checkRequires, ToolRegistry } from "../tools/tool-registry.ts";
import { builtinTools } from "./builtin-tools.ts";

// The registry takes the built-ins' declarations as they are (checking them at every start costs
// more than the rest of it): they are checked here instead, as a plugin's or an MCP server's are
// checked when they register.

const unused = {} as never;
const builtins: AnyTool[] = builtinTools({
  web: EMPTY_SETTINGS.web,
  settingsFile: "/s.json",
  skills: unused,
});

describe("the built-in tools' declarations", () => {
  it.each(builtins.map((tool) => [tool.id, tool] as const))(
    "%s publishes a valid JSON Schema and requirements that compile",
    (_id, tool) => {
      expect(() => assertCompilable(tool.parameters)).not.toThrow();
      expect(() => checkRequires(tool)).not.toThrow();
      expect(tool.parameters).toMatchObject({ type: "object", additionalProperties: false });
    },
  );

  it("are what the engine registers, each once", () => {
    const registry = new ToolRegistry();
    for (const tool of builtins) registry.register(tool, { layer: "builtin", kind: "builtin" });
    expect(registry.ids().sort()).toEqual(builtins.map((t) => t.id).sort());
    // The same declarations from a plugin are checked, and pass.
    const checked = new ToolRegistry();
    for (const tool of builtins.filter((t) => t.id !== "read"))
      expect(() =>
        checked.register({ ...tool, id: `${tool.id}_copy` }, { layer: "global", kind: "plugin", name: "p" }),
      ).not.toThrow();
  });
});

describe("checkRequires", () => {
  it.each([
    ["a path pattern with an unknown variable", { fs: { read: ["{workspce}/**"] } }, /Tool "t".*workspce/],
    ["a host entry that is not a host", { net: { hosts: ["http://x"] } }, /requires\.net\.hosts entry/],
  ])("refuses %s", (_name, requires, message) => {
    const tool = { ...builtins[0], id: "t", requires } as AnyTool;
    expect(() => checkRequires(tool)).toThrow(message);
  });
});
