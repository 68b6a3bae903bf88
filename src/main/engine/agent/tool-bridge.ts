import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from "ai";
import type { EngineEvents, ToolInvocationFinished, ToolInvocationStarted } from "../engine-events.ts";
import type { Session } from "../session/session.ts";
import type { Envelope } from "../tools/envelope.ts";
import { modelSchema } from "../tools/model-schema.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import { envelopeOutput, type OutputOptions } from "./model-messages.ts";
import type { RunBudget } from "./run-budget.ts";
import type { RunEvent } from "./run-events.ts";
import type { ToolCallStops } from "./tool-call-stops.ts";
import type { ToolVisibility } from "./tool-visibility.ts";

export interface ToolBridgeOptions {
  session: Session;
  registry: ToolRegistry;
  /** The engine's events: approval decisions are read from its invocation events. */
  events: EngineEvents;
  visibility: ToolVisibility;
  budget: RunBudget;
  /** The run's signal: aborting it stops every call in flight. */
  signal: AbortSignal;
  /** Where the host stops one call alone (its card's Stop button). */
  stops?: ToolCallStops;
  /** No one can answer questions (CLI, CI): a failed `question` call is a refusal. */
  headless: boolean;
  /** The model takes images: images tools saved go to it with their envelope. */
  modelAcceptsImages?: boolean;
  /** The model step calls belong to. */
  step(): number;
  emit(event: RunEvent): void;
}

export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

function refusal(text: string): Envelope {
  return { type: "error", error_text: text, metadata: { duration_ms: 0 } };
}

/**
 * The registry as AI SDK tools (every enabled tool the agent may use; which of them the model is
 * shown at each step is the session's tool exposure's call), and the one way the model's calls
 * reach the engine: every call
 * goes through `session.call` (validation, policy, scheduler, timeout, truncation, audit), so
 * parallel calls of one step are ordered by the session's scheduler. Calls to tools the agent
 * may not use are refused here again even if the model names them, and budgets are enforced
 * here, both as error envelopes the model reads.
 */
export class ToolBridge {
  readonly tools: ToolSet;
  private readonly options: ToolBridgeOptions;
  /** The model's call id of the call being handed to the engine (its Started event fires synchronously). */
  private pending: string | undefined;
  private readonly byEngineCall = new Map<string, { toolCallId: string; step: number }>();
  private readonly inFlight = new Set<Promise<Envelope>>();
  private readonly onStarted = (event: ToolInvocationStarted): void => {
    if (this.pending !== undefined && event.sessionId === this.options.session.id) {
      this.byEngineCall.set(event.callId, { toolCallId: this.pending, step: this.options.step() });
    }
  };
  private readonly onFinished = (event: ToolInvocationFinished): void => {
    const call = this.byEngineCall.get(event.callId);
    if (!call) return;
    this.byEngineCall.delete(event.callId);
    // A tool that is not gated never asks: its "approval" record is only bookkeeping.
    if (!this.options.registry.get(event.toolId)?.tool.gated) return;
    for (const decision of event.decisions) {
      if (decision.stage !== "approval" || decision.outcome === "ask") continue;
      this.options.emit({
        type: "approval",
        step: call.step,
        toolCallId: call.toolCallId,
        toolName: event.toolId,
        decision: decision.outcome,
        reason: decision.reason,
      });
    }
  };

  constructor(options: ToolBridgeOptions) {
    this.options = options;
    this.tools = {};
    const output: OutputOptions = options.modelAcceptsImages
      ? { images: { sidecarDir: options.session.state.sidecarDir } }
      : {};
    for (const { tool } of options.registry.all()) {
      if (!tool.enabled || !options.visibility.visible(tool.id)) continue;
      const id = tool.id;
      this.tools[id] = dynamicTool({
        description: tool.description,
        // The model sees the compact schema; session.call validates against the full one.
        inputSchema: jsonSchema(modelSchema(tool.parameters) as JSONSchema7),
        execute: (input, { toolCallId, abortSignal }) =>
          this.dispatch({ toolCallId, toolName: id, input }, abortSignal),
        toModelOutput: ({ output: envelope }) => envelopeOutput(envelope as Envelope, output),
      });
    }
    options.events.on("ToolInvocationStarted", this.onStarted);
    options.events.on("ToolInvocationSucceeded", this.onFinished);
    options.events.on("ToolInvocationFailed", this.onFinished);
  }

  /** The model's id of a call in flight, from the engine's id of it (ToolInvocation events, `runtime.callId`). */
  toolCallIdOf(callId: string): string | undefined {
    return this.byEngineCall.get(callId)?.toolCallId;
  }

  /** The ids of the tools the agent may call. */
  get toolIds(): string[] {
    return Object.keys(this.tools);
  }

  private check(toolName: string): string | undefined {
    const { visibility, budget } = this.options;
    if (!visibility.visible(toolName)) {
      const offered = this.toolIds;
      return `Tool "${toolName}" is not available: ${visibility.reason(toolName)}. ${offered.length > 0 ? `Use one of: ${offered.join(", ")}.` : "This agent has no tools: answer in text."}`;
    }
    return budget.take(toolName);
  }

  /** Run one call the model made and return the envelope it will read. Never throws. */
  dispatch(call: ModelToolCall, signal?: AbortSignal): Promise<Envelope> {
    const running = this.run(call, signal);
    this.inFlight.add(running);
    const done = (): void => void this.inFlight.delete(running);
    running.then(done, done);
    return running;
  }

  /** Resolves once every dispatched call has its envelope (after an abort: once all have stopped). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async run(call: ModelToolCall, signal: AbortSignal | undefined): Promise<Envelope> {
    const { session, emit } = this.options;
    const step = this.options.step();
    emit({
      type: "tool-call",
      step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
    const refused = this.check(call.toolName);
    let envelope: Envelope;
    if (refused !== undefined) {
      envelope = refusal(refused);
    } else {
      const own = this.options.stops?.begin(call.toolCallId);
      const signals = [this.options.signal, signal, own].filter((s) => s !== undefined);
      const stop = signals.length === 1 ? this.options.signal : AbortSignal.any(signals);
      this.pending = call.toolCallId;
      let running: Promise<Envelope>;
      try {
        running = session.call(call.toolName, call.input, { signal: stop, toolCallId: call.toolCallId });
      } catch (err) {
        running = Promise.reject(err);
      } finally {
        this.pending = undefined;
      }
      try {
        envelope = await running;
      } catch (err) {
        // session.call resolves to an envelope for everything a call can do; this is a runtime bug.
        envelope = refusal(
          `${call.toolName} failed inside Lathe: ${err instanceof Error ? err.message : String(err)}`,
        );
      } finally {
        this.options.stops?.end(call.toolCallId);
      }
    }
    if (this.options.headless && call.toolName === "question" && envelope.type === "error") {
      emit({ type: "question-refused", step, toolCallId: call.toolCallId, message: envelope.error_text });
    }
    emit({ type: "tool-result", step, toolCallId: call.toolCallId, toolName: call.toolName, envelope });
    return envelope;
  }

  dispose(): void {
    this.options.events.off("ToolInvocationStarted", this.onStarted);
    this.options.events.off("ToolInvocationSucceeded", this.onFinished);
    this.options.events.off("ToolInvocationFailed", this.onFinished);
  }
}
