import type { LanguageModelV4FunctionTool, LanguageModelV4ToolChoice } from "@ai-sdk/provider";
import type { GbnfJsonSchema } from "node-llama-cpp";
import { GbnfSchemaSet, dropOmittedNulls, type GbnfSchemaLimits } from "./gbnf-json-schema.ts";

/**
 * The reply protocol of a model call that offers tools: the grammar makes the model write
 * exactly one JSON object, either `{"answer": "<text for the user>"}` or
 * `{"tool": "<name>", "arguments": {...}}`.
 */
export interface ToolReplyPlan {
  /** The grammar's schema: a union of the answer and each offered tool's call. */
  schema: GbnfJsonSchema;
  /** The tools the model may call (one when the call forces a tool). */
  tools: LanguageModelV4FunctionTool[];
  /** False when the call requires a tool (`required` or a named tool). */
  allowsAnswer: boolean;
  /** What the system prompt tells the model about the tools and the reply format. */
  instructions: string;
  /** The caps the grammar puts on strings, in characters. */
  limits: ToolReplyLimits;
}

interface ToolReplyLimits extends GbnfSchemaLimits {
  /** The longest answer text in characters. */
  maxAnswerLength: number;
}

/**
 * The raw finish reason of a reply whose string the grammar closed at its cap (the step ends as
 * at a length limit; the run tells the model which limit).
 */
export const GGUF_STRING_CAP = "maxStringLength";

type ToolReply = (
  | { type: "answer"; text: string }
  | {
      type: "tool-call";
      toolName: string;
      /** The arguments as the tool's schema wants them, JSON-encoded. */
      input: string;
    }
) & {
  /**
   * Whether a string of the reply reached the grammar's cap (`maxAnswerLength` for the answer,
   * `maxStringLength` in the arguments): the grammar closed it there, whatever the model meant
   * to write, so it is most likely cut short.
   */
  capped: boolean;
};

/** Whether any string in `value` has `cap` characters or more (counted as the grammar counts them). */
function reachesCap(value: unknown, cap: number): boolean {
  if (typeof value === "string") return value.length >= cap && [...value].length >= cap;
  if (Array.isArray(value)) return value.some((item) => reachesCap(item, cap));
  if (typeof value === "object" && value !== null)
    return Object.values(value).some((item) => reachesCap(item, cap));
  return false;
}

function describeTool(tool: LanguageModelV4FunctionTool): string {
  const { $schema: _ignored, ...schema } = tool.inputSchema as Record<string, unknown>;
  const description = tool.description ? ` ${tool.description.trim()}` : "";
  return `- ${tool.name}:${description}\n  arguments (JSON Schema): ${JSON.stringify(schema)}`;
}

function instructionsFor(tools: LanguageModelV4FunctionTool[], allowsAnswer: boolean): string {
  const lines = [
    "You can call tools. Reply with exactly one JSON object and nothing else:",
    ...(allowsAnswer ? ['- to answer the user: {"answer": "<your reply>"}'] : []),
    '- to call a tool: {"tool": "<tool name>", "arguments": {<the arguments the tool takes>}}',
    allowsAnswer
      ? "Call a tool when you need what it gives; after a call you get its result in the next message, then answer or call another tool."
      : `You must call ${tools.length === 1 ? `the tool ${tools[0]?.name}` : "one of the tools"} now.`,
    "",
    "Tools:",
    ...tools.map(describeTool),
  ];
  return lines.join("\n");
}

/**
 * The reply grammar for a call's function tools and tool choice, or undefined when the model
 * replies in plain text (no tools, or `toolChoice: none`). Throws when the choice names a tool
 * the call does not offer.
 */
export function planToolReply(
  tools: LanguageModelV4FunctionTool[],
  choice: LanguageModelV4ToolChoice | undefined,
  limits: ToolReplyLimits,
): ToolReplyPlan | undefined {
  if (tools.length === 0 || choice?.type === "none") return undefined;
  let offered = tools;
  if (choice?.type === "tool") {
    offered = tools.filter((tool) => tool.name === choice.toolName);
    if (offered.length === 0) {
      throw new Error(
        `The tool choice names "${choice.toolName}", but the call offers no such tool (it offers: ${tools.map((t) => t.name).join(", ")}).`,
      );
    }
  }
  const allowsAnswer = choice === undefined || choice.type === "auto";
  const set = new GbnfSchemaSet(limits);
  const alternatives = [
    ...(allowsAnswer ? [{ type: "object", properties: { answer: set.string(limits.maxAnswerLength) } }] : []),
    ...offered.map((tool) => ({
      type: "object",
      properties: { tool: { const: tool.name }, arguments: set.add(tool.inputSchema) },
    })),
  ];
  const root =
    alternatives.length === 1 ? (alternatives[0] as Record<string, unknown>) : { oneOf: alternatives };
  return {
    schema: set.withDefs(root),
    tools: offered,
    allowsAnswer,
    instructions: instructionsFor(offered, allowsAnswer),
    limits,
  };
}

/** How an earlier tool call is written back into the conversation: the same shape it was made in. */
export function formatToolCall(toolName: string, input: unknown): string {
  return JSON.stringify({ tool: toolName, arguments: input ?? {} });
}

/**
 * The model's whole reply read back; undefined when it is not a complete reply of the plan
 * (generation stopped at the token limit, or was cut by the context).
 */
export function parseToolReply(text: string, plan: ToolReplyPlan): ToolReply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const reply = value as Record<string, unknown>;
  if (plan.allowsAnswer && typeof reply["answer"] === "string") {
    const text = reply["answer"];
    return { type: "answer", text, capped: reachesCap(text, plan.limits.maxAnswerLength) };
  }
  const tool = plan.tools.find((candidate) => candidate.name === reply["tool"]);
  if (!tool || typeof reply["arguments"] !== "object" || reply["arguments"] === null) return undefined;
  const input = dropOmittedNulls(reply["arguments"], tool.inputSchema);
  return {
    type: "tool-call",
    toolName: tool.name,
    input: JSON.stringify(input),
    capped: reachesCap(input, plan.limits.maxStringLength),
  };
}
