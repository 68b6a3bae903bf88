import type { LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { formatToolCall, parseToolReply, planToolReply } from "./tool-call-grammar.ts";

const limits = { maxStringLength: 200, maxAnswerLength: 50 };

const read: LanguageModelV4FunctionTool = {
  type: "function",
  name: "read",
  description: "Read a file.",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "integer" } },
    required: ["path"],
    additionalProperties: false,
  },
};
const glob: LanguageModelV4FunctionTool = {
  type: "function",
  name: "glob",
  inputSchema: {
    type: "object",
    properties: { pattern: { type: "string", maxLength: 20 } },
    required: ["pattern"],
  },
};

function alternatives(schema: unknown): unknown[] {
  const root = schema as { oneOf?: unknown[] };
  return root.oneOf ?? [schema];
}

describe("planToolReply", () => {
  it("replies in plain text when there are no tools or the choice is none", () => {
    expect(planToolReply([], undefined, limits)).toBeUndefined();
    expect(planToolReply([read], { type: "none" }, limits)).toBeUndefined();
  });

  it("offers the answer and every tool by default", () => {
    const plan = planToolReply([read, glob], undefined, limits);
    expect(plan?.allowsAnswer).toBe(true);
    expect(alternatives(plan?.schema)).toHaveLength(3);
    expect(alternatives(plan?.schema)[0]).toEqual({
      type: "object",
      properties: { answer: { type: "string", maxLength: 50 } },
    });
    expect(plan?.instructions).toContain('{"answer": "<your reply>"}');
    expect(plan?.instructions).toContain("- read: Read a file.");
    expect(plan?.instructions).toContain("- glob:");
  });

  it("leaves the answer out when a tool is required", () => {
    const plan = planToolReply([read, glob], { type: "required" }, limits);
    expect(plan?.allowsAnswer).toBe(false);
    expect(alternatives(plan?.schema)).toHaveLength(2);
    expect(plan?.instructions).not.toContain('"answer"');
  });

  it("forces the named tool", () => {
    const plan = planToolReply([read, glob], { type: "tool", toolName: "glob" }, limits);
    expect(plan?.tools.map((tool) => tool.name)).toEqual(["glob"]);
    expect(plan?.schema).toEqual({
      type: "object",
      properties: {
        tool: { const: "glob" },
        arguments: { type: "object", properties: { pattern: { type: "string", maxLength: 20 } } },
      },
    });
    expect(plan?.instructions).toContain("You must call the tool glob now.");
  });

  it("refuses a forced tool the call does not offer, naming the ones it does", () => {
    expect(() => planToolReply([read], { type: "tool", toolName: "bash" }, limits)).toThrow(
      'The tool choice names "bash", but the call offers no such tool (it offers: read).',
    );
  });
});

describe("parseToolReply", () => {
  const plan = planToolReply([read, glob], { type: "auto" }, limits);
  if (!plan) throw new Error("expected a plan");
  const required = planToolReply([read], { type: "required" }, limits);
  if (!required) throw new Error("expected a plan");

  it("reads an answer", () => {
    expect(parseToolReply('{"answer": "done"}\n\n', plan)).toEqual({
      type: "answer",
      text: "done",
      capped: false,
    });
  });

  it("reads a tool call and drops the nulls written for omitted optional arguments", () => {
    expect(parseToolReply('{"tool": "read", "arguments": {"path": "a.txt", "limit": null}}', plan)).toEqual({
      type: "tool-call",
      toolName: "read",
      input: '{"path":"a.txt"}',
      capped: false,
    });
  });

  const broken: [string, string][] = [
    ["cut short", '{"tool": "read", "arguments": {"path": "a.t'],
    ["an unknown tool", '{"tool": "bash", "arguments": {}}'],
    ["not an object", '"text"'],
    ["arguments missing", '{"tool": "read"}'],
  ];
  for (const [name, text] of broken) {
    it(`returns nothing for a reply that is ${name}`, () => {
      expect(parseToolReply(text, plan)).toBeUndefined();
    });
  }

  it("does not take an answer when a tool is required", () => {
    expect(parseToolReply('{"answer": "no"}', required)).toBeUndefined();
  });

  it("writes earlier calls back in the shape it reads", () => {
    const text = formatToolCall("read", { path: "a.txt" });
    expect(parseToolReply(text, plan)).toEqual({
      type: "tool-call",
      toolName: "read",
      input: '{"path":"a.txt"}',
      capped: false,
    });
  });
});

describe("a reply the grammar cut at its string cap", () => {
  // The grammar closes a string at the cap whatever the model meant to write: a file's content
  // cut there would be written as it is, the rest lost without a word.
  const write: LanguageModelV4FunctionTool = {
    type: "function",
    name: "write",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  };
  const plan = planToolReply([write, glob], undefined, { maxStringLength: 10, maxAnswerLength: 12 })!;

  it.each<[string, boolean, unknown]>([
    [
      "a tool argument at the cap",
      true,
      { tool: "write", arguments: { path: "a.txt", content: "0123456789" } },
    ],
    [
      "one nested in an array at the cap",
      true,
      { tool: "write", arguments: { path: "a", content: "x", extra: ["0123456789"] } },
    ],
    [
      "a tool argument under the cap",
      false,
      { tool: "write", arguments: { path: "a.txt", content: "012345678" } },
    ],
    [
      "characters beyond the BMP, counted once each",
      false,
      { tool: "write", arguments: { path: "a", content: "😀😀😀😀😀😀😀😀😀" } },
    ],
    ["an answer at its cap", true, { answer: "Hello there!" }],
    ["an answer under its cap", false, { answer: "Hello there" }],
  ])("%s: capped is %s", (_what, capped, reply) => {
    expect(parseToolReply(JSON.stringify(reply), plan)).toMatchObject({ capped });
  });

  it("does not count a schema's own smaller maxLength as the cap", () => {
    const wide = planToolReply([glob], undefined, { maxStringLength: 10, maxAnswerLength: 12 })!;
    expect(parseToolReply('{"tool": "glob", "arguments": {"pattern": "0123456789"}}', wide)).toMatchObject({
      capped: true,
    });
    const narrow = planToolReply([glob], undefined, { maxStringLength: 100, maxAnswerLength: 12 })!;
    const atSchemaLimit = JSON.stringify({ tool: "glob", arguments: { pattern: "x".repeat(20) } });
    expect(parseToolReply(atSchemaLimit, narrow)).toMatchObject({ capped: false });
  });
});
