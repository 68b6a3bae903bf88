import { describe, expect, it } from "vitest";
import { givesDashAsFile, readsDashAsFile } from "./dash-operand.ts";
import { analyzeShell } from "./shell-analysis.ts";

// `-` is standard input to most readers and a file name to the listers: only the latter are
// checked as the path ./- (and ask when there is none yet, with the sandbox off).
describe("a - operand", () => {
  it.each([
    ["ls", true],
    ["du", true],
    ["find", true],
    ["tree", true],
    ["readlink", true],
    ["cat", false],
    ["grep", false],
    ["rg", false],
    ["tar", false],
    ["sed", false],
    ["echo", false],
    ["cd", false],
  ])("%s reads it as a file: %s", (program, asFile) => {
    expect(readsDashAsFile(program)).toBe(asFile);
  });

  it.each([
    ["ls -", true],
    ["ls -- -", true],
    ["ls -l", false],
    ["ls '-'", true],
    ["echo a-b | rg -e - -", false],
    ["cat - README.md", false],
  ])("%s gives - as a file: %s", (source, gives) => {
    const command = analyzeShell(source).commands.at(-1);
    expect(command).toBeDefined();
    expect(givesDashAsFile(command?.name ?? "", command as NonNullable<typeof command>)).toBe(gives);
  });
});
