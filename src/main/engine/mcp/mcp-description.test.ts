import { describe, expect, it } from "vitest";
import { cutDescriptionNote, MODEL_DESCRIPTION_CHARS, modelDescription } from "./mcp-description.ts";

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
