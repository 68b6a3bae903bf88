import { describe, expect, it } from "vitest";
import { shownPath } from "./shown-path.ts";

describe("shownPath", () => {
  it.each([
    ["src/a.ts", "src/a.ts"],
    ["dir with spaces/é.txt", "dir with spaces/é.txt"],
    ["a\nb.txt", '"a\\nb.txt"'],
    ["tab\there", '"tab\\there"'],
    ["\u001b[31mred", '"\\u001b[31mred"'],
    ["cr\rx", '"cr\\rx"'],
  ])("shows %j as one line: %s", (input, shown) => {
    expect(shownPath(input)).toBe(shown);
    expect(shownPath(input)).not.toMatch(/\p{Cc}/u);
  });
});
