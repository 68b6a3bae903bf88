import { describe, expect, it } from "vitest";
import { PermissionRuleSchema } from "./permission-rule.ts";

// A rule whose `permission` no tool or capability can ever have matches nothing: a deny rule
// written `"Bash"` (as another agent spells it) would deny nothing, silently. Such a rule is a
// settings error that says what was meant.

const problem = (permission: string): string | undefined => {
  const parsed = PermissionRuleSchema.safeParse({ permission, pattern: "rm *", action: "deny" });
  return parsed.success ? undefined : parsed.error.issues.map((i) => i.message).join("; ");
};

describe("a rule's permission", () => {
  it.each([
    ["bash"],
    ["read"],
    ["web_fetch"],
    ["fs.read"],
    ["fs.write"],
    ["shell.run"],
    ["net.fetch"],
    ["*"],
    ["word_count"], // a plugin's tool
    ["mcp__files__read_file"], // an MCP server's tool
    ["my-tool"],
    ["shell"], // a plugin may be named so
  ])("accepts %s", (permission) => {
    expect(problem(permission)).toBeUndefined();
  });

  it.each([
    ["Bash", /"Bash" is no tool's id .*"bash"/],
    ["Read", /"Read" is no tool's id .*"read"/],
    ["WebFetch", /"web_fetch"/],
    ["Bash(git push:*)", /\{"permission": "bash", "pattern": "git push:\*"\}/],
    ["Edit(src/**)", /\{"permission": "edit", "pattern": "src\/\*\*"\}/],
    ["fs.writes", /did you mean "fs\.write"/],
    ["shell.exec", /is not a tool id, a capability/],
    ["fs:read", /did you mean "fs\.read"/],
    ["bash ", /is not a tool id, a capability/],
    ["**", /is not a tool id, a capability/],
  ])("refuses %s, saying what was meant", (permission, message) => {
    expect(problem(permission)).toMatch(message);
  });
});
