import type { AssistantModelMessage, JSONValue, ModelMessage, ToolModelMessage, ToolResultPart } from "ai";
import type { StoredMessage } from "../store/conversation-store.ts";
import type { Envelope } from "../tools/envelope.ts";

/** The envelope as the model reads it: as JSON, flagged as an error when the call failed. */
export function envelopeOutput(envelope: Envelope): ToolResultPart["output"] {
  const value = envelope as unknown as JSONValue;
  return envelope.type === "error" ? { type: "error-json", value } : { type: "json", value };
}

/** Stored messages as the model's conversation history. */
export function toModelMessages(messages: readonly StoredMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user": {
        const text = message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
        out.push({ role: "user", content: [{ type: "text", text }] });
        break;
      }
      case "assistant": {
        const content: Exclude<AssistantModelMessage["content"], string> = [];
        for (const p of message.parts) {
          if (p.type === "text" || p.type === "reasoning") content.push({ type: p.type, text: p.text });
          else if (p.type === "tool-call") {
            content.push({
              type: "tool-call",
              toolCallId: p.toolCallId,
              toolName: p.toolName,
              input: p.input,
            });
          }
        }
        if (content.length > 0) out.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const content: ToolModelMessage["content"] = [];
        for (const p of message.parts) {
          if (p.type !== "tool-result") continue;
          content.push({
            type: "tool-result",
            toolCallId: p.toolCallId,
            toolName: p.toolName,
            output: envelopeOutput(p.envelope),
          });
        }
        if (content.length > 0) out.push({ role: "tool", content });
        break;
      }
    }
  }
  return out;
}
