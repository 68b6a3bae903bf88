import type { JsonSchema } from "./contract.ts";
import { modelSchema } from "./model-schema.ts";

/**
 * Prompt-token estimates, for budgeting what the model sees before it sees it. No tokenizer
 * ships with Lathe and local models use many different ones, so this is the usual rule of
 * thumb: one token per four characters of the text as sent (BPE tokenizers average 3.5-4.5
 * characters per token on English prose and JSON). It is a budget, not a bill: it only has to
 * rank tools by size and keep the total in the right order of magnitude.
 */
const CHARS_PER_TOKEN = 4;

/** The estimated tokens of a text of `chars` characters. */
export function tokensForChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** About how many characters `tokens` tokens hold. */
export function charsForTokens(tokens: number): number {
  return tokens * CHARS_PER_TOKEN;
}

/** The estimated tokens of a piece of text. */
export function estimateTextTokens(text: string): number {
  return tokensForChars(text.length);
}

/** What a provider receives for one tool: its name, description and parameters schema. */
interface ToolDefinitionText {
  readonly id: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/**
 * The estimated tokens one tool definition costs in the prompt: the JSON a provider sends for it
 * (`{"name","description","parameters"}`, the parameters as the model is shown them: see
 * model-schema.ts), which is what function-calling APIs serialise.
 */
export function estimateToolTokens(tool: ToolDefinitionText): number {
  return estimateTextTokens(
    JSON.stringify({
      name: tool.id,
      description: tool.description,
      parameters: modelSchema(tool.parameters),
    }),
  );
}
