import type { EngineEvents, ToolInvocationStarted } from "../engine-events.ts";
import type { AuditLog } from "../store/audit-log.ts";
import type { CallObserver, CallRecord } from "../tools/call-tool.ts";
import { redactSecrets, redactText } from "./redact.ts";

const ENVELOPE_HEAD_CHARS = 2_000;
/**
 * Strings in the arguments events carry and the audit stores are cut past this: a host shows
 * the start of a huge write's content, the audit keeps it, and neither costs the event loop
 * time in proportion to it (redacting and storing 30 MB took over a second).
 */
export const RECORDED_STRING_CHARS = 64 * 1024;

/**
 * Turns every invocation into events for hosts and one audit row: who called what, from which
 * layer, with which (redacted) arguments, what each stage decided and why, and how it ended.
 */
export function callRecorder(
  sessionId: string,
  events: EngineEvents,
  audit: () => AuditLog | undefined,
): CallObserver {
  const started = new Map<string, ToolInvocationStarted>();
  return {
    started(call: CallRecord) {
      const event: ToolInvocationStarted = {
        callId: call.callId,
        sessionId,
        toolId: call.toolId,
        origin: call.entry?.origin,
        args: redactSecrets(call.args, RECORDED_STRING_CHARS),
        startedAt: call.startedAt,
      };
      started.set(call.callId, event);
      if (events.listenerCount("ToolInvocationStarted") > 0) events.emit("ToolInvocationStarted", event);
    },
    finished(call, envelope, decisions) {
      const begin = started.get(call.callId);
      started.delete(call.callId);
      const args = redactSecrets(call.args, RECORDED_STRING_CHARS);
      const finished = { ...(begin as ToolInvocationStarted), args, envelope, decisions };
      events.emit(envelope.type === "output" ? "ToolInvocationSucceeded" : "ToolInvocationFailed", finished);
      const log = audit();
      if (!log) return;
      const head = JSON.stringify(envelope);
      log.record({
        callId: call.callId,
        sessionId,
        toolId: call.toolId,
        originLayer: call.entry?.origin.layer ?? null,
        originKind: call.entry?.origin.kind ?? null,
        originName: call.entry?.origin.name ?? null,
        descriptorHash: call.entry?.descriptorHash ?? null,
        argsJson: JSON.stringify(args) ?? "null",
        decisionsJson: redactText(JSON.stringify(decisions)),
        outcome: envelope.type,
        envelopeHead: redactText(
          head.length > ENVELOPE_HEAD_CHARS ? `${head.slice(0, ENVELOPE_HEAD_CHARS)}…` : head,
        ),
        durationMs: envelope.metadata.duration_ms,
        startedAt: call.startedAt,
      });
    },
  };
}
