import { describe, expect, it } from "vitest";
import { ToolVisibility } from "./tool-visibility.ts";

describe("tool visibility", () => {
  it.each([
    [{ allow: ["*"], deny: [] }, "bash", true],
    [{ allow: ["*"], deny: ["bash"] }, "bash", false],
    [{ allow: ["bash"], deny: ["*"] }, "bash", false],
    [{ allow: ["web_*"], deny: [] }, "web_fetch", true],
    [{ allow: ["web_*"], deny: ["web_search"] }, "web_search", false],
    [{ allow: ["read"], deny: [] }, "readme", false],
    [{ allow: [], deny: [] }, "read", false],
    [{ allow: ["{read,glob}"], deny: [] }, "glob", true],
  ])("%j: %s visible = %s (deny wins)", (tools, id, visible) => {
    expect(new ToolVisibility("a", tools).visible(id)).toBe(visible);
  });
});
