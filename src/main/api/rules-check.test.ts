// The rules editor's checks name the field that is wrong, so the editor says it under that field.
import { describe, expect, it } from "vitest";
import { checkDraft } from "./rules-check.ts";

const context = {
  root: "/projects/a",
  files: { user: "/home/u/.lathe/settings.json", project: "/projects/a/.lathe/settings.json" },
  projectTrusted: true,
};

describe("checkDraft's problems", () => {
  it.each([
    [
      "an empty permission",
      { permission: "", pattern: "git *", action: "allow" },
      [{ field: "permission", message: "name a tool, a capability or *" }],
    ],
    [
      "a blank pattern",
      { permission: "bash", pattern: "   ", action: "allow" },
      [{ field: "pattern", message: "give a pattern (* matches everything)" }],
    ],
    [
      "both empty: one problem under each field",
      { permission: "", pattern: "", action: "deny" },
      [
        { field: "permission", message: "name a tool, a capability or *" },
        { field: "pattern", message: "give a pattern (* matches everything)" },
      ],
    ],
    ["an unknown action", { permission: "bash", pattern: "*", action: "sometimes" }, [{ field: "action" }]],
    // Said about the row as a whole: the editor shows it under the row's first field.
    ["not a rule at all", "bash *", [{}]],
  ])("%s", (_what, row, expected) => {
    const { problems } = checkDraft({ user: [row], project: [] }, undefined, context);
    expect(problems).toHaveLength(expected.length);
    problems.forEach((problem, i) => {
      expect(problem).toMatchObject({ scope: "user", index: 0, ...expected[i] });
      expect(problem.message).not.toBe("");
    });
    if (!("field" in (expected[0] ?? {}))) expect(problems[0]).not.toHaveProperty("field");
  });

  it("finds no problem in a valid rule", () => {
    const draft = { user: [{ permission: "bash", pattern: "git *", action: "allow" }], project: [] };
    expect(checkDraft(draft, undefined, context).problems).toEqual([]);
  });
});
