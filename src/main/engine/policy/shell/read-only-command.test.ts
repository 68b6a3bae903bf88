import { describe, expect, it } from "vitest";
import { provablyReadOnly } from "./read-only-command.ts";
import { analyzeShell } from "./shell-analysis.ts";

const verdict = (command: string) => provablyReadOnly(analyzeShell(command));

describe("provably read-only commands (what may run without the OS sandbox and a person)", () => {
  it.each([
    "ls -la",
    "cat README.md",
    "head -n 5 a.txt",
    "wc -l a b",
    "pwd",
    "echo hello",
    "grep -rn TODO src",
  ])("%s is provably read-only", (command) => {
    expect(verdict(command)).toBeUndefined();
  });

  it.each([
    ["touch x", /"touch" is not a plain reader/],
    ["echo hi > out.txt", /redirects/],
    ["cat a 2>/dev/null", /redirects/],
    ["echo $(touch x)", /"touch" is not a plain reader|only known when the shell runs/],
    [
      "x='a[$(touch OUT)]'; echo $((x))",
      /only known when the shell runs|cannot be seen through|not a plain reader/,
    ],
    ["echo $HOME", /only known when the shell runs/],
    ["env ls", /runs through env|not a plain reader/],
    ["ls; rm -rf x", /"rm" is not a plain reader/],
    ["x=1", /runs no command/],
    ["/bin/cat a", /not a plain reader/],
  ])("%s is not", (command, reason) => {
    expect(verdict(command)).toMatch(reason);
  });
});
