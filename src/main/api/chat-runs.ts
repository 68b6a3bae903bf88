import type { ChatSend, ChatStarted } from "../../shared/chat-schemas.ts";
import type { RunEventPayload } from "../../shared/push-events.ts";
import type { RunEvent, ToolCallStops } from "../engine/agent/index.ts";
import type { ApprovalMode, Engine, TodoItem } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { agentModule, asApiError, setupChat } from "./chat-setup.ts";
import type { LiveRuns } from "./live-runs.ts";
import type { LiveTasks } from "./live-tasks.ts";
import type { SessionPrompts } from "./session-prompts.ts";

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
  /** The host's approval prompts and questions of chat runs: every UI showing a session shows and may answer them. */
  prompts: SessionPrompts;
  /** The runs' approval mode; without one, the settings' (`approvals.mode`), else "ask". */
  mode?: ApprovalMode;
  /** Sessions with a run going on, shared by every UI of the host: one run per session at a time. */
  busySessions: Set<string>;
  /** The host's runs going on: their events go to every UI from there, and any UI may stop them. */
  live: LiveRuns;
  /** The host's background tasks: any UI may stop one, whether or not the run that started it goes on. */
  tasks: LiveTasks;
}

interface ActiveRun {
  controller: AbortController;
  /** Its tool calls, each of which can be stopped alone. */
  stops: ToolCallStops;
  done: Promise<void>;
}

/** A run that ended while background tasks it started go on: aborting its controller stops them. */
interface Lingering {
  controller: AbortController;
  /** Settles once none of its tasks runs. */
  done: Promise<void>;
}

/** The ids of the tasks an event comes from (a task of a task is nested in its parent's). */
function taskIdsOf(event: RunEvent | RunEventPayload["event"]): string[] {
  return event.type === "task" ? [event.taskId, ...taskIdsOf(event.event)] : [];
}

/**
 * The agent runs one UI started: `send` starts a run on a prompt (its events, and its session's
 * todo list, go to every UI of the host as pushes) and answers once the run has started; `close`
 * stops them all, and the background tasks they started (which may outlive their run), when the
 * UI goes away. `abort`, `stopTool` and `stopTask` reach any run and task of the host (a second
 * tab on the same chat has a Stop too). Approvals and questions go to the host's session prompts:
 * every UI showing the session shows them and may answer them.
 */
export class ChatRuns {
  private readonly options: ChatRunsOptions;
  private readonly runs = new Map<string, ActiveRun>();
  /** Runs that ended while their background tasks go on; the UI going away stops those too. */
  private readonly lingering = new Set<Lingering>();
  private closed = false;

  constructor(options: ChatRunsOptions) {
    this.options = options;
  }

  /** How many runs are going on. */
  get active(): number {
    return this.runs.size;
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
      controller: new AbortController(),
      stops: new ToolCallStops(),
      done: Promise.resolve(),
    };
    let runId = "";
    let index = 0;
    let started: (id: string) => void = () => undefined;
    const whenStarted = new Promise<string>((resolve) => (started = resolve));
    const live = this.options.live;
    /** Every task this run started (and their tasks): a background one may go on after the run. */
    const tasks = new Set<string>();
    const emit = (event: RunEvent | RunEventPayload["event"]): void => {
      for (const id of taskIdsOf(event)) tasks.add(id);
      const start = event.type === "start";
      if (start) {
        runId = event.runId;
        this.runs.set(runId, active);
        live.begin(runId, {
          sessionId,
          prompt: request.prompt,
          controller: active.controller,
          stops: active.stops,
        });
        started(runId);
      }
      live.publish({
        sessionId,
        runId,
        index: index++,
        ...(start ? { prompt: request.prompt } : {}),
        event,
      } as RunEventPayload);
    };
    const onTodos = ({ sessionId: id, todos }: { sessionId: string; todos: TodoItem[] }): void => {
      if (id === sessionId) live.broadcast({ event: "todos.changed", payload: { sessionId, todos } });
    };
    setup.engine.events.on("TodosChanged", onTodos);

    const signal = AbortSignal.any([active.controller.signal, target.signal]);
    const { approver, asker } = this.options.prompts.forRun(sessionId, signal);
    const running = runAgent({
      engine: setup.engine,
      agent: setup.agent,
      model: setup.model,
      prompt: request.prompt,
      sessionId,
      ...(this.options.mode !== undefined ? { mode: this.options.mode } : {}),
      approver,
      asker,
      signal,
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
        live.end(runId);
        busy.delete(sessionId);
        try {
          await setup.release();
        } catch (error) {
          console.error("lathe: closing a run's engine failed:", error);
        }
      });
    target.track(active.done);
    // Its background tasks still work on this engine after the run: the engine is not retired
    // under them, and the UI going away stops them (the run's signal reaches them) and waits.
    const lingering: Lingering = {
      controller: active.controller,
      done: active.done.then(() => setup.engine.tasks.settled(tasks)),
    };
    this.lingering.add(lingering);
    void lingering.done.finally(() => this.lingering.delete(lingering));
    target.track(lingering.done);

    try {
      const first = await Promise.race([whenStarted, running.then((result) => result.runId)]);
      return { sessionId, runId: first };
    } catch (error) {
      throw asApiError(error);
    }
  }

  abort(runId: string): { runId: string; aborted: true } {
    const run = this.options.live.get(runId);
    if (!run) {
      throw new ApiError(`There is no run "${runId}" going on: it already finished, or it never existed.`);
    }
    run.controller.abort(new Error("stopped by the person"));
    return { runId, aborted: true };
  }

  /** Stop one running tool call of a run; the run goes on (the model reads that the call was stopped). */
  stopTool(runId: string, toolCallId: string): { runId: string; toolCallId: string; stopped: true } {
    const run = this.options.live.get(runId);
    if (!run) {
      throw new ApiError(`There is no run "${runId}" going on: it already finished, or it never existed.`);
    }
    if (!run.stops.stop(toolCallId)) {
      throw new ApiError(`The call ${toolCallId} is not running: it already finished, or it never started.`);
    }
    return { runId, toolCallId, stopped: true };
  }

  /** Stop a background task of any UI's run, whether or not that run goes on. */
  stopTask(taskId: string): { taskId: string; stopped: true } {
    return this.options.tasks.stop(taskId);
  }

  /** The UI went away: stop every run and the background tasks they started, and wait until they have all ended. */
  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.runs.values(), ...this.lingering];
    for (const run of runs) run.controller.abort(new Error("the window closed"));
    await Promise.allSettled(runs.map((run) => run.done));
  }
}
