import { describe, expect, it } from "vitest";
import type { SimpleCommand } from "./shell/shell-analysis.ts";
import { matchesShellRequirement } from "./shell-requirements.ts";

function command(name: string, ...args: string[]): SimpleCommand {
  return {
    name,
    args: args.map((text) => ({ text, literal: true })),
    source: [name, ...args].join(" "),
    via: [],
  };
}

describe("matchesShellRequirement: a prefix means below it", () => {
  const docs = [{ cmd: "cat", args: [{ prefix: "docs/" }] }];
  it.each([
    ["docs/readme.md", true],
    ["docs/a/b.md", true],
    ["docs/..hidden", true],
    ["docs/../../etc/passwd", false],
    ["docs/a/../../x", false],
    ["docs/..", false],
    ["docs\\..\\x", false],
    ["other/readme.md", false],
  ])("cat %s → %s", (arg, expected) => {
    expect(matchesShellRequirement(command("cat", arg), docs)).toBe(expected);
  });

  it("an option prefix cannot be climbed either", () => {
    const req = [{ cmd: "tool", args: [{ prefix: "--file=" }] }];
    expect(matchesShellRequirement(command("tool", "--file=notes.txt"), req)).toBe(true);
    expect(matchesShellRequirement(command("tool", "--file=../notes.txt"), req)).toBe(false);
  });
});
