import type { PushFrame, ToolFinished, ToolStarted } from "../../shared/push-events.ts";
import type {
  Checkpoint,
  Engine,
  ToolInvocationFinished,
  ToolInvocationPhase,
  ToolInvocationStarted,
} from "../engine/index.ts";

function toolStartedPayload(event: ToolInvocationStarted): ToolStarted {
  return {
    callId: event.callId,
    sessionId: event.sessionId,
    toolId: event.toolId,
    ...(event.origin ? { origin: { ...event.origin } } : {}),
    args: event.args,
    startedAt: event.startedAt,
  };
}

function toolFinishedPayload(event: ToolInvocationFinished): ToolFinished {
  return {
    ...toolStartedPayload(event),
    envelope: event.envelope,
    decisions: event.decisions.map((d) => ({ stage: d.stage, outcome: d.outcome, reason: d.reason })),
  };
}

/**
 * Forward one session's tool invocations (and only that session's) from the engine's event bus
 * as `tool.started` / `tool.phase` / `tool.finished` pushes. Returns the function that stops
 * forwarding.
 */
export function forwardToolActivity(
  engine: Engine,
  sessionId: string,
  push: (frame: PushFrame) => void,
): () => void {
  const started = (event: ToolInvocationStarted): void => {
    if (event.sessionId === sessionId) push({ event: "tool.started", payload: toolStartedPayload(event) });
  };
  const finished = (event: ToolInvocationFinished): void => {
    if (event.sessionId === sessionId) push({ event: "tool.finished", payload: toolFinishedPayload(event) });
  };
  const phased = ({ callId, sessionId: of, toolId, phase }: ToolInvocationPhase): void => {
    if (of === sessionId) push({ event: "tool.phase", payload: { callId, sessionId, toolId, phase } });
  };
  engine.events.on("ToolInvocationStarted", started);
  engine.events.on("ToolInvocationPhase", phased);
  engine.events.on("ToolInvocationSucceeded", finished);
  engine.events.on("ToolInvocationFailed", finished);
  return () => {
    engine.events.off("ToolInvocationStarted", started);
    engine.events.off("ToolInvocationPhase", phased);
    engine.events.off("ToolInvocationSucceeded", finished);
    engine.events.off("ToolInvocationFailed", finished);
  };
}

/**
 * Forward every checkpoint the engine records (a call changed files, a restore or rewind replaced
 * some) as a `checkpoints.changed` push, so a chat on screen can offer to restore it. Returns the
 * function that stops forwarding.
 */
export function forwardCheckpoints(engine: Engine, push: (frame: PushFrame) => void): () => void {
  const recorded = (checkpoint: Checkpoint): void =>
    push({
      event: "checkpoints.changed",
      payload: { sessionId: checkpoint.sessionId, checkpointId: checkpoint.id },
    });
  engine.events.on("CheckpointRecorded", recorded);
  return () => engine.events.off("CheckpointRecorded", recorded);
}
