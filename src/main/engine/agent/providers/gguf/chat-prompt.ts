import type {
  LanguageModelV4FilePart,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4Warning,
} from "@ai-sdk/provider";
import type { ChatHistoryItem } from "node-llama-cpp";
import { formatToolCall } from "./tool-call-grammar.ts";

interface ChatPrompt {
  history: ChatHistoryItem[];
  warnings: SharedV4Warning[];
}

function fileText(part: LanguageModelV4FilePart, warnings: SharedV4Warning[]): string {
  const name = part.filename ? `${part.filename} ` : "";
  if (part.data.type === "text") return `[${name}(${part.mediaType})]\n${part.data.text}`;
  warnings.push({
    type: "unsupported",
    feature: `file parts (${part.mediaType})`,
    details: "The embedded GGUF runner reads text only; the file was left out of the prompt.",
  });
  return `[a ${part.mediaType} file ${name}was attached here, but this model cannot read it]`;
}

function toolOutputText(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case "text":
      return output.value;
    case "json":
      return JSON.stringify(output.value);
    case "error-text":
      return `Error: ${output.value}`;
    case "error-json":
      return `Error: ${JSON.stringify(output.value)}`;
    case "execution-denied":
      return `The call was not run: it was denied${output.reason ? ` (${output.reason})` : ""}.`;
    case "content":
      return output.value
        .map((part) =>
          part.type === "text"
            ? part.text
            : part.type === "file"
              ? `[a ${part.mediaType} file, not shown]`
              : "",
        )
        .filter((text) => text !== "")
        .join("\n");
  }
}

function toolResultText(
  toolName: string,
  toolCallId: string,
  output: LanguageModelV4ToolResultOutput,
): string {
  return `Result of the ${toolName} call (${toolCallId}):\n${toolOutputText(output)}`;
}

/**
 * Adds a turn, merging it into the previous one when both come from the same side: chat
 * templates expect user and model turns to alternate, and tool results arrive as user turns.
 */
function append(history: ChatHistoryItem[], item: ChatHistoryItem): void {
  const last = history.at(-1);
  if (last?.type === "user" && item.type === "user") {
    last.text = `${last.text}\n\n${item.text}`;
  } else if (last?.type === "model" && item.type === "model") {
    last.response = [[...last.response, ...item.response].join("\n")];
  } else if (last?.type === "system" && item.type === "system") {
    last.text = `${String(last.text)}\n\n${String(item.text)}`;
  } else {
    history.push(item);
  }
}

/**
 * The AI SDK prompt as node-llama-cpp chat history. Tool calls are written back in the JSON
 * shape the reply grammar makes the model use, and tool results become user turns;
 * `toolInstructions` (the tools and the reply format) go at the end of the first system message.
 */
export function toChatPrompt(prompt: LanguageModelV4Prompt, toolInstructions?: string): ChatPrompt {
  const history: ChatHistoryItem[] = [];
  const warnings: SharedV4Warning[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        append(history, { type: "system", text: message.content });
        break;
      case "user": {
        const text = message.content
          .map((part) => (part.type === "text" ? part.text : fileText(part, warnings)))
          .join("\n");
        append(history, { type: "user", text });
        break;
      }
      case "assistant": {
        const response: string[] = [];
        const results: string[] = [];
        for (const part of message.content) {
          if (part.type === "text") response.push(part.text);
          else if (part.type === "tool-call") response.push(formatToolCall(part.toolName, part.input));
          else if (part.type === "tool-result")
            results.push(toolResultText(part.toolName, part.toolCallId, part.output));
          else if (part.type === "file") response.push(fileText(part, warnings));
          // Reasoning from earlier turns is left out, as chat templates do.
        }
        append(history, { type: "model", response: [response.join("\n")] });
        if (results.length > 0) append(history, { type: "user", text: results.join("\n\n") });
        break;
      }
      case "tool": {
        const results = message.content.flatMap((part) =>
          part.type === "tool-result" ? [toolResultText(part.toolName, part.toolCallId, part.output)] : [],
        );
        if (results.length > 0) append(history, { type: "user", text: results.join("\n\n") });
        break;
      }
    }
  }
  if (toolInstructions) {
    const first = history[0];
    if (first?.type === "system" && typeof first.text === "string") {
      first.text = `${first.text}\n\n${toolInstructions}`;
    } else {
      history.unshift({ type: "system", text: toolInstructions });
    }
  }
  return { history, warnings };
}
