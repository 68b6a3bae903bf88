import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from "ai";
import { HEADLESS_QUESTION_ERROR } from "../builtin/question.ts";
import type { Session } from "../session/session.ts";
import type { StageRecord } from "../tools/call-decision.ts";
import type { Envelope } from "../tools/envelope.ts";
import { modelSchema } from "../tools/model-schema.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import { envelopeOutput, type OutputOptions } from "./model-messages.ts";
import type { RunBudget } from "./run-budget.ts";
import type { RunEvent } from "./run-events.ts";
import { RepeatedFailures } from "./repeated-failures.ts";
import type { ToolCallStops } from "./tool-call-stops.ts";
import type { ToolVisibility } from "./tool-visibility.ts";
import { errorMessage } from "../errors/error-message.ts";

interface ToolBridgeOptions {
  session: Session;
  registry: ToolRegistry;
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

interface ModelToolCall {
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
 * reach the engine: every call goes through `session.invoke` (validation, policy, scheduler,
 * timeout, truncation, audit) under the model's id for it, so parallel calls of one step are
 * ordered by the session's scheduler, and what the approval stage decided comes back with the
 * envelope. Calls to tools the agent
 * may not use are refused here again even if the model names them, and budgets are enforced
 * here, both as error envelopes the model reads.
 */
export class ToolBridge {
  readonly tools: ToolSet;
  private readonly options: ToolBridgeOptions;
  private readonly inFlight = new Set<Promise<Envelope>>();
  /** The model's ids of the calls dispatched so far (each announced by its own tool-call event). */
  private readonly dispatched = new Set<string>();
  /** The run's failed calls, counted: a model repeating one is told, then stopped (see stopReason). */
  private readonly failures = new RepeatedFailures();

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
  }

  /** Why the run must stop: the model kept making a call that failed the same way. */
  stopReason(): Error | undefined {
    return this.failures.stopReason;
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
    this.dispatched.add(call.toolCallId);
    const running = this.run(call, signal);
    this.inFlight.add(running);
    const done = (): void => void this.inFlight.delete(running);
    running.then(done, done);
    return running;
  }

  /** Whether the call was dispatched (announced, and run or refused here). */
  started(toolCallId: string): boolean {
    return this.dispatched.has(toolCallId);
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
    let denied = false;
    if (refused !== undefined) {
      envelope = refusal(refused);
    } else {
      const own = this.options.stops?.begin(call.toolCallId);
      const signals = [this.options.signal, signal, own].filter((s) => s !== undefined);
      const stop = signals.length === 1 ? this.options.signal : AbortSignal.any(signals);
      let running: Promise<{ envelope: Envelope; decisions: readonly StageRecord[] }>;
      try {
        running = session.invoke({
          toolId: call.toolName,
          args: call.input,
          signal: stop,
          correlationId: call.toolCallId,
          onPhase: (phase) =>
            emit({ type: "tool-phase", step, toolCallId: call.toolCallId, toolName: call.toolName, phase }),
        });
      } catch (err) {
        running = Promise.reject(err);
      }
      let decisions: readonly StageRecord[] = [];
      try {
        ({ envelope, decisions } = await running);
      } catch (err) {
        // session.invoke resolves to an envelope for everything a call can do; this is a runtime bug.
        envelope = refusal(`${call.toolName} failed inside Lathe: ${errorMessage(err)}`);
      } finally {
        this.options.stops?.end(call.toolCallId);
      }
      this.reportApprovals(call, step, decisions);
      denied = envelope.type === "error" && decisions.some((d) => d.outcome === "deny");
    }
    // Refused for being headless, that is: a question with arguments that do not fit is an error
    // the model fixes, as for any tool.
    if (
      this.options.headless &&
      call.toolName === "question" &&
      envelope.type === "error" &&
      envelope.error_text === HEADLESS_QUESTION_ERROR
    ) {
      emit({ type: "question-refused", step, toolCallId: call.toolCallId, message: envelope.error_text });
    }
    envelope = this.failures.note(call.toolName, call.input, envelope, step);
    emit({
      type: "tool-result",
      step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      envelope,
      ...(denied ? { denied: true as const } : {}),
    });
    return envelope;
  }

  /** What the approval stage decided for a call, as run events (a tool that is not gated never asks). */
  private reportApprovals(call: ModelToolCall, step: number, decisions: readonly StageRecord[]): void {
    if (!this.options.registry.get(call.toolName)?.tool.gated) return;
    for (const decision of decisions) {
      if (decision.stage !== "approval" || decision.outcome === "ask") continue;
      this.options.emit({
        type: "approval",
        step,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        decision: decision.outcome,
        reason: decision.reason,
      });
    }
  }
}
