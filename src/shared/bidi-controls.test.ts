import { describe, expect, it } from "vitest";
import {
  escapeBidiControls,
  escapeBidiControlsDeep,
  hasBidiControl,
  hasBidiControlDeep,
} from "./bidi-controls.ts";

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

describe("escapeBidiControlsDeep / hasBidiControlDeep: a whole request or review as a dialog shows it", () => {
  it("escapes every string at any depth, keys too, and leaves the rest", () => {
    const request = {
      toolId: "bash",
      args: { command: "echo hi #\u202Efdp.exe", n: 3, flags: [true, null, "a\u2066b"] },
      reasons: ["asks: rm -rf ~ \u202E"],
      ["k\u202Eey"]: "v",
    };
    expect(hasBidiControlDeep(request)).toBe(true);
    const shown = escapeBidiControlsDeep(request);
    expect(shown.args.command).toBe("echo hi #\\u202efdp.exe");
    expect(shown.args.n).toBe(3);
    expect(shown.args.flags).toEqual([true, null, "a\\u2066b"]);
    expect(shown.reasons).toEqual(["asks: rm -rf ~ \\u202e"]);
    expect(Object.keys(shown)).toContain("k\\u202eey");
    expect(hasBidiControlDeep(shown)).toBe(false);
    expect(request.args.command).toContain("\u202E"); // the original is untouched
  });

  it("keeps a __proto__ key a key", () => {
    const value = JSON.parse('{"__proto__": {"polluted": "\u202E"}}') as Record<string, unknown>;
    const shown = escapeBidiControlsDeep(value);
    expect(Object.keys(shown)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("finds nothing in text without those characters", () => {
    expect(hasBidiControlDeep({ a: ["שלום", { b: "x" }], c: 1 })).toBe(false);
  });
});
