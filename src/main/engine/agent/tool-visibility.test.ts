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

describe("a task's tool visibility under its parent's", () => {
  it("hides what the parent hides, whatever the child allows, and says whose doing it is", () => {
    const lead = new ToolVisibility("lead", { allow: ["*"], deny: ["bash"] });
    const child = new ToolVisibility("worker", { allow: ["*"], deny: [] }, lead);
    const grandchild = new ToolVisibility("helper", { allow: ["*"], deny: ["write"] }, child);
    expect(child.visible("bash")).toBe(false);
    expect(child.visible("read")).toBe(true);
    expect(grandchild.visible("write")).toBe(false);
    expect(grandchild.visible("read")).toBe(true);
    const inherited =
      'agent "lead" denies it in its manifest, and a task may use only the tools of the agent that started it';
    expect(child.reason("bash")).toBe(inherited);
    expect(grandchild.reason("bash")).toBe(inherited);
    expect(grandchild.reason("write")).toBe('agent "helper" denies it in its manifest');
  });
});
