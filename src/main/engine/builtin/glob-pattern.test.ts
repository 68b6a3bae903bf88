import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { pathMatcher } from "./glob-pattern.ts";

const PATHS = [
  "a.ts",
  ".ts",
  "..ts",
  "a/.ts",
  "src/index.ts",
  "src/index.d.ts",
  "src/index.tsx",
  "src/ts",
  "src/x.ts/inner.js",
  ".hidden/deep/file.ts",
  "a/b/c/d/e.js",
  "README.md",
  "docs/readme.MD",
  "x",
  "dir.x/y",
];

describe("pathMatcher", () => {
  it.each([
    "**",
    "**/*",
    "**/*.ts",
    "**/*.d.ts",
    "**/*x",
    "**/*.md",
    "**/*.{ts,js}",
    "**/*.[tj]s",
    "**/*/*.ts",
    "*.ts",
    "src/**",
    "**/.*",
    "**/*\\*",
  ])("answers %s as picomatch does, for every path a walk yields", (glob) => {
    const expected = picomatch(glob, { dot: true });
    const matches = pathMatcher(glob);
    for (const p of PATHS) expect(matches(p), p).toBe(expected(p));
  });
});
