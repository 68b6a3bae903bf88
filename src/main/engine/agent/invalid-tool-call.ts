import { InvalidToolInputError, NoSuchToolError, type ModelMessage } from "ai";
import { errorMessage } from "../errors/error-message.ts";
import { errorEnvelope, type Envelope } from "../tools/envelope.ts";
import { envelopeOutput } from "./model-messages.ts";
import { GGUF_STRING_CAP } from "./providers/gguf/tool-call-grammar.ts";

/** The tools of a run by name: those the agent may call, and those the model is shown now. */
export interface RunToolNames {
  callable(): readonly string[];
  shown(): readonly string[];
}

/**
 * What the model (and the person) are told about a call the AI SDK refused before any tool ran:
 * a tool it is not shown, or arguments that are not JSON. Said in Lathe's words, as the pipeline
 * says them, never as the SDK's "AI_NoSuchToolError: Model tried to call…" text. A deferred tool
 * (callable, not yet loaded) is named as such, with how to load it.
 */
export function invalidToolCallText(toolName: string, error: unknown, tools: RunToolNames): string {
  if (NoSuchToolError.isInstance(error)) {
    if (awaitsLoading(toolName, error, tools)) {
      return `Tool "${toolName}" is available but its definition is not loaded yet, so it was not run. Call tool_search with the query "${toolName}" to load it, then call it again.`;
    }
    const shown = tools.shown();
    return `Unknown tool "${toolName}", so nothing was run. Available tools: ${shown.length > 0 ? shown.join(", ") : "none"}.`;
  }
  if (InvalidToolInputError.isInstance(error)) {
    // The SDK's JSON parse error wraps the parser's own message, which says where it failed.
    const parseError = (error.cause as { cause?: unknown } | undefined)?.cause ?? error.cause;
    return `The arguments of this ${toolName} call are not valid JSON (${errorMessage(parseError)}), so it was not run. Send the arguments again as one JSON object that fits the tool's schema.`;
  }
  return `This ${toolName} call was not run: ${errorMessage(error)}`;
}

/** Whether the call was refused because its tool is deferred and not loaded yet (tool_search loads it). */
export function awaitsLoading(toolName: string, error: unknown, tools: RunToolNames): boolean {
  if (!NoSuchToolError.isInstance(error)) return false;
  const shown = tools.shown();
  return tools.callable().includes(toolName) && !shown.includes(toolName) && shown.includes("tool_search");
}

/**
 * What a call refused for its deferred tool not being loaded is told once its step is over, when
 * a tool_search of that same step has loaded it meanwhile (the call was refused as the model wrote
 * it, before the search ran): to call it again, not to search for it again.
 */
export function loadedSinceText(toolName: string): string {
  return `Tool "${toolName}" was not loaded yet when you made this call, so it was not run; a tool_search in the same step has loaded it since. It is loaded now: call ${toolName} again (no need to search for it again).`;
}

/**
 * What the model is told about a call whose arguments are not JSON because its step ended at the
 * output limit (finish reason `length`) while it was writing them: not a JSON mistake to repeat,
 * but a call too long to fit, to send shorter or in parts.
 */
export function cutOffToolCallText(toolName: string, maxOutputTokens: number | undefined): string {
  const limit =
    maxOutputTokens !== undefined
      ? `the ${maxOutputTokens} tokens you may write in one step (budgets.maxOutputTokens)`
      : "your output limit";
  return `This ${toolName} call was cut off: you reached ${limit} while writing its arguments (finish reason "length"), so they are incomplete and the call was not run. Make the call again with shorter arguments: write big content in several smaller steps (write a first part, then add the rest with edit, one part per call), and keep any text before the call short.`;
}

/**
 * What the model is told about a whole call the AI SDK did not run because its step ended some
 * other way than with the model finishing it (the SDK runs the calls of a step only when it ended
 * with finish reason `stop` or `tool-calls`): at the output limit, or stopped by a content filter.
 * `rawReason` is the provider's own: the embedded model's string cap is said as such.
 */
export function unrunToolCallText(toolName: string, finishReason: string, rawReason?: string): string {
  if (rawReason === GGUF_STRING_CAP) {
    return `This ${toolName} call was not run: one of its arguments reached the longest string the embedded model may write in one (LATHE_GGUF_MAX_STRING, 32768 characters unless set), where the grammar closed it, so it is incomplete. Make the call again with shorter arguments: write big content in several smaller steps (write a first part, then add the rest with edit, one part per call).`;
  }
  const how = finishReason === "length" ? "at the output limit" : "before the model finished it";
  return `This ${toolName} call was not run: its step ended ${how} (finish reason "${finishReason}") before it was complete, and no call of such a step is run. Make it again if it is still needed, in a shorter step.`;
}

/**
 * What the model is told about a whole call of a step that never finished: the AI SDK runs a
 * step's calls only once the model has finished it, so a call made before the connection dropped
 * (or the model failed, or the run was stopped) was not run.
 */
export function unfinishedStepCallText(toolName: string, how: "failed" | "aborted"): string {
  const why =
    how === "aborted"
      ? "the run was stopped before the model finished its step"
      : "the model's answer broke off (the connection dropped, or the model or its server failed) before its step was complete";
  return `This ${toolName} call was not run: ${why}, and no call of an unfinished step is run. Make it again if it is still needed.`;
}

/** Whether the AI SDK runs the calls of a step that ended with this finish reason. */
export function stepRunsItsCalls(finishReason: string): boolean {
  return finishReason === "stop" || finishReason === "tool-calls";
}

/** The envelope a refused call is answered with: in the events, in the store, and to the model. */
export function refusedCallEnvelope(text: string): Envelope {
  return errorEnvelope(text, { duration_ms: 0 });
}

/**
 * `messages` with the results of the given refused calls (by tool call id) said as `texts` says
 * them, in the envelope the events carry and the store keeps (so a resumed run sends the model
 * the same history); the rest as they were.
 */
export function withInvalidCallTexts(
  messages: ModelMessage[],
  texts: ReadonlyMap<string, string>,
): ModelMessage[] {
  return messages.map((message) => {
    if (message.role !== "tool") return message;
    let changed = false;
    const content = message.content.map((part) => {
      const text = part.type === "tool-result" ? texts.get(part.toolCallId) : undefined;
      if (text === undefined || part.type !== "tool-result") return part;
      changed = true;
      return { ...part, output: envelopeOutput(refusedCallEnvelope(text)) };
    });
    return changed ? { ...message, content } : message;
  });
}

/**
 * `messages` (a step's response messages, as the AI SDK left them when it stopped its loop at a
 * step whose calls it did not run) with a result for each of `unrun`, by tool call id, saying
 * what the events and the store say. The step's calls and their results are put in the order the
 * events announced them and the store keeps them (the calls refused as they streamed, then those
 * found not run at the step's end), so a resumed run sends the model the same history.
 */
export function withUnrunCallResults(
  messages: readonly ModelMessage[],
  unrun: ReadonlyMap<string, { toolName: string; text: string }>,
): ModelMessage[] {
  const out = [...messages];
  const at = out.findLastIndex((m) => m.role === "assistant");
  const assistant = out[at];
  if (assistant === undefined || assistant.role !== "assistant" || typeof assistant.content === "string")
    return out;
  const calls = assistant.content.filter((p) => p.type === "tool-call");
  const ordered = [
    ...calls.filter((p) => !unrun.has(p.toolCallId)),
    ...calls.filter((p) => unrun.has(p.toolCallId)),
  ];
  let nextCall = 0;
  out[at] = {
    ...assistant,
    content: assistant.content.map((p) => (p.type === "tool-call" ? (ordered[nextCall++] ?? p) : p)),
  };
  const next = out[at + 1];
  const answered = next?.role === "tool" ? next.content : [];
  const resultOf = new Map(answered.flatMap((p) => (p.type === "tool-result" ? [[p.toolCallId, p]] : [])));
  const content: Extract<ModelMessage, { role: "tool" }>["content"] = [];
  for (const { toolCallId } of ordered) {
    const told = unrun.get(toolCallId);
    const result =
      resultOf.get(toolCallId) ??
      (told !== undefined
        ? {
            type: "tool-result" as const,
            toolCallId,
            toolName: told.toolName,
            output: envelopeOutput(refusedCallEnvelope(told.text)),
          }
        : undefined);
    if (result !== undefined) content.push(result);
  }
  // Whatever else the tool message held (approval answers) stays, after the results.
  content.push(...answered.filter((p) => p.type !== "tool-result"));
  const tool: ModelMessage = { role: "tool", content };
  if (next?.role === "tool") out[at + 1] = tool;
  else out.splice(at + 1, 0, tool);
  return out;
}
