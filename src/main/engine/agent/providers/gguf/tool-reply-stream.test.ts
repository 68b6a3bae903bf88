import { describe, expect, it } from "vitest";
import { ToolReplyStream, type ToolReplyEvent } from "./tool-reply-stream.ts";

/** Feeds `reply` in pieces and folds the events into what a listener would have seen. */
function stream(
  reply: string,
  pieces: string[],
): { answer: string; tool?: string; args: string; ended: boolean } {
  expect(pieces.join("")).toBe(reply);
  const parser = new ToolReplyStream();
  const events: ToolReplyEvent[] = pieces.flatMap((piece) => parser.push(piece));
  let answer = "";
  let args = "";
  let tool: string | undefined;
  let ended = false;
  for (const event of events) {
    if (event.type === "answer-delta") answer += event.delta;
    else if (event.type === "tool-start") tool = event.toolName;
    else if (event.type === "tool-delta") args += event.delta;
    else ended = true;
  }
  return { answer, ...(tool !== undefined ? { tool } : {}), args, ended };
}

const splits: [string, (text: string) => string[]][] = [
  ["whole", (text) => [text]],
  ["one character at a time", (text) => [...text]],
  ["three characters at a time", (text) => text.match(/[\s\S]{1,3}/g) ?? []],
];

describe("ToolReplyStream", () => {
  const answers: [string, string, string][] = [
    ["plain", '{"answer": "Hello there"}', "Hello there"],
    ["escapes", '{"answer":"line\\nnext \\"quoted\\" \\\\ tab\\t"}\n\n', 'line\nnext "quoted" \\ tab\t'],
    ["unicode escape", '{ "answer" : "caf\\u00e9"}', "café"],
    ["surrogate pair", '{"answer":"smile \\ud83d\\ude00!"}', "smile 😀!"],
    ["empty", '{"answer":""}', ""],
  ];
  for (const [name, reply, expected] of answers) {
    for (const [how, split] of splits) {
      it(`streams the answer text (${name}, ${how})`, () => {
        const seen = stream(reply, split(reply));
        expect(seen.answer).toBe(expected);
        expect(seen.tool).toBeUndefined();
      });
    }
  }

  const calls: [string, string, string, string][] = [
    [
      "flat",
      '{"tool": "read", "arguments": {"path": "a}b.txt", "limit": null}}',
      "read",
      '{"path": "a}b.txt", "limit": null}',
    ],
    [
      "nested with brackets in strings",
      '{"tool":"edit","arguments":{\n    "edits": [{"old": "x\\"]}", "new": "{"}]\n}}\n\n\n',
      "edit",
      '{\n    "edits": [{"old": "x\\"]}", "new": "{"}]\n}',
    ],
    ["escaped name", '{"tool":"a\\u0062c","arguments":{}}', "abc", "{}"],
  ];
  for (const [name, reply, tool, args] of calls) {
    for (const [how, split] of splits) {
      it(`streams a tool call's arguments exactly (${name}, ${how})`, () => {
        const seen = stream(reply, split(reply));
        expect(seen).toEqual({ answer: "", tool, args, ended: true });
        expect(() => JSON.parse(seen.args) as unknown).not.toThrow();
      });
    }
  }

  it("leaves a tool call open when the reply is cut short", () => {
    const parser = new ToolReplyStream();
    const events = parser.push('{"tool":"read","arguments":{"path":"unfinish');
    expect(events.map((event) => event.type)).toEqual(["tool-start", "tool-delta"]);
    expect(parser.toolOpen).toBe(true);
  });
});
