import { describe, expect, it } from "vitest";
import { ManifestError } from "../errors/manifest-error.ts";
import { assertPatternsCompile, PathScope, type PathVariables } from "./path-scope.ts";

const vars: PathVariables = {
  workspace: ["/home/u/proj"],
  "ad-hoc": [],
  "user-data": ["/home/u/.lathe"],
  session: ["/home/u/.lathe/sessions/s1"],
};

describe("PathScope", () => {
  const table: Array<[string[], string, boolean]> = [
    [["{workspace}/**"], "/home/u/proj", true],
    [["{workspace}/**"], "/home/u/proj/a/b.ts", true],
    [["{workspace}/**"], "/home/u/proj-evil/a", false],
    [["{workspace}/**"], "/home/u/.lathe/settings.json", false],
    [["src/**/*.ts"], "/home/u/proj/src/a/b.ts", true],
    [["src/**/*.ts"], "/home/u/proj/src/a/b.js", false],
    [["src/**/*.ts"], "/home/u/proj/lib/b.ts", false],
    [["{workspace}/**/*.{ts,tsx}"], "/home/u/proj/x.tsx", true],
    [["{workspace}/**"], "/home/u/proj/.env", true],
    [["{session}/**"], "/home/u/.lathe/sessions/s1/sidecars/x.txt", true],
    [["{session}/**"], "/home/u/.lathe/sessions/s2/x.txt", false],
    [["/tmp/shared/**"], "/tmp/shared/a", true],
    [["/tmp/shared/**"], "/tmp/sharedx/a", false],
    [["/tmp/*.log"], "/tmp/a.log", true],
    [["/tmp/*.log"], "/tmp/d/a.log", false],
    [["{ad-hoc}/**"], "/home/u/proj/a", false],
    [[], "/home/u/proj/a", false],
  ];
  it.each(table)("%j allows %s: %s", (patterns, candidate, expected) => {
    expect(PathScope.compile(patterns, vars).allows(candidate)).toBe(expected);
  });

  it.each([
    [["{workspace}/**"], "/home/u/proj", true],
    [["{workspace}/**"], "/home/u/proj/src", true],
    [["{workspace}/**"], "/home/u", false],
    [["{workspace}/**"], "/home/u/proj-evil", false],
    [["src/**/*.ts"], "/home/u/proj/src", false],
    // Only a pattern covering its whole base counts; the others are judged path by path.
    [["src/**"], "/home/u/proj/src/lib", false],
    [["/tmp/shared/**"], "/tmp/shared/a", true],
    [["src/**"], "/home/u/proj", false],
    [[], "/home/u/proj", false],
  ] as Array<[string[], string, boolean]>)("%j allows everything below %s: %s", (patterns, dir, expected) => {
    const scope = PathScope.compile(patterns, vars);
    expect(scope.allowsAllBelow(dir)).toBe(expected);
    // Never more than the path-by-path answer.
    if (expected) expect(scope.allows(`${dir}/x/y.bin`)).toBe(true);
  });

  it("fails closed when a variable expands to nothing", () => {
    const scope = PathScope.compile(["{ad-hoc}/**"], vars);
    expect(scope.isEmpty).toBe(true);
    expect(scope.allows("/")).toBe(false);
  });

  it.each([
    ["{worksapce}/**", /Unknown path variable \{worksapce\}/],
    ["src/{workspace}/x", /must start the pattern/],
    ["{workspace}/../etc/**", /may not contain "\.\."/],
  ])("refuses %s when the manifest is compiled", (pattern, message) => {
    expect(() => assertPatternsCompile([pattern])).toThrow(ManifestError);
    expect(() => assertPatternsCompile([pattern])).toThrow(message);
  });
});
