import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ScopedRule } from "./permission-rule.ts";
import { Ruleset, type Subject } from "./ruleset.ts";

// Counts how many patterns a ruleset compiles and how many it tries on a value: with the rules
// a long-time user collects (thousands), a search meeting thousands of files must not try every
// rule on every file (8,000 rules took seconds per `lathe call` and minutes per grep).
const counts = vi.hoisted(() => ({ compiled: 0, tried: 0 }));
vi.mock(import("./rule-pattern.ts"), async (original) => {
  const actual = await original();
  return {
    ...actual,
    compilePattern: (...args: Parameters<typeof actual.compilePattern>) => {
      counts.compiled++;
      const pattern = actual.compilePattern(...args);
      return {
        ...pattern,
        test: (value: string) => {
          counts.tried++;
          return pattern.test(value);
        },
      };
    },
  };
});

const RULES = 8_000;

/** The mix of rules a person collects by answering "always" for years, and a few written by hand. */
function manyRules(): ScopedRule[] {
  const rules: ScopedRule[] = [];
  for (let i = 0; i < RULES; i++) {
    const [permission, pattern, action] = (
      [
        ["read", `src/module${i}/**`, "allow"],
        ["fs.read", `*.secret${i}`, "deny"],
        ["bash", `npm run task${i}:*`, "allow"],
        ["*", `build${i}/out.js`, "ask"],
        ["web_fetch", `api${i}.example.com`, "allow"],
        ["fs.write", `/var/data${i}/*.db`, "deny"],
      ] as const
    )[i % 6] as readonly [string, string, ScopedRule["action"]];
    rules.push({ permission, pattern, action, scope: "user", source: "settings.json" });
  }
  rules.push({
    permission: "*",
    pattern: "**/*.key",
    action: "deny",
    scope: "user",
    source: "settings.json",
  });
  return rules;
}

const reading = (p: string): Subject => ({
  permissions: ["grep", "fs.read"],
  kind: "path",
  values: [p, `/work/${p}`],
  label: `reading "${p}"`,
});

describe("a ruleset with thousands of rules", () => {
  beforeEach(() => {
    counts.compiled = 0;
    counts.tried = 0;
  });

  it("tries only the rules filed under a file's keys, and compiles each rule once", () => {
    const ruleset = new Ruleset(manyRules());
    const files = Array.from({ length: 2_000 }, (_, i) => `src/module${(i * 6) % RULES}/f${i}.ts`);
    files.push("src/module6/a.secret1", "certs/server.key", "build3/out.js");
    const verdicts = files.map((f) => ruleset.evaluate(reading(f)));

    expect(verdicts.slice(0, 2_000).every((v) => v.action === "ask" && v.rule === undefined)).toBe(true);
    expect(verdicts.slice(2_000).map((v) => [v.action, v.rule?.pattern])).toEqual([
      ["deny", "*.secret1"],
      ["deny", "**/*.key"],
      ["ask", "build3/out.js"],
    ]);
    // Each rule of the permissions a read may be judged by (grep, fs.read, *), compiled once for paths.
    expect(counts.compiled).toBeLessThanOrEqual(RULES);
    // A handful of candidates per file (the keyless `**/*.key`, a folder rule), not 8,000.
    expect(counts.tried).toBeLessThan(files.length * 2 * 4);
  });

  it("finds commands and hosts by their words and domains", () => {
    const ruleset = new Ruleset(manyRules());
    const command = ruleset.evaluate({
      permissions: ["bash", "shell.run"],
      kind: "command",
      values: ["npm run task2 --watch"],
      label: "npm",
    });
    const host = ruleset.evaluate({
      permissions: ["web_fetch", "net.fetch"],
      kind: "host",
      values: ["API4.example.com"],
      label: "api",
    });
    expect([command.action, command.rule?.pattern]).toEqual(["allow", "npm run task2:*"]);
    expect([host.action, host.rule?.pattern]).toEqual(["allow", "api4.example.com"]);
    expect(counts.tried).toBeLessThan(10);
  });
});
