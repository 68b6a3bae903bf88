import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../tools/tool-registry.ts";
import { mcpTool } from "./mcp-tool.ts";
import {
  cutDescriptionNote,
  MODEL_DESCRIPTION_CHARS,
  modelDescription,
  modelSchema,
  SCHEMA_DESCRIPTION_CHARS,
} from "./mcp-description.ts";

const tool = (description: string) => ({ name: "t", description, inputSchema: { type: "object" as const } });

describe("an MCP tool's description as the model gets it", () => {
  it.each([
    ["empty", "", ""],
    ["short", "Reads a file.", "Reads a file."],
    ["exactly at the limit", "x".repeat(MODEL_DESCRIPTION_CHARS), "x".repeat(MODEL_DESCRIPTION_CHARS)],
  ])("keeps a description that is %s whole", (_what, text, expected) => {
    expect(modelDescription(text)).toBe(expected);
    expect(cutDescriptionNote(tool(text), "s")).toBeUndefined();
  });

  it("cuts a 2 MB description to its head with a visible mark saying how much was left out", () => {
    const text = `Useful start. ${"D".repeat(2_000_000)}`;
    const shown = modelDescription(text);
    expect(shown.startsWith("Useful start. DDD")).toBe(true);
    expect(shown).toMatch(/… \[description cut: 1,997,966 more characters\]$/);
    expect(shown.length).toBeLessThan(MODEL_DESCRIPTION_CHARS + 60);
    expect(cutDescriptionNote(tool(text), "s")).toBe(
      'Tool "t": its description has 2,000,014 characters, so the model is shown the first 2,048 and a mark saying the rest was cut. The server\'s author should shorten it.',
    );
  });

  it("never splits a character outside the BMP at the cut", () => {
    const text = `${"x".repeat(MODEL_DESCRIPTION_CHARS - 1)}😀${"y".repeat(10)}`;
    const shown = modelDescription(text);
    expect(shown.startsWith(`${"x".repeat(MODEL_DESCRIPTION_CHARS - 1)}…`)).toBe(true);
    expect(shown).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe("an MCP tool's input schema as the model gets it", () => {
  const long = `Path of the file. ${"P".repeat(500_000)}`;
  const schema = {
    type: "object" as const,
    description: "Arguments.",
    properties: {
      path: { type: "string", description: long },
      // an argument named "description" is a schema, not a text to cut
      description: { type: "string", description: "What to say." },
      items: { type: "array", items: { anyOf: [{ type: "string", description: long }] } },
    },
    required: ["path"],
  };

  it("cuts every long description in it, at any depth, and leaves the rest and the original alone", () => {
    const before = JSON.stringify(schema);
    const shown = modelSchema(schema);
    expect(JSON.stringify(schema)).toBe(before);
    const path = shown.properties.path.description;
    expect(path.startsWith("Path of the file. PPP")).toBe(true);
    expect(path).toMatch(/… \[description cut: [\d,]+ more characters\]$/);
    expect(path.length).toBeLessThan(SCHEMA_DESCRIPTION_CHARS + 60);
    expect(shown.properties.items.items.anyOf[0]?.description.length).toBeLessThan(
      SCHEMA_DESCRIPTION_CHARS + 60,
    );
    expect(shown.properties.description).toEqual({ type: "string", description: "What to say." });
    expect(shown.required).toEqual(["path"]);
    expect(JSON.stringify(shown).length).toBeLessThan(4_000);
  });

  it("tells the person which tool's schema was cut, and keeps short schemas as they are", () => {
    expect(cutDescriptionNote({ name: "t", inputSchema: schema }, "s")).toBe(
      'Tool "t": 2 descriptions in its input schema have up to 500,018 characters, so the model is shown the first 1,024 of each. The server\'s author should shorten them.',
    );
    const small = { type: "object" as const, properties: { a: { type: "string", description: "A." } } };
    expect(modelSchema(small)).toEqual(small);
    expect(cutDescriptionNote({ name: "t", inputSchema: small }, "s")).toBeUndefined();
  });
});

describe("an input schema with a property named __proto__", () => {
  // JSON.parse makes "__proto__" an own key, as a server's listing has it; copying it with an
  // assignment would set the copy's prototype instead, and the meta-schema check then read the
  // property's schema as keywords of `properties` and refused the tool with nonsense.
  const listed = JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"string","description":"odd but legal"},"name":{"type":"string"}},"required":["__proto__"]}',
  ) as Record<string, unknown>;

  it("is shown to the model as listed, the property kept as a property", () => {
    const shown = modelSchema(listed);
    expect(JSON.stringify(shown)).toBe(JSON.stringify(listed));
    const properties = shown["properties"] as object;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(["__proto__", "name"]);
  });

  it("is refused with the reason (the validator would skip that name), not registered to go unchecked", () => {
    const registry = new ToolRegistry();
    const caller = { callTool: () => Promise.reject(new Error("not called")) };
    const tool = mcpTool({
      id: "odd",
      server: "s",
      tool: { name: "odd", inputSchema: listed } as Tool,
      defer: false,
      caller,
    });
    // The property's own schema says string; had the tool loaded, a number for it would pass.
    const load = () => registry.register(tool, { layer: "global", kind: "mcp", name: "s" });
    expect(load).toThrow(/names a property "__proto__".*would never be enforced.*another name/s);
  });
});
