import { describe, expect, it } from "vitest";
import { parseBatchLine } from "./call-batch.ts";

describe("a line of lathe batch", () => {
  it.each([
    ["a tool and its arguments", 'read {"path":"a.txt"}', { toolId: "read", args: '{"path":"a.txt"}' }],
    ["a tool alone: no arguments", "glob", { toolId: "glob", args: "{}" }],
    [
      "spaces around and between",
      '  read \t {"path":"a b.txt"}  ',
      { toolId: "read", args: '{"path":"a b.txt"}' },
    ],
    ["a Windows line end", 'read {"path":"a.txt"}\r', { toolId: "read", args: '{"path":"a.txt"}' }],
    [
      "arguments that are not JSON: kept for the pipeline to refuse",
      "read a.txt",
      { toolId: "read", args: "a.txt" },
    ],
    [
      "JSON stuck to the id: one word, an unknown tool",
      'read{"path":"a"}',
      { toolId: 'read{"path":"a"}', args: "{}" },
    ],
    ["a blank line", "", undefined],
    ["only spaces", " \t ", undefined],
    ["a comment", '# read {"path":"a.txt"}', undefined],
    ["an indented comment", "   # later", undefined],
  ])("%s", (_name, line, expected) => {
    expect(parseBatchLine(line)).toEqual(expected);
  });
});
