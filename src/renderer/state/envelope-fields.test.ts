import { describe, expect, it } from "vitest";
import { envelopeFields } from "./envelope-fields.ts";

describe("envelopeFields", () => {
  it("shows a command's output as text with its newlines, and its exit code as a value", () => {
    expect(envelopeFields({ output: "one\ntwo\n", exit_code: 0 })).toEqual([
      { kind: "text", name: "output", text: "one\ntwo\n" },
      { kind: "value", name: "exit_code", text: "0" },
    ]);
  });

  it.each([
    ["a short string", { path: "README.md" }, { kind: "value", name: "path", text: "README.md" }],
    ["a long string", { content: "x".repeat(200) }, { kind: "text", name: "content", text: "x".repeat(200) }],
    ["a list of strings", { files: ["a.ts", "b.ts"] }, { kind: "text", name: "files", text: "a.ts\nb.ts" }],
    ["an empty list", { files: [] }, { kind: "value", name: "files", text: "[]" }],
    ["a boolean", { truncated: true }, { kind: "value", name: "truncated", text: "true" }],
    ["null", { next: null }, { kind: "value", name: "next", text: "null" }],
    ["a small object", { range: { from: 1 } }, { kind: "text", name: "range", text: '{\n  "from": 1\n}' }],
    [
      "a list of objects",
      { matches: [{ line: 3 }] },
      { kind: "text", name: "matches", text: '[\n  {\n    "line": 3\n  }\n]' },
    ],
  ])("shows %s readably", (_, data, expected) => {
    expect(envelopeFields(data)).toEqual([expected]);
  });

  it.each([
    ["a string", "all of it\n", { kind: "text", name: "data", text: "all of it\n" }],
    ["a number", 42, { kind: "value", name: "data", text: "42" }],
    ["a list", ["a", "b"], { kind: "text", name: "data", text: "a\nb" }],
    ["nothing", undefined, { kind: "value", name: "data", text: "undefined" }],
  ])("shows data that is %s as one field", (_, data, expected) => {
    expect(envelopeFields(data)).toEqual([expected]);
  });
});
