import os from "node:os";
import { describe, expect, it } from "vitest";
import type { Action, ScopedRule } from "./permission-rule.ts";
import { Ruleset, type Subject } from "./ruleset.ts";

function rule(
  permission: string,
  pattern: string,
  action: Action,
  scope: ScopedRule["scope"] = "user",
): ScopedRule {
  return { permission, pattern, action, scope, source: `${scope} settings` };
}

const write = (p: string): Subject => ({
  permissions: ["write", "fs.write"],
  kind: "path",
  values: [p, `/w/${p}`],
  label: `writing "${p}"`,
});
const read = (p: string): Subject => ({
  permissions: ["read", "fs.read"],
  kind: "path",
  values: [p, `/w/${p}`],
  label: `reading "${p}"`,
});
const cmd = (c: string): Subject => ({
  permissions: ["bash", "shell.run"],
  kind: "command",
  values: [c],
  label: c,
});
const host = (h: string): Subject => ({
  permissions: ["web_fetch", "net.fetch"],
  kind: "host",
  values: [h],
  label: h,
});

describe("Ruleset", () => {
  const table: Array<[string, ScopedRule[], Subject, Action]> = [
    ["no rule means ask", [], write("a.ts"), "ask"],
    ["a tool rule with a glob", [rule("write", "src/**", "allow")], write("src/a/b.ts"), "allow"],
    ["a glob that does not match", [rule("write", "src/**", "allow")], write("lib/a.ts"), "ask"],
    ["a capability rule", [rule("fs.write", "**/.env", "deny")], write("config/.env"), "deny"],
    ["an absolute path rule", [rule("fs.write", "/w/secret/**", "deny")], write("secret/k"), "deny"],
    [
      "a folder literal covers what is below",
      [rule("write", "docs", "allow")],
      write("docs/x/y.md"),
      "allow",
    ],
    [
      "a folder literal is not a name prefix",
      [rule("write", "docs", "allow")],
      write("docs-old/y.md"),
      "ask",
    ],
    [
      "the more specific pattern wins over a broad deny",
      [rule("fs.write", "**", "deny"), rule("write", "src/**", "allow")],
      write("src/a.ts"),
      "allow",
    ],
    [
      "the more specific deny wins over a broad allow",
      [rule("bash", "*", "allow"), rule("*", "rm -rf *", "deny")],
      cmd("rm -rf build"),
      "deny",
    ],
    [
      "a tool id beats a capability at equal patterns",
      [rule("shell.run", "git *", "deny"), rule("bash", "git *", "allow")],
      cmd("git log"),
      "allow",
    ],
    [
      "the stricter action wins a full tie",
      [rule("bash", "git *", "allow"), rule("bash", "git *", "ask")],
      cmd("git log"),
      "ask",
    ],
    [
      "prefix syntax matches at a word boundary",
      [rule("bash", "npm run test:*", "allow")],
      cmd("npm run test -- --watch"),
      "allow",
    ],
    [
      "prefix syntax does not match a longer word",
      [rule("bash", "npm run test:*", "allow")],
      cmd("npm run testing"),
      "ask",
    ],
    ["an exact command", [rule("bash", "git status", "allow")], cmd("git status"), "allow"],
    [
      "an exact command does not cover more",
      [rule("bash", "git status", "allow")],
      cmd("git status; rm x"),
      "ask",
    ],
    ["host globs", [rule("net.fetch", "*.example.org", "allow")], host("api.example.org"), "allow"],
    ["hosts compare without case", [rule("net.fetch", "Example.org", "allow")], host("example.org"), "allow"],
    ["star permission", [rule("*", "*", "deny")], host("x.org"), "deny"],
    // Which rule wins when an allow and a deny both match: the most specific, whichever its
    // action (the spec: "the most specific matching rule wins"); the stricter only in a tie.
    [
      "an exact deny inside an allowed folder refuses that file",
      [rule("fs.read", "src/**", "allow"), rule("fs.read", "src/secret.txt", "deny")],
      read("src/secret.txt"),
      "deny",
    ],
    [
      "an allowed folder still allows its other files",
      [rule("fs.read", "src/**", "allow"), rule("fs.read", "src/secret.txt", "deny")],
      read("src/a.ts"),
      "allow",
    ],
    [
      "one allowed file under a deny of everything",
      [rule("fs.read", "**", "deny"), rule("fs.read", "docs/guide.md", "allow")],
      read("docs/guide.md"),
      "allow",
    ],
    [
      "the rest stays denied under a deny of everything",
      [rule("fs.read", "**", "deny"), rule("fs.read", "docs/guide.md", "allow")],
      read("docs/other.md"),
      "deny",
    ],
    [
      "a name denied at any depth beats an allowed folder glob with fewer letters",
      [rule("fs.read", "src/**", "allow"), rule("fs.read", ".env", "deny")],
      read("src/.env"),
      "deny",
    ],
    [
      "the same pattern in the user's settings (deny) and the project's (allow): deny",
      [rule("fs.read", "config/**", "deny", "user"), rule("fs.read", "config/**", "allow", "project")],
      read("config/app.json"),
      "deny",
    ],
    [
      "the same pattern in the project's settings (deny) and the user's (allow): deny",
      [rule("fs.read", "config/**", "allow", "user"), rule("fs.read", "config/**", "deny", "project")],
      read("config/app.json"),
      "deny",
    ],
    [
      "a more specific project allow wins over a broader user deny",
      [rule("fs.read", "config/**", "deny", "user"), rule("fs.read", "config/app.json", "allow", "project")],
      read("config/app.json"),
      "allow",
    ],
    [
      "a session allow does not outvote a user deny of the same pattern",
      [rule("fs.read", "secrets/**", "deny", "user"), rule("fs.read", "secrets/**", "allow", "session")],
      read("secrets/k"),
      "deny",
    ],
    [
      "a manifest deny is never outvoted, however specific the allow",
      [
        rule("bash", "curl *", "deny", "manifest"),
        rule("bash", "curl https://ok.example/x", "allow", "session"),
      ],
      cmd("curl https://ok.example/x"),
      "deny",
    ],
  ];

  it.each(table)("%s", (_name, rules, subject, expected) => {
    expect(new Ruleset(rules).evaluate(subject).action).toBe(expected);
  });

  it("reports the deciding rule", () => {
    const deciding = rule("fs.write", "**/.env", "deny", "project");
    const verdict = new Ruleset([rule("write", "**", "allow"), deciding]).evaluate(write(".env"));
    expect(verdict.rule).toBe(deciding);
  });

  it("takes the most severe verdict over several subjects", () => {
    const rs = new Ruleset([rule("bash", "git *", "allow"), rule("bash", "curl *", "deny")]);
    expect(rs.evaluateAll([cmd("git log"), cmd("curl x")], cmd("")).action).toBe("deny");
    expect(rs.evaluateAll([cmd("git log"), cmd("ls")], cmd("")).action).toBe("ask");
    expect(rs.evaluateAll([cmd("git log")], cmd("")).action).toBe("allow");
  });
});

describe("Ruleset with a ceiling (a task's session under the run that started it)", () => {
  const allowBash = rule("bash", "*", "allow", "manifest");
  const askBash = rule("bash", "*", "ask", "manifest");
  const denyRm = rule("bash", "rm *", "deny", "user");
  const table: Array<[string, ScopedRule[], ScopedRule[], Action, boolean]> = [
    [
      "the child's allow, nothing above: the parent would ask, so the child asks",
      [allowBash],
      [],
      "ask",
      true,
    ],
    ["the child's allow under the parent's ask", [allowBash], [askBash], "ask", true],
    ["both allow", [allowBash], [allowBash], "allow", false],
    [
      "the parent allows, the child asks: the child's stricter verdict holds",
      [askBash],
      [allowBash],
      "ask",
      false,
    ],
    ["a deny above wins over the child's allow", [allowBash], [denyRm], "deny", true],
  ];
  it.each(table)("%s", (_label, own, above, action, inherited) => {
    const verdict = new Ruleset(own, new Ruleset(above)).evaluate(cmd("rm -rf build"));
    expect(verdict.action).toBe(action);
    expect(verdict.inherited === true).toBe(inherited);
  });

  it("is capped by every run above, not only the nearest", () => {
    const top = new Ruleset([]);
    const middle = new Ruleset([allowBash], top);
    expect(new Ruleset([allowBash], middle).evaluate(cmd("make")).action).toBe("ask");
    expect(
      new Ruleset([allowBash], new Ruleset([allowBash], new Ruleset([allowBash]))).evaluate(cmd("make"))
        .action,
    ).toBe("allow");
  });

  it("counts an allow rule only when every run above has one too (what lets a command skip the watchdog)", () => {
    const isBash = (r: ScopedRule): boolean => r.permission === "bash";
    expect(new Ruleset([allowBash]).hasAllow(isBash)).toBe(true);
    expect(new Ruleset([allowBash], new Ruleset([])).hasAllow(isBash)).toBe(false);
    expect(new Ruleset([allowBash], new Ruleset([allowBash])).hasAllow(isBash)).toBe(true);
  });

  it("lists the rules above among its own, so a deny up there is never skipped", () => {
    const child = new Ruleset([allowBash], new Ruleset([denyRm]));
    expect(child.rules).toEqual([allowBash, denyRm]);
    expect(child.matching(cmd("rm -rf x"))).toEqual([allowBash, denyRm]);
  });
});

describe("a path rule spelled as people spell paths", () => {
  // The values are as the policy gives them: relative to the workspace (/w), and absolute.
  const read = (p: string, absolute = `/w/${p}`): Subject => ({
    permissions: ["read", "fs.read"],
    kind: "path",
    values: [p, absolute],
    label: `reading "${p}"`,
  });
  const home = os.homedir();
  it.each<[string, Subject]>([
    ["./secrets", read("secrets/key.txt")],
    ["./secrets/", read("secrets/key.txt")],
    ["././secrets/**", read("secrets/key.txt")],
    ["secrets//key.txt", read("secrets/key.txt")],
    ["docs/../secrets/key.txt", read("secrets/key.txt")],
    ["secrets/./key.txt", read("secrets/key.txt")],
    ["secrets/**/", read("secrets/a/key.txt")],
    ["/w//secrets/**", read("secrets/key.txt")],
    ["~/notes", read(`${home}/notes/a.md`, `${home}/notes/a.md`)],
    ["~/notes/**", read(`${home}/notes/a.md`, `${home}/notes/a.md`)],
    ["~", read(`${home}/a.md`, `${home}/a.md`)],
    [".", read("a/b.md")],
    ["./", read("a/b.md")],
  ])("a deny of %s denies what it names", (pattern, subject) => {
    expect(new Ruleset([rule("read", pattern, "deny")]).evaluate(subject).action).toBe("deny");
  });

  it.each<[string, Subject]>([
    ["./secrets", read("secrets-old/key.txt")],
    ["docs/../secrets/**", read("docs/secrets/key.txt")],
    ["~/notes", read("notes/a.md")],
    [".", read("/etc/hosts", "/etc/hosts")],
  ])("a deny of %s denies nothing else", (pattern, subject) => {
    expect(new Ruleset([rule("read", pattern, "deny")]).evaluate(subject).action).toBe("ask");
  });
});
