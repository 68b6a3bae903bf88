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

  // Characters that reorder the text around them: shown escaped, in quotes, so the name reads in
  // the order its characters really have; the quoted form is still the JSON string of the name.
  it.each([
    ["evil\u202Etxt.exe", '"evil\\u202etxt.exe"'],
    ["\u202Aembed", '"\\u202aembed"'],
    ["a\u202Bb\u202Cc\u202Dd", '"a\\u202bb\\u202cc\\u202dd"'],
    ["iso\u2066late\u2067x\u2068y\u2069", '"iso\\u2066late\\u2067x\\u2068y\\u2069"'],
    ["marks\u200E\u200F\u061C.txt", '"marks\\u200e\\u200f\\u061c.txt"'],
    ["both\n\u202E.txt", '"both\\n\\u202e.txt"'],
    // Right-to-left letters without a control character are a name like any other.
    ["שלום.txt", "שלום.txt"],
  ])("shows %j with its reordering characters escaped: %s", (input, shown) => {
    expect(shownPath(input)).toBe(shown);
    expect(shownPath(input)).not.toMatch(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\p{Cc}]/u);
    if (shown.startsWith('"')) expect(JSON.parse(shownPath(input))).toBe(input);
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

describe("shownText and reordering characters", () => {
  it.each([
    ["renamed to evil\u202Etxt.exe", "renamed to evil\\u202etxt.exe"],
    ["\u2067isolated\u2069 and \u200Fmarked", "\\u2067isolated\\u2069 and \\u200fmarked"],
    ["arabic mark \u061C here", "arabic mark \\u061c here"],
  ])("shows %j with no reordering character: %s", (input, shown) => {
    expect(shownText(input)).toBe(shown);
  });
});
