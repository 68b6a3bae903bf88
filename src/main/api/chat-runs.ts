import type { ChatSend, ChatStarted } from "../../shared/chat-schemas.ts";
import type { PushFrame, RunEventPayload } from "../../shared/push-events.ts";
import type { RunEvent, ToolCallStops } from "../engine/agent/index.ts";
import type { ApprovalMode, Approver, Asker, Engine, TodoItem } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { agentModule, asApiError, setupChat } from "./chat-setup.ts";

/** Where a UI's runs go: its current engine, the signal that ends with the UI, and what waits for them. */
interface RunTarget {
  engine: Engine;
  /** Aborts when the UI goes away: every run it started stops. */
  signal: AbortSignal;
  /** Hand a run's promise to whatever must wait for it (an engine is not replaced under it). */
  track(done: Promise<unknown>): void;
}

interface ChatRunsOptions {
  target(): Promise<RunTarget>;
  approver: Approver;
  asker: Asker;
  /** The runs' approval mode; without one, the settings' (`approvals.mode`), else "ask". */
  mode?: ApprovalMode;
  /** Sessions with a run going on, shared by every UI of the host: one run per session at a time. */
  busySessions: Set<string>;
  /** Send one push to this UI; a failure is the sender's to report. */
  push(frame: PushFrame): void;
}

interface ActiveRun {
  sessionId: string;
  controller: AbortController;
  /** Its tool calls, each of which can be stopped alone. */
  stops: ToolCallStops;
  done: Promise<void>;
}

/**
 * The agent runs one UI started: `send` starts a run on a prompt (its events, and its session's
 * todo list, go to this UI as pushes) and answers once the run has started; `abort` stops one;
 * `close` stops them all when the UI goes away. Approvals go to the UI's approval broker and
 * questions to its question broker.
 */
export class ChatRuns {
  private readonly options: ChatRunsOptions;
  private readonly runs = new Map<string, ActiveRun>();
  private closed = false;

  constructor(options: ChatRunsOptions) {
    this.options = options;
  }

  /** How many runs are going on. */
  get active(): number {
    return this.runs.size;
  }

  /** The run going on in a session, if this UI started it. */
  runningIn(sessionId: string): string | undefined {
    for (const [runId, run] of this.runs) if (run.sessionId === sessionId) return runId;
    return undefined;
  }

  async send(request: ChatSend): Promise<ChatStarted> {
    if (this.closed) throw new ApiError("The run was not started: the window closed.");
    const { newSessionId, runAgent, ToolCallStops } = await agentModule();
    const sessionId = request.sessionId ?? newSessionId();
    const busy = this.options.busySessions;
    if (busy.has(sessionId)) {
      throw new ApiError(
        `Session ${sessionId} already has a run going on: wait for it to finish, or press Stop, then send again.`,
      );
    }
    busy.add(sessionId);
    let setup: Awaited<ReturnType<typeof setupChat>>;
    let target: RunTarget;
    try {
      target = await this.options.target();
      const recorded = target.engine.conversations().get(sessionId);
      setup = await setupChat(target.engine, {
        ...(request.agent !== undefined ? { agent: request.agent } : {}),
        ...(request.model !== undefined ? { model: request.model } : {}),
        ...(recorded ? { conversation: { agent: recorded.agent, model: recorded.model } } : {}),
      });
    } catch (error) {
      busy.delete(sessionId);
      throw asApiError(error);
    }

    const active: ActiveRun = {
      sessionId,
      controller: new AbortController(),
      stops: new ToolCallStops(),
      done: Promise.resolve(),
    };
    let runId = "";
    let started: (id: string) => void = () => undefined;
    const whenStarted = new Promise<string>((resolve) => (started = resolve));
    const emit = (event: RunEvent | RunEventPayload["event"]): void => {
      if (event.type === "start") {
        runId = event.runId;
        this.runs.set(runId, active);
        started(runId);
      }
      this.pushSafely({ event: "run.event", payload: { sessionId, runId, event } as RunEventPayload });
    };
    const onTodos = ({ sessionId: id, todos }: { sessionId: string; todos: TodoItem[] }): void => {
      if (id === sessionId) this.pushSafely({ event: "todos.changed", payload: { sessionId, todos } });
    };
    setup.engine.events.on("TodosChanged", onTodos);

    const running = runAgent({
      engine: setup.engine,
      agent: setup.agent,
      model: setup.model,
      prompt: request.prompt,
      sessionId,
      ...(this.options.mode !== undefined ? { mode: this.options.mode } : {}),
      approver: this.options.approver,
      asker: this.options.asker,
      signal: AbortSignal.any([active.controller.signal, target.signal]),
      toolStops: active.stops,
      // What `lathe run` checks before it starts: an embedded model's context against the memory
      // free and the size it was trained for, a local server's model. Said in the run's events.
      preflight: true,
      onEvent: emit,
    });
    active.done = running
      .then(
        () => undefined,
        (error: unknown) => {
          // Before the start the send itself reports the failure.
          if (runId === "") return;
          console.error(`lathe: the run ${runId} in session ${sessionId} failed:`, error);
          const message = error instanceof Error ? error.message : String(error);
          emit({ type: "error", message: `The run failed inside Lathe: ${message}` });
          emit({ type: "finish", status: "failed", finishReason: "error", steps: 0, usage: {} });
        },
      )
      .finally(async () => {
        setup.engine.events.off("TodosChanged", onTodos);
        this.runs.delete(runId);
        busy.delete(sessionId);
        try {
          await setup.release();
        } catch (error) {
          console.error("lathe: closing a run's engine failed:", error);
        }
      });
    target.track(active.done);

    try {
      const first = await Promise.race([whenStarted, running.then((result) => result.runId)]);
      return { sessionId, runId: first };
    } catch (error) {
      throw asApiError(error);
    }
  }

  abort(runId: string): { runId: string; aborted: true } {
    const run = this.runs.get(runId);
    if (!run) {
      throw new ApiError(`There is no run "${runId}" going on: it already finished, or it never existed.`);
    }
    run.controller.abort(new Error("stopped by the person"));
    return { runId, aborted: true };
  }

  /** Stop one running tool call of a run; the run goes on (the model reads that the call was stopped). */
  stopTool(runId: string, toolCallId: string): { runId: string; toolCallId: string; stopped: true } {
    const run = this.runs.get(runId);
    if (!run) {
      throw new ApiError(`There is no run "${runId}" going on: it already finished, or it never existed.`);
    }
    if (!run.stops.stop(toolCallId)) {
      throw new ApiError(`The call ${toolCallId} is not running: it already finished, or it never started.`);
    }
    return { runId, toolCallId, stopped: true };
  }

  /** The UI went away: stop every run and wait until they have all ended. */
  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort(new Error("the window closed"));
    await Promise.allSettled(runs.map((run) => run.done));
  }

  private pushSafely(frame: PushFrame): void {
    try {
      this.options.push(frame);
    } catch (error) {
      console.error(`lathe: could not send the ${frame.event} push:`, error);
    }
  }
}
