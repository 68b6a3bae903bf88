import { describe, expect, it } from "vitest";
import type { StoredMessage } from "../store/conversation-store.ts";
import { toModelMessages } from "./model-messages.ts";

const stored = (input: unknown): StoredMessage[] =>
  [
    { seq: 0, role: "user", parts: [{ type: "text", text: "write a.txt" }] },
    {
      seq: 1,
      role: "assistant",
      parts: [
        { type: "text", text: "Writing." },
        { type: "tool-call", toolCallId: "c1", toolName: "write", input },
      ],
    },
  ] as unknown as StoredMessage[];

const sentInputOf = (input: unknown): unknown => {
  const assistant = toModelMessages(stored(input))[1];
  if (assistant?.role !== "assistant" || typeof assistant.content === "string")
    throw new Error("no assistant");
  const call = assistant.content.find((p) => p.type === "tool-call");
  return call?.type === "tool-call" ? call.input : undefined;
};

describe("toModelMessages: a stored call's input as the model is sent it", () => {
  it.each([
    // A refused call keeps the text the model wrote; the SDK sent it to the model as {}.
    { name: "arguments cut off mid-JSON", input: '{"path": "a.txt", "content": "x', sent: {} },
    { name: "arguments that are not JSON", input: "{path: a.txt}", sent: {} },
    { name: "a bare number", input: 42, sent: {} },
    // Inputs that were objects go as they were.
    { name: "a whole call", input: { path: "a.txt", content: "x" }, sent: { path: "a.txt", content: "x" } },
    { name: "an empty object", input: {}, sent: {} },
  ])("$name", ({ input, sent }) => {
    expect(sentInputOf(input)).toEqual(sent);
  });
});
