import { randomUUID } from "node:crypto";
import path from "node:path";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4Warning,
} from "@ai-sdk/provider";
import type {
  ChatHistoryItem,
  LLamaChatGenerateResponseOptions,
  LlamaChatResponse,
  LlamaChatResponseChunk,
  LlamaGrammar,
  TokenMeterState,
} from "node-llama-cpp";
import type { ModelTurnListener, TurnTakingModel } from "../../model-turn.ts";
import { toChatPrompt } from "./chat-prompt.ts";
import { explainContextOverflow, refusingContextShift } from "./context-overflow.ts";
import { GbnfSchemaSet, dropOmittedNulls } from "./gbnf-json-schema.ts";
import { loadNodeLlamaCpp } from "./node-llama-cpp.ts";
import {
  sharedLlamaRuntime,
  type ContextSettings,
  type LlamaRuntime,
  type PreparedContext,
  type SequenceLease,
} from "./llama-runtime.ts";
import { StreamPartWriter } from "./stream-part-writer.ts";
import { GGUF_STRING_CAP, parseToolReply, planToolReply, type ToolReplyPlan } from "./tool-call-grammar.ts";
import { ToolReplyStream } from "./tool-reply-stream.ts";

export interface GgufModelOptions extends ContextSettings {
  /** Where models are loaded; default the process-wide CPU runtime. */
  runtime?: LlamaRuntime;
  /** The `modelId` reported to the AI SDK; default the path as given. */
  modelId?: string;
  /**
   * The longest string (characters) the grammar lets the model write in tool arguments or
   * structured output where the schema sets no `maxLength`. Default 32768.
   */
  maxStringLength?: number;
  /** The longest answer (characters) when the model may either answer or call a tool. Default 32768. */
  maxAnswerLength?: number;
}

const DEFAULT_MAX_STRING = 32_768;

type Sampling = Pick<
  LLamaChatGenerateResponseOptions,
  "maxTokens" | "temperature" | "topP" | "topK" | "seed" | "repeatPenalty" | "customStopTriggers"
>;

/** Everything a call needs that does not depend on the loaded model. */
interface PreparedCall {
  history: ChatHistoryItem[];
  warnings: SharedV4Warning[];
  sampling: Sampling;
  plan: ToolReplyPlan | undefined;
  /** Structured output: the schema to constrain and clean the reply with (`true`: any JSON). */
  json: { schema: unknown } | undefined;
  includeRaw: boolean;
}

function finishReason(
  raw: LlamaChatResponse["metadata"]["stopReason"],
  toolCalled: boolean,
  capped: boolean,
): LanguageModelV4FinishReason {
  // The grammar closed a string at its cap: the reply is cut there, as at a token limit, so a
  // call in it is not run (the model is told so) and an answer is marked incomplete.
  if (capped) return { unified: "length", raw: GGUF_STRING_CAP };
  if (toolCalled) return { unified: "tool-calls", raw };
  switch (raw) {
    case "maxTokens":
      return { unified: "length", raw };
    case "eogToken":
    case "stopGenerationTrigger":
    case "customStopTrigger":
      return { unified: "stop", raw };
    default:
      return { unified: "other", raw };
  }
}

function usageOf(
  lease: SequenceLease,
  before: TokenMeterState,
  reasoningTokens: number,
): LanguageModelV4Usage {
  const used = lease.sequence.tokenMeter.diff(before);
  const output = used.usedOutputTokens;
  // What the context holds now is the whole prompt plus the reply; the meter counts only the
  // prompt tokens evaluated in this call, the rest came from the sequence's cache.
  const input = Math.max(used.usedInputTokens, lease.sequence.contextTokens.length - output);
  return {
    inputTokens: {
      total: input,
      noCache: used.usedInputTokens,
      cacheRead: input - used.usedInputTokens,
      cacheWrite: undefined,
    },
    outputTokens: { total: output, text: output - reasoningTokens, reasoning: reasoningTokens },
    raw: {
      evaluatedInputTokens: used.usedInputTokens,
      outputTokens: output,
      contextTokens: lease.sequence.contextTokens.length,
    },
  };
}

/**
 * A GGUF file run in-process by llama.cpp (node-llama-cpp), as an AI SDK language model. With
 * function tools, a JSON-schema grammar makes the model reply with either an answer or one
 * tool call (see `tool-call-grammar.ts`), so even small local models call tools in valid JSON.
 */
export class GgufLanguageModel implements TurnTakingModel {
  readonly specificationVersion = "v4";
  readonly provider = "gguf";
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** The absolute path of the model file. */
  readonly file: string;
  private readonly runtime: LlamaRuntime;
  private readonly settings: ContextSettings;
  private readonly maxStringLength: number;
  private readonly maxAnswerLength: number;

  constructor(file: string, options: GgufModelOptions = {}) {
    this.file = path.resolve(file);
    this.modelId = options.modelId ?? file;
    this.runtime = options.runtime ?? sharedLlamaRuntime();
    this.settings = {
      ...(options.contextSize !== undefined ? { contextSize: options.contextSize } : {}),
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.sequences !== undefined ? { sequences: options.sequences } : {}),
    };
    this.maxStringLength = options.maxStringLength ?? DEFAULT_MAX_STRING;
    this.maxAnswerLength = options.maxAnswerLength ?? DEFAULT_MAX_STRING;
  }

  /**
   * Loads the model and creates its context now rather than on the first call, so what cannot
   * work is refused before a run starts; throws ModelError saying what is wrong. Resolves to the
   * context's size and the model's trained one. An abort stops the wait, not the load, which
   * other calls may share.
   */
  async load(signal?: AbortSignal): Promise<PreparedContext> {
    const loading = this.runtime.prepare(this.file, this.settings);
    if (!signal) return loading;
    signal.throwIfAborted();
    return new Promise<PreparedContext>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      loading.then(
        (prepared) => {
          signal.removeEventListener("abort", onAbort);
          resolve(prepared);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { stream } = await this.doStream({ ...options, includeRawChunks: false });
    const content: LanguageModelV4Content[] = [];
    const texts = new Map<string, { type: "text" | "reasoning"; text: string }>();
    let warnings: SharedV4Warning[] = [];
    let finish: Extract<LanguageModelV4StreamPart, { type: "finish" }> | undefined;
    for await (const part of stream) {
      switch (part.type) {
        case "stream-start":
          warnings = part.warnings;
          break;
        case "text-start":
        case "reasoning-start": {
          const block = {
            type: part.type === "text-start" ? ("text" as const) : ("reasoning" as const),
            text: "",
          };
          texts.set(part.id, block);
          content.push(block);
          break;
        }
        case "text-delta":
        case "reasoning-delta": {
          const block = texts.get(part.id);
          if (block) block.text += part.delta;
          break;
        }
        case "tool-call":
          content.push(part);
          break;
        case "finish":
          finish = part;
          break;
        case "error":
          throw part.error;
        default:
          break;
      }
    }
    if (!finish) throw new Error(`The GGUF model ${this.modelId} stopped without finishing its reply.`);
    return { content, finishReason: finish.finishReason, usage: finish.usage, warnings };
  }

  doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    return this.doStreamInTurn(options, {});
  }

  /**
   * `doStream`, telling `turn` when the call waits because another call (another run, another
   * tab) has the model's context, and when it has it (see TurnTakingModel).
   */
  async doStreamInTurn(
    options: LanguageModelV4CallOptions,
    turn: ModelTurnListener,
  ): Promise<LanguageModelV4StreamResult> {
    const call = this.prepare(options);
    const cancel = new AbortController();
    const signal = options.abortSignal
      ? AbortSignal.any([options.abortSignal, cancel.signal])
      : cancel.signal;
    let queued = false;
    const lease = await this.runtime.lease(this.file, this.settings, signal, () => {
      queued = true;
      turn.queued?.();
    });
    if (queued) turn.started?.();
    let grammar: LlamaGrammar | undefined;
    try {
      grammar = await this.grammarFor(call);
    } catch (error) {
      lease.release();
      throw error;
    }
    let closed = false;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: (controller) => {
        const emit = (part: LanguageModelV4StreamPart): void => {
          if (!closed) controller.enqueue(part);
        };
        void this.generate(call, grammar, lease, signal, emit).then(
          () => {
            if (closed) return;
            closed = true;
            controller.close();
          },
          (error: unknown) => {
            if (closed) return;
            closed = true;
            controller.error(error);
          },
        );
      },
      cancel: (reason) => {
        closed = true;
        cancel.abort(reason);
      },
    });
    return { stream };
  }

  private prepare(options: LanguageModelV4CallOptions): PreparedCall {
    const warnings: SharedV4Warning[] = [];
    const functionTools = (options.tools ?? []).filter(
      (tool): tool is LanguageModelV4FunctionTool => tool.type === "function",
    );
    for (const tool of options.tools ?? []) {
      if (tool.type === "provider") {
        warnings.push({
          type: "unsupported",
          feature: `provider tool ${tool.name}`,
          details: "It was not offered to the model.",
        });
      }
    }
    const plan = planToolReply(functionTools, options.toolChoice, {
      maxStringLength: this.maxStringLength,
      maxAnswerLength: this.maxAnswerLength,
    });
    const { history, warnings: promptWarnings } = toChatPrompt(options.prompt, plan?.instructions);
    warnings.push(...promptWarnings);

    let json: PreparedCall["json"];
    if (options.responseFormat?.type === "json") {
      if (plan) {
        warnings.push({
          type: "unsupported",
          feature: "responseFormat json with tools",
          details: "The reply follows the tool-call grammar; the answer text is not constrained to JSON.",
        });
      } else {
        json = { schema: options.responseFormat.schema ?? true };
      }
    }

    const sampling: Sampling = {};
    if (options.maxOutputTokens !== undefined) sampling.maxTokens = options.maxOutputTokens;
    if (options.temperature !== undefined) sampling.temperature = options.temperature;
    if (options.topP !== undefined) sampling.topP = options.topP;
    if (options.topK !== undefined) sampling.topK = options.topK;
    if (options.seed !== undefined) sampling.seed = options.seed;
    const penalties: { presencePenalty?: number; frequencyPenalty?: number } = {};
    for (const name of ["presencePenalty", "frequencyPenalty"] as const) {
      const value = options[name];
      if (value === undefined) continue;
      if (value >= 0 && value <= 1) penalties[name] = value;
      else
        warnings.push({ type: "unsupported", feature: name, details: "llama.cpp takes values from 0 to 1." });
    }
    if (Object.keys(penalties).length > 0) sampling.repeatPenalty = penalties;
    if (options.stopSequences && options.stopSequences.length > 0) {
      if (plan || json) {
        warnings.push({
          type: "unsupported",
          feature: "stopSequences",
          details: "Not applied while a grammar shapes the reply: stopping early would cut the JSON.",
        });
      } else {
        sampling.customStopTriggers = options.stopSequences;
      }
    }
    return { history, warnings, sampling, plan, json, includeRaw: options.includeRawChunks === true };
  }

  private async grammarFor(call: PreparedCall): Promise<LlamaGrammar | undefined> {
    if (call.plan) return this.runtime.grammar(call.plan.schema);
    if (!call.json) return undefined;
    if (call.json.schema === true) return this.runtime.jsonGrammar();
    const set = new GbnfSchemaSet({ maxStringLength: this.maxStringLength });
    return this.runtime.grammar(set.withDefs(set.add(call.json.schema)));
  }

  private async generate(
    call: PreparedCall,
    grammar: LlamaGrammar | undefined,
    lease: SequenceLease,
    signal: AbortSignal,
    emit: (part: LanguageModelV4StreamPart) => void,
  ): Promise<void> {
    const { LlamaChat } = await loadNodeLlamaCpp();
    const chat = new LlamaChat({ contextSequence: lease.sequence, chatWrapper: "auto" });
    const before = lease.sequence.tokenMeter.getState();
    const writer = new StreamPartWriter(emit);
    const reply = call.plan ? new ToolReplyStream() : undefined;
    const toolCallId = `call_${randomUUID()}`;
    let toolStarted = false;
    let toolEnded = false;
    let reasoningTokens = 0;
    let replyStarted = false;
    const onResponseChunk = (chunk: LlamaChatResponseChunk): void => {
      replyStarted = true;
      if (call.includeRaw) emit({ type: "raw", rawValue: chunk });
      if (chunk.type === "segment") {
        reasoningTokens += chunk.tokens.length;
        writer.reasoningDelta(chunk.text);
        return;
      }
      if (call.json) return; // structured output is cleaned and written whole at the end
      if (!reply) {
        writer.textDelta(chunk.text);
        return;
      }
      for (const event of reply.push(chunk.text)) {
        if (event.type === "answer-delta") writer.textDelta(event.delta);
        else if (event.type === "tool-start") {
          toolStarted = true;
          writer.part({ type: "tool-input-start", id: toolCallId, toolName: event.toolName });
        } else if (event.type === "tool-delta")
          writer.part({ type: "tool-input-delta", id: toolCallId, delta: event.delta });
        else {
          toolEnded = true;
          writer.part({ type: "tool-input-end", id: toolCallId });
        }
      }
    };

    // Nothing of the conversation is dropped silently: it fits, or the call fails saying so.
    const shift = refusingContextShift();
    try {
      emit({ type: "stream-start", warnings: call.warnings });
      emit({ type: "response-metadata", modelId: this.modelId, timestamp: new Date() });
      const response = await chat
        .generateResponse(call.history, {
          ...call.sampling,
          ...(grammar ? { grammar } : {}),
          signal: AbortSignal.any([signal, shift.signal]),
          stopOnAbortSignal: false,
          onResponseChunk,
          contextShift: { strategy: shift.strategy },
        })
        .catch((error: unknown) => {
          const { sequence, model } = lease;
          throw explainContextOverflow(
            error,
            sequence.contextSize,
            model.trainContextSize,
            replyStarted,
            this.settings.contextSize,
          );
        });
      if (signal.aborted) throw signal.reason;
      let toolCalled = false;
      let capped = false;
      if (call.plan) {
        const parsed = parseToolReply(response.response, call.plan);
        capped = parsed?.capped === true;
        if (parsed?.type === "tool-call") {
          if (!toolStarted) {
            writer.part({ type: "tool-input-start", id: toolCallId, toolName: parsed.toolName });
            writer.part({ type: "tool-input-delta", id: toolCallId, delta: parsed.input });
          }
          if (!toolEnded) writer.part({ type: "tool-input-end", id: toolCallId });
          writer.part({ type: "tool-call", toolCallId, toolName: parsed.toolName, input: parsed.input });
          toolCalled = true;
        } else if (parsed?.type === "answer" && writer.text === "") {
          writer.textDelta(parsed.text);
        } else if (toolStarted && !toolEnded) {
          writer.part({ type: "tool-input-end", id: toolCallId }); // cut short: no call to run
        }
      } else if (call.json) {
        writer.textDelta(cleanJson(response.response, call.json.schema));
      }
      writer.close();
      emit({
        type: "finish",
        finishReason: finishReason(response.metadata.stopReason, toolCalled, capped),
        usage: usageOf(lease, before, reasoningTokens),
      });
    } finally {
      chat.dispose({ disposeSequence: false });
      lease.release();
    }
  }
}

/** Structured output without the nulls the grammar wrote for omitted optional properties. */
function cleanJson(text: string, schema: unknown): string {
  if (schema === true) return text;
  try {
    return JSON.stringify(dropOmittedNulls(JSON.parse(text), schema));
  } catch {
    return text; // incomplete (cut at the token limit): the caller's JSON parse reports it
  }
}

/** A GGUF file (`gguf:<path>`) as an AI SDK language model; the file loads on the first call. */
export function createGgufModel(file: string, options: GgufModelOptions = {}): GgufLanguageModel {
  return new GgufLanguageModel(file, options);
}
