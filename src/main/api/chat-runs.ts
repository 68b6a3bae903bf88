import type { ChatSend, ChatStarted } from "../../shared/chat-schemas.ts";
import type { RunEventPayload } from "../../shared/push-events.ts";
import type { RunEvent, ToolCallStops } from "../engine/agent/index.ts";
import type { ApprovalMode, Engine, TodoItem } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { agentModule, asApiError, setupChat } from "./chat-setup.ts";
import type { LiveRuns } from "./live-runs.ts";
import type { LiveTasks } from "./live-tasks.ts";
import type { RunOwners } from "./run-owners.ts";
import type { SessionPrompts } from "./session-prompts.ts";
import { errorMessage } from "../engine/light.ts";

/** Where a UI's runs go: its current engine. */
interface RunTarget {
  engine: Engine;
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
  /**
   * Which tab each run of the host belongs to: this UI's runs (and their background tasks) are
   * its tab's; when the tab goes away they go on a while for it to come back (a reload).
   */
  owners: RunOwners;
  /** The id of the tab this UI is, once the host has said (see LiveTabs). */
  tab: Promise<string>;
}

interface ActiveRun {
  controller: AbortController;
  /** Its tool calls, each of which can be stopped alone. */
  stops: ToolCallStops;
  done: Promise<void>;
}

/** The ids of the tasks an event comes from (a task of a task is nested in its parent's). */
function taskIdsOf(event: RunEvent | RunEventPayload["event"]): string[] {
  return event.type === "task" ? [event.taskId, ...taskIdsOf(event.event)] : [];
}

/**
 * The agent runs of one UI: `send` starts a run on a prompt (its events, and its session's todo
 * list, go to every UI of the host as pushes) and answers once the run has started. The runs it
 * started, and the background tasks they started (which may outlive their run), are this UI's
 * tab's (see RunOwners): when the tab goes away they wait a few seconds for it to come back (a
 * reload), then they stop; `owns` says whether a chat's run is this tab's. `abort`, `stopTool` and `stopTask`
 * reach any run and task of the host (a second tab on the same chat has a Stop too). Approvals and
 * questions go to the host's session prompts: every UI showing the session shows them and may
 * answer them.
 */
export class ChatRuns {
  private readonly options: ChatRunsOptions;
  private closed = false;
  private tab: string | undefined;

  constructor(options: ChatRunsOptions) {
    this.options = options;
    options.tab.then(
      (tab) => (this.tab = tab),
      () => undefined,
    );
  }

  /** How many runs (or background tasks they started) are this UI's tab's and going on. */
  get active(): number {
    return this.tab === undefined ? 0 : this.options.owners.count(this.tab);
  }

  /**
   * Whether a run going on in chat session `sessionId` is this UI's tab's (it started it, maybe
   * before a reload of the tab).
   */
  async owns(sessionId: string): Promise<boolean> {
    const tab = await this.options.tab;
    return !this.closed && this.options.owners.owns(tab, sessionId);
  }

  async send(request: ChatSend): Promise<ChatStarted> {
    if (this.closed) throw new ApiError("The run was not started: the window closed.");
    const { newSessionId, runAgent, ToolCallStops } = await agentModule();
    const tab = await this.options.tab;
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
        ...(recorded
          ? {
              conversation: {
                sessionId,
                root: recorded.root,
                agent: recorded.agent,
                model: recorded.model,
              },
            }
          : {}),
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

    const signal = active.controller.signal;
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
      notices: setup.notices,
      onEvent: emit,
    });
    active.done = running
      .then(
        () => undefined,
        (error: unknown) => {
          // Before the start the send itself reports the failure.
          if (runId === "") return;
          console.error(`lathe: the run ${runId} in session ${sessionId} failed:`, error);
          const message = errorMessage(error);
          emit({ type: "error", message: `The run failed inside Lathe: ${message}` });
          emit({ type: "finish", status: "failed", finishReason: "error", steps: 0, usage: {} });
        },
      )
      .finally(async () => {
        setup.engine.events.off("TodosChanged", onTodos);
        live.end(runId);
        busy.delete(sessionId);
        try {
          await setup.release();
        } catch (error) {
          console.error("lathe: closing a run's engine failed:", error);
        }
      });
    // The run, and its background tasks that still work on this engine after it, are this UI's
    // tab's: the engine is not retired under them, and stopping them (the run's signal reaches the
    // tasks) is for whoever owns them. If the tab went away meanwhile, they wait for it like the others.
    this.options.owners.own(tab, {
      sessionId,
      engine: setup.engine,
      stop: (reason) => active.controller.abort(reason),
      done: active.done.then(() => setup.engine.tasks.settled(tasks)),
    });

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

  /**
   * The UI went away (closed, reloading, or its connection dropped): it starts nothing more. Its
   * tab's runs and their background tasks go on for the host's grace period, for the tab to come
   * back (LiveTabs lets them wait); those whose tab does not come back then stop, saying why.
   */
  close(): void {
    this.closed = true;
  }
}
