import { describe, expect, it } from "vitest";
import type { ApprovalMode } from "../config/lathe-settings.ts";
import type { Action, ScopedRule } from "./permission-rule.ts";
import { Ruleset } from "./ruleset.ts";
import { walkedFileRules } from "./walked-file-rules.ts";

function rule(permission: string, pattern: string, action: Action): ScopedRule {
  return { permission, pattern, action, scope: "user", source: "user settings" };
}

const file = (display: string) => ({ display, absolute: `/w/${display}` });

function rulesOf(rules: ScopedRule[], mode: ApprovalMode = "ask", allowlistLets = false) {
  return walkedFileRules(new Ruleset(rules), mode, () => allowlistLets);
}

describe("walkedFileRules", () => {
  it.each<[string, ScopedRule[], string, boolean]>([
    ["no rule", [], "secrets/k", false],
    ["an fs.read deny", [rule("fs.read", "secrets/**", "deny")], "secrets/k", true],
    ["the read tool's deny", [rule("read", "secrets/**", "deny")], "secrets/k", true],
    ["the tool's own deny", [rule("grep", "secrets/**", "deny")], "secrets/k", true],
    ["another tool's deny", [rule("glob", "secrets/**", "deny")], "secrets/k", false],
    ["a * deny", [rule("*", "secrets/**", "deny")], "secrets/k", true],
    ["a deny elsewhere", [rule("fs.read", "other/**", "deny")], "secrets/k", false],
    ["an absolute pattern", [rule("fs.read", "/w/secrets/**", "deny")], "secrets/k", true],
    [
      "a more specific allow for the tool (precedence kept)",
      [rule("fs.read", "secrets/**", "deny"), rule("fs.read", "secrets/public.txt", "allow")],
      "secrets/public.txt",
      false,
    ],
    [
      "a more specific allow for grep, but read is denied",
      [rule("read", "secrets/**", "deny"), rule("grep", "secrets/public.txt", "allow")],
      "secrets/public.txt",
      true,
    ],
    ["an ask rule is no deny", [rule("fs.read", "secrets/**", "ask")], "secrets/k", false],
  ])("denied to grep: %s", (_name, rules, path, denied) => {
    const verdict = rulesOf(rules).denied("grep", file(path));
    expect(verdict !== undefined).toBe(denied);
    if (denied) expect(verdict).toMatch(new RegExp(`^reading "${path}" matched the user rule`));
  });

  it.each<[string, ScopedRule[], ApprovalMode, boolean, string | undefined]>([
    ["an ask rule, ask mode", [rule("fs.read", "secrets/**", "ask")], "ask", false, "secrets/**"],
    ["the read tool's ask rule is its own", [rule("read", "secrets", "ask")], "ask", false, undefined],
    ["a * ask rule", [rule("*", "secrets/**", "ask")], "ask", false, "secrets/**"],
    ["yolo mode asks no one", [rule("fs.read", "secrets/**", "ask")], "yolo", false, undefined],
    ["allowlist mode, allowlisted", [rule("fs.read", "secrets/**", "ask")], "allowlist", true, undefined],
    [
      "allowlist mode, not allowlisted",
      [rule("fs.read", "secrets/**", "ask")],
      "allowlist",
      false,
      "secrets/**",
    ],
    ["no rule: a read-only tool is not asked by default", [], "ask", false, undefined],
    [
      "an allow rule lifts it",
      [rule("fs.read", "secrets/**", "ask"), rule("grep", "secrets/k", "allow")],
      "ask",
      false,
      undefined,
    ],
    ["a deny is no ask", [rule("fs.read", "secrets/**", "deny")], "ask", false, undefined],
  ])("asks before grep reads: %s", (_name, rules, mode, allowlisted, pattern) => {
    expect(rulesOf(rules, mode, allowlisted).asks("grep", file("secrets/k"))).toBe(pattern);
  });
});
