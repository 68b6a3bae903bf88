import { describe, expect, it } from "vitest";
import { isPlainLiteral, requiredLiteral } from "./required-literal.ts";

describe("requiredLiteral", () => {
  it.each([
    ["hello", "hello"],
    ["foo\\(bar", "foo(bar"],
    ["fetch[A-Z]\\w*Async\\(", "Async("],
    ["function\\s+load", "function"],
    ["colou?r", "colo"],
    ["ab*c", "a"],
    ["abc+d", "abc"],
    ["x{2}yz", "yz"],
    ["^import .* from", "import "],
    ["(optional)?required", "required"],
    ["a|b", undefined],
    ["(foo|bar)baz", "baz"],
    ["\\d+", undefined],
    ["[abc]", undefined],
    ["\\bword\\b", "word"],
    ["\\.env", ".env"],
    ["(?<=pre)post", "post"],
    ["trailing\\", undefined],
  ])("finds what every match of /%s/ contains: %j", (source, expected) => {
    expect(requiredLiteral(source)).toBe(expected);
  });

  // The literal is only an optimisation; it must never reject a string the regex matches.
  it.each([
    ["colou?r", ["color", "colour"]],
    ["ab*c", ["ac", "abbbc"]],
    ["x{0,3}yz", ["yz", "xxxyz"]],
    ["go+gle", ["gogle", "gooogle"]],
    ["(a(b)?c)d", ["acd", "abcd"]],
    ["[)]ab", [")ab"]],
    ["\\[x]y", ["[x]y"]],
  ])("never excludes a match of /%s/", (source, samples) => {
    const literal = requiredLiteral(source);
    for (const sample of samples) {
      expect(new RegExp(source).test(sample)).toBe(true);
      if (literal !== undefined) expect(sample).toContain(literal);
    }
  });

  it("tells plain strings from patterns", () => {
    expect(isPlainLiteral("needle_7")).toBe(true);
    expect(isPlainLiteral("a.b")).toBe(false);
    expect(isPlainLiteral("f(x)")).toBe(false);
  });
});
