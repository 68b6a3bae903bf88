import { describe, expect, it } from "vitest";
import { readSedScript } from "./sed-script.ts";

describe("readSedScript", () => {
  it.each([
    ["s/a/b/g", [], false],
    ["1,10p", [], false],
    ["/start/,/end/d", [], false],
    ["w out", ["out"], false],
    ["1w out", ["out"], false],
    ["$w out", ["out"], false],
    ["/x/,+2 w out", ["out"], false],
    ["1~2W out", ["out"], false],
    ["s/a/b/w out", ["out"], false],
    ["s|a|b|gpw out", ["out"], false],
    ["s/[/]/X/w out", ["out"], false],
    ["s/a\\/b/c/w out", ["out"], false],
    ["y/ab/cd/;w out", ["out"], false],
    ["$!{p};w out", ["out"], false],
    ["\\,a,w out", ["out"], false],
    ["0,/a/w out", ["out"], false],
    ["w /dev/stdout", [], false],
    ["e touch x", [], true],
    ["1e", [], true],
    ["s/.*/id/e", [], true],
    ["s/a/b/ge", [], true],
    ["a hello; w not-a-file", [], false],
    ["r in; w not-a-file", [], false],
    [":a;N;ba", [], false],
    ["#n\np", [], false],
    ["a\\\nline w x", [], false],
  ] as const)("%j writes %j and executes: %s", (script, writes, executes) => {
    const result = readSedScript(script);
    expect(result.error).toBeUndefined();
    expect(result.writes).toEqual(writes);
    expect(result.executes).toBe(executes);
  });

  it.each(["s/a/b", "s/a/b/z", "k", "1,", "w"])("reports %j as unreadable", (script) => {
    expect(readSedScript(script).error).toBeDefined();
  });
});
