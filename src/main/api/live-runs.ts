import type { PushFrame, RunEventPayload } from "../../shared/push-events.ts";
import type { RunEvent } from "../../shared/run-event-schema.ts";
import type { ToolCallStops } from "../engine/agent/index.ts";

/** A run going on, as every UI of the host may stop it. */
export interface LiveRunControl {
  sessionId: string;
  /** The person's prompt that started it. */
  prompt: string;
  /** Aborts the run (the model stream and its tools). */
  controller: AbortController;
  /** Its tool calls, each of which can be stopped alone. */
  stops: ToolCallStops;
}

/** A run going on, as a UI that opens its session redraws it. */
export interface LiveRunView {
  runId: string;
  prompt: string;
  /** Its events so far, in order (consecutive text of a step as one event). */
  events: RunEvent[];
  /** The `index` of the next push of this run: the pushes below it are in `events`. */
  nextIndex: number;
}

interface Entry extends LiveRunControl {
  events: RunEvent[];
  nextIndex: number;
}

/**
 * The chat runs going on in a host, whichever UI started them, and the UIs that follow them.
 * Every UI gets every run's events (each shows the ones of the session it has open), any UI can
 * stop a run, and a UI that opens a session while its run goes on redraws it from here: the
 * record on disk lags the stream. A run leaves with its finish event.
 */
export class LiveRuns {
  private readonly runs = new Map<string, Entry>();
  private readonly listeners = new Set<(frame: PushFrame) => void>();

  /** Send every run's events (and todo lists) to `listener` from now on; returns the function that stops. */
  listen(listener: (frame: PushFrame) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A run began (its start event is published next). */
  begin(runId: string, run: LiveRunControl): void {
    this.runs.set(runId, { ...run, events: [], nextIndex: 0 });
  }

  /** Keep one event of a run (its push carries `index`) and send it to every listener. */
  publish(payload: RunEventPayload): void {
    const entry = this.runs.get(payload.runId);
    if (entry) {
      keep(entry.events, payload.event);
      entry.nextIndex = payload.index + 1;
      if (payload.event.type === "finish") this.runs.delete(payload.runId);
    }
    this.broadcast({ event: "run.event", payload });
  }

  /** Send a push about a run's session (its todo list) to every listener. */
  broadcast(frame: PushFrame): void {
    for (const listener of [...this.listeners]) listener(frame);
  }

  /** The run has ended (normally already gone with its finish event). */
  end(runId: string): void {
    this.runs.delete(runId);
  }

  get(runId: string): LiveRunControl | undefined {
    return this.runs.get(runId);
  }

  /** The run going on in a session, with its events so far. */
  inSession(sessionId: string): LiveRunView | undefined {
    for (const [runId, entry] of this.runs) {
      if (entry.sessionId === sessionId) {
        return { runId, prompt: entry.prompt, events: [...entry.events], nextIndex: entry.nextIndex };
      }
    }
    return undefined;
  }
}

/** Append an event, joining plain text (or reasoning) to the step's text just before it. */
function keep(events: RunEvent[], event: RunEvent): void {
  const last = events.at(-1);
  if (
    (event.type === "text" || event.type === "reasoning") &&
    last?.type === event.type &&
    last.step === event.step &&
    last.cutOff === undefined &&
    event.cutOff === undefined
  ) {
    events[events.length - 1] = { ...last, text: last.text + event.text };
    return;
  }
  events.push(event);
}
