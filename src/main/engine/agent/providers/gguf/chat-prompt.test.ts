import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { toChatPrompt } from "./chat-prompt.ts";

describe("toChatPrompt", () => {
  it("writes a tool round trip as alternating turns the model can follow", () => {
    const prompt: LanguageModelV4Prompt = [
      { role: "system", content: "You are terse." },
      { role: "user", content: [{ type: "text", text: "What is in a.txt?" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "I should read it." },
          { type: "text", text: "Let me look." },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.txt" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "read",
            output: { type: "json", value: { text: "hi" } },
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: "And?" }] },
    ];
    const { history, warnings } = toChatPrompt(prompt, "TOOLS HERE");
    expect(warnings).toEqual([]);
    expect(history).toEqual([
      { type: "system", text: "You are terse.\n\nTOOLS HERE" },
      { type: "user", text: "What is in a.txt?" },
      { type: "model", response: ['Let me look.\n{"tool":"read","arguments":{"path":"a.txt"}}'] },
      { type: "user", text: 'Result of the read call (c1):\n{"text":"hi"}\n\nAnd?' },
    ]);
  });

  it("puts the tool instructions in a system message of their own when the prompt has none", () => {
    const { history } = toChatPrompt([{ role: "user", content: [{ type: "text", text: "hi" }] }], "TOOLS");
    expect(history[0]).toEqual({ type: "system", text: "TOOLS" });
  });

  const outputs: [string, unknown, string][] = [
    ["text", { type: "text", value: "plain" }, "plain"],
    ["an error", { type: "error-text", value: "no such file" }, "Error: no such file"],
    [
      "a denial",
      { type: "execution-denied", reason: "not allowed" },
      "The call was not run: it was denied (not allowed).",
    ],
    [
      "content parts",
      {
        type: "content",
        value: [
          { type: "text", text: "one" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: "" } },
        ],
      },
      "one\n[a image/png file, not shown]",
    ],
  ];
  for (const [name, output, expected] of outputs) {
    it(`shows the model ${name} from a tool`, () => {
      const { history } = toChatPrompt([
        {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "c9", toolName: "bash", output } as never],
        },
      ]);
      expect(history).toEqual([{ type: "user", text: `Result of the bash call (c9):\n${expected}` }]);
    });
  }

  it("inlines text files and warns about files it cannot read", () => {
    const { history, warnings } = toChatPrompt([
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          {
            type: "file",
            filename: "notes.md",
            mediaType: "text/markdown",
            data: { type: "text", text: "# Notes" },
          },
          { type: "file", mediaType: "image/png", data: { type: "data", data: new Uint8Array([1]) } },
        ],
      },
    ]);
    expect(history).toEqual([
      {
        type: "user",
        text: "Look:\n[notes.md (text/markdown)]\n# Notes\n[a image/png file was attached here, but this model cannot read it]",
      },
    ]);
    expect(warnings).toEqual([
      expect.objectContaining({ type: "unsupported", feature: "file parts (image/png)" }),
    ]);
  });
});
