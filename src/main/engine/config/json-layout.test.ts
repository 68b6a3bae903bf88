import { describe, expect, it } from "vitest";
import { DEFAULT_JSON_LAYOUT, formatJson, jsonLayoutOf } from "./json-layout.ts";

describe("jsonLayoutOf", () => {
  it.each([
    [
      "tabs, CRLF",
      '{\r\n\t"a": {\r\n\t\t"b": 1\r\n\t}\r\n}\r\n',
      { indent: "\t", eol: "\r\n", finalNewline: true },
    ],
    ["four spaces, no final newline", '{\n    "a": 1\n}', { indent: "    ", eol: "\n", finalNewline: false }],
    ["a byte-order mark first", '\uFEFF{\n   "a": 1\n}\n', { indent: "   ", eol: "\n", finalNewline: true }],
    ["one line: the default indentation", '{"a":1}\n', { ...DEFAULT_JSON_LAYOUT }],
    ["one line without a line break", '{"a":1}', { ...DEFAULT_JSON_LAYOUT, finalNewline: false }],
  ])("reads %s", (_name, text, layout) => {
    expect(jsonLayoutOf(text)).toEqual(layout);
  });

  it("writes a value back in the layout it read, so an unchanged value is the same text", () => {
    const text = '{\r\n\t"a": [\r\n\t\t1,\r\n\t\t2\r\n\t],\r\n\t"b": "x"\r\n}\r\n';
    expect(formatJson(JSON.parse(text), jsonLayoutOf(text))).toBe(text);
  });
});
