import { describe, expect, it } from "vitest";
import { escapeBidiControls, hasBidiControl } from "./bidi-controls.ts";

describe("escapeBidiControls", () => {
  // Every character that reorders the text around it, alone and inside a name.
  it.each([
    "\u061C",
    "\u200E",
    "\u200F",
    "\u202A",
    "\u202B",
    "\u202C",
    "\u202D",
    "\u202E",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
  ])("writes U+%s as its escape", (c) => {
    const escape = `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}`;
    expect(hasBidiControl(`evil${c}txt.exe`)).toBe(true);
    expect(escapeBidiControls(`evil${c}txt.exe`)).toBe(`evil${escape}txt.exe`);
    // Inside a JSON string the escape still stands for the character.
    expect(JSON.parse(escapeBidiControls(JSON.stringify(`a${c}b`)))).toBe(`a${c}b`);
  });

  it.each([
    ["plain.txt"],
    ["שלום עולם.txt"], // right-to-left letters are text, not controls
    ["مرحبا.md"],
    ["zero\u200Bwidth space and joiner\u200D"], // invisible, but they reorder nothing
    ["é 🙂"],
  ])("leaves %j as it is", (text) => {
    expect(hasBidiControl(text)).toBe(false);
    expect(escapeBidiControls(text)).toBe(text);
  });

  it("escapes every one of several, wherever they are", () => {
    expect(escapeBidiControls("\u202Ea\u2066b\u2069\u202E")).toBe("\\u202ea\\u2066b\\u2069\\u202e");
  });
});
