import { describe, expect, it } from "vitest";
import { DEFAULT_JSON_LAYOUT, formatJson, jsonLayoutOf } from "./json-layout.ts";

describe("jsonLayoutOf", () => {
  it.each([
    [
      "tabs, CRLF",
      '{\r\n\t"a": {\r\n\t\t"b": 1\r\n\t}\r\n}\r\n',
      { indent: "\t", eol: "\r\n", finalNewline: true, byteOrderMark: false },
    ],
    [
      "four spaces, no final newline",
      '{\n    "a": 1\n}',
      { indent: "    ", eol: "\n", finalNewline: false, byteOrderMark: false },
    ],
    [
      "a byte-order mark first",
      '\uFEFF{\n   "a": 1\n}\n',
      { indent: "   ", eol: "\n", finalNewline: true, byteOrderMark: true },
    ],
    ["one line: no indentation", '{"a":1}\n', { ...DEFAULT_JSON_LAYOUT, indent: "" }],
    ["one line, CRLF after it", '{"a":1}\r\n', { ...DEFAULT_JSON_LAYOUT, indent: "", eol: "\r\n" }],
    ["one line without a line break", '{"a":1}', { ...DEFAULT_JSON_LAYOUT, indent: "", finalNewline: false }],
    ["an empty object: the default indentation", "{}\n", { ...DEFAULT_JSON_LAYOUT }],
    [
      "an empty object with spaces, after a mark",
      "\uFEFF{ }",
      { ...DEFAULT_JSON_LAYOUT, finalNewline: false, byteOrderMark: true },
    ],
  ])("reads %s", (_name, text, layout) => {
    expect(jsonLayoutOf(text)).toEqual(layout);
  });

  it("writes a value back in the layout it read, so an unchanged value is the same text", () => {
    const text = '{\r\n\t"a": [\r\n\t\t1,\r\n\t\t2\r\n\t],\r\n\t"b": "x"\r\n}\r\n';
    expect(formatJson(JSON.parse(text), jsonLayoutOf(text))).toBe(text);
  });

  it.each([
    ["a byte-order mark and CRLF", '\uFEFF{\r\n  "a": 1\r\n}\r\n'],
    ["one line", '{"a":[1,{"b":"c"}]}\n'],
  ])("writes %s back as it read it", (_name, text) => {
    expect(formatJson(JSON.parse(text.replace("\uFEFF", "")), jsonLayoutOf(text))).toBe(text);
  });
});
