import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveRootArgument } from "./root-argument.ts";

describe("resolveRootArgument", () => {
  const cwd = path.resolve("/home/user/project");
  it.each([
    { argv: [], expected: cwd },
    { argv: ["--root", "/srv/work"], expected: path.resolve("/srv/work") },
    { argv: ["--root=/srv/work"], expected: path.resolve("/srv/work") },
    { argv: ["--root", "sub/dir"], expected: path.join(cwd, "sub/dir") },
    {
      argv: [".", "--no-sandbox", "--root", "../other", "--enable-logging"],
      expected: path.resolve(cwd, "../other"),
    },
    { argv: ["--root="], expected: cwd },
  ])("opens $expected for $argv", ({ argv, expected }) => {
    expect(resolveRootArgument(argv, cwd)).toBe(expected);
  });
});
