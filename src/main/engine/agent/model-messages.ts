import type { AssistantModelMessage, JSONValue, ModelMessage, ToolModelMessage, ToolResultPart } from "ai";
import type { StoredMessage } from "../store/conversation-store.ts";
import type { Envelope } from "../tools/envelope.ts";
import { imagesOf, readModelImage } from "../tools/tool-image.ts";

/** How tool results are shown to this model. */
export interface OutputOptions {
  /** The model takes images: images a tool saved (in `sidecarDir`) go with the envelope. */
  images?: { sidecarDir: string };
}

/**
 * The envelope as the model reads it: as JSON, flagged as an error when the call failed. For a
 * model that takes images, the images the output names follow the JSON as image parts.
 */
export function envelopeOutput(envelope: Envelope, options: OutputOptions = {}): ToolResultPart["output"] {
  const value = envelope as unknown as JSONValue;
  if (envelope.type === "error") return { type: "error-json", value };
  if (options.images) {
    const { sidecarDir } = options.images;
    const files = imagesOf(envelope.data).flatMap((image) => {
      const bytes = readModelImage(image, sidecarDir);
      return bytes
        ? [
            {
              type: "file" as const,
              mediaType: image.mimeType,
              data: { type: "data" as const, data: bytes.toString("base64") },
            },
          ]
        : [];
    });
    if (files.length > 0)
      return { type: "content", value: [{ type: "text", text: JSON.stringify(envelope) }, ...files] };
  }
  return { type: "json", value };
}

/** Ends a stored answer the model never finished, so a resumed run does not take it as one. */
export const CUT_OFF_NOTE =
  "\n\n[Lathe: this answer was cut off here, before it was complete (the connection to the model dropped, the model stopped at its output limit or failed, or the run was stopped); it is not a finished answer.]";

/**
 * A call's input as the model is sent it. A refused call whose arguments were not JSON is stored
 * with the text the model wrote (what the person is shown), but the AI SDK sends such a call to
 * the model with `{}` as its input (a provider may require an object: Anthropic's rejects a text),
 * and a resumed run must send what the run itself sent.
 */
function sentInput(input: unknown): unknown {
  return typeof input === "object" ? input : {};
}

/** Stored messages as the model's conversation history. */
export function toModelMessages(
  messages: readonly StoredMessage[],
  options: OutputOptions = {},
): ModelMessage[] {
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
          if (p.type === "text" || p.type === "reasoning")
            content.push({ type: p.type, text: p.cutOff ? `${p.text}${CUT_OFF_NOTE}` : p.text });
          else if (p.type === "tool-call") {
            content.push({
              type: "tool-call",
              toolCallId: p.toolCallId,
              toolName: p.toolName,
              input: sentInput(p.input),
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
            output: envelopeOutput(p.envelope, options),
          });
        }
        if (content.length > 0) out.push({ role: "tool", content });
        break;
      }
    }
  }
  return out;
}
