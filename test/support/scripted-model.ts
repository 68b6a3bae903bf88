import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";

/** One scripted model step: what the model "says" for one request. */
export interface ScriptedStep {
  reasoning?: string;
  text?: string;
  toolCalls?: Array<{ name: string; input: unknown; id?: string }>;
  /** Stream the parts above, then never finish (until the request is aborted). */
  hang?: boolean;
  /** Stream the parts above, then fail as a dropped connection does (no finish). */
  drop?: boolean;
  /** End at a length limit instead (the answer is cut off), having written this many tokens. */
  cutOffAt?: number;
  /** With `cutOffAt`: the provider's own finish reason (default "length"). */
  cutOffRaw?: string;
}

export type Script = Array<
  ScriptedStep | ((call: LanguageModelV4CallOptions, index: number) => ScriptedStep)
>;

const USAGE = {
  inputTokens: { total: 7, noCache: 7, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 3, text: 3, reasoning: undefined },
};

function partsOf(step: ScriptedStep, index: number): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [];
  if (step.reasoning) {
    parts.push({ type: "reasoning-start", id: `r${index}` });
    parts.push({ type: "reasoning-delta", id: `r${index}`, delta: step.reasoning });
    parts.push({ type: "reasoning-end", id: `r${index}` });
  }
  if (step.text) {
    parts.push({ type: "text-start", id: `t${index}` });
    // Two deltas, so hosts see the text stream in pieces.
    const half = Math.ceil(step.text.length / 2);
    parts.push({ type: "text-delta", id: `t${index}`, delta: step.text.slice(0, half) });
    if (half < step.text.length)
      parts.push({ type: "text-delta", id: `t${index}`, delta: step.text.slice(half) });
    parts.push({ type: "text-end", id: `t${index}` });
  }
  (step.toolCalls ?? []).forEach((call, i) => {
    parts.push({
      type: "tool-call",
      toolCallId: call.id ?? `call-${index}-${i}`,
      toolName: call.name,
      input: typeof call.input === "string" ? call.input : JSON.stringify(call.input),
    });
  });
  return parts;
}

function hangingStream(
  parts: LanguageModelV4StreamPart[],
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      const stop = (): void => controller.error(signal?.reason ?? new Error("aborted"));
      if (signal?.aborted) stop();
      else signal?.addEventListener("abort", stop, { once: true });
    },
  });
}

function droppedStream(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      // The connection drops a moment after the last part (an error raised at once would discard
      // the parts not yet read, as no real connection does).
      setTimeout(
        () => controller.error(Object.assign(new Error("terminated"), { cause: { code: "ECONNRESET" } })),
        50,
      );
    },
  });
}

/**
 * A MockLanguageModelV4 that plays a script: request n gets step n (a function step sees the
 * request, e.g. the tool results in its prompt). A request beyond the script fails the test.
 */
export function scriptedModel(script: Script): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId: "scripted-model",
    doStream: async (call) => {
      const i = index++;
      const entry = script[i];
      if (entry === undefined)
        throw new Error(`The scripted model got request ${i + 1}, but the script has ${script.length}.`);
      const step = typeof entry === "function" ? entry(call, i) : entry;
      const parts = partsOf(step, i);
      if (step.hang) return { stream: hangingStream(parts, call.abortSignal) };
      if (step.drop) return { stream: droppedStream(parts) };
      parts.push(
        step.cutOffAt !== undefined
          ? {
              type: "finish",
              finishReason: { unified: "length", raw: step.cutOffRaw ?? "length" },
              usage: {
                ...USAGE,
                outputTokens: { total: step.cutOffAt, text: step.cutOffAt, reasoning: undefined },
              },
            }
          : {
              type: "finish",
              finishReason: { unified: step.toolCalls?.length ? "tool-calls" : "stop", raw: undefined },
              usage: USAGE,
            },
      );
      return { stream: simulateReadableStream({ chunks: parts }) };
    },
  });
}

/** The tool results a request carries in its prompt, by tool name, in order. */
export function toolResultsIn(
  call: LanguageModelV4CallOptions,
): Array<{ toolName: string; output: unknown }> {
  const out: Array<{ toolName: string; output: unknown }> = [];
  for (const message of call.prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content)
      if (part.type === "tool-result") out.push({ toolName: part.toolName, output: part.output });
  }
  return out;
}

/** The names of the tools a request offered the model. */
export function toolNamesOffered(call: LanguageModelV4CallOptions): string[] {
  return (call.tools ?? []).map((t) => t.name).sort();
}
