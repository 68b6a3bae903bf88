import { describe, expect, it } from "vitest";
import { shownPath, shownText } from "./shown-path.ts";

describe("shownPath", () => {
  it.each([
    ["src/a.ts", "src/a.ts"],
    ["dir with spaces/é.txt", "dir with spaces/é.txt"],
    ["a\nb.txt", '"a\\nb.txt"'],
    ["tab\there", '"tab\\there"'],
    ["\u001b[31mred", '"\\u001b[31mred"'],
    ["cr\rx", '"cr\\rx"'],
    // A name that starts with a quote is quoted too, so no quoted line is a name as written.
    ['"a\\nb.txt"', '"\\"a\\\\nb.txt\\""'],
  ])("shows %j as one line: %s", (input, shown) => {
    expect(shownPath(input)).toBe(shown);
    expect(shownPath(input)).not.toMatch(/\p{Cc}/u);
  });
});

describe("shownText", () => {
  it.each([
    ['denied: the command "ls"', 'denied: the command "ls"'],
    ["up\u001b[1A\u001b[2Kerased", "up\\u001b[1A\\u001b[2Kerased"],
    ["two\nlines\r", "two\\nlines\\r"],
    ["é 🙂 tab\tend", "é 🙂 tab\\tend"],
  ])("shows %j on one line with no control character: %s", (input, shown) => {
    expect(shownText(input)).toBe(shown);
    expect(shownText(input)).not.toMatch(/\p{Cc}/u);
  });
});
