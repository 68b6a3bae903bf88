import type { EngineEvents, ToolInvocationStarted } from "../engine-events.ts";
import type { AuditLog } from "../store/audit-log.ts";
import type { CallObserver, CallRecord } from "../tools/call-tool.ts";
import { jsonHead } from "./json-head.ts";
import { redactSecrets } from "./redact.ts";
import { errorMessage } from "../errors/error-message.ts";

const ENVELOPE_HEAD_CHARS = 2_000;
/**
 * Strings in the arguments events carry and the audit stores are cut past this: a host shows
 * the start of a huge write's content, the audit keeps it, and neither costs the event loop
 * time in proportion to it (redacting and storing 30 MB took over a second).
 */
const RECORDED_STRING_CHARS = 64 * 1024;

/** A value as stored and shown: redacted, or a note when it cannot even be read. */
function redacted(value: unknown, maxChars: number, what: string): unknown {
  try {
    return redactSecrets(value, maxChars);
  } catch (err) {
    return `[${what} could not be read: ${errorMessage(err)}]`;
  }
}

/** The arguments as stored and shown. */
const shownArgs = (args: unknown): unknown => redacted(args, RECORDED_STRING_CHARS, "the arguments");

/**
 * The envelope's JSON as the audit keeps its head: only the part of the envelope in the head is
 * redacted (a glob's 20,000 paths took 25 ms to redact whole), unless masks shortened that part
 * below the head's length, when the whole is.
 */
function envelopeHead(envelope: unknown): string {
  const { head, cut } = jsonHead(envelope, ENVELOPE_HEAD_CHARS);
  const text = safeJson(redacted(head, ENVELOPE_HEAD_CHARS, "the envelope"));
  if (!cut || text.length > ENVELOPE_HEAD_CHARS) return text;
  return safeJson(redacted(envelope, ENVELOPE_HEAD_CHARS, "the envelope"));
}

/** JSON text of a value, or a note saying why there is none: recording a call never throws on its data. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch (err) {
    return JSON.stringify(`[not serializable: ${errorMessage(err)}]`);
  }
}

/**
 * Turns every invocation into events for hosts and one audit row: who called what, in which
 * folder (`root`, the engine's real path), from which layer, with which (redacted) arguments,
 * what each stage decided and why, and how it ended.
 */
export function callRecorder(
  sessionId: string,
  root: string,
  events: EngineEvents,
  audit: () => AuditLog | undefined,
): CallObserver {
  const started = new Map<string, ToolInvocationStarted>();
  return {
    unrecordable() {
      const failed = audit()?.unwritable();
      return failed ? errorMessage(failed.error) : undefined;
    },
    started(call: CallRecord) {
      const event: ToolInvocationStarted = {
        callId: call.callId,
        sessionId,
        toolId: call.toolId,
        origin: call.entry?.origin,
        args: shownArgs(call.args),
        startedAt: call.startedAt,
      };
      started.set(call.callId, event);
      if (events.listenerCount("ToolInvocationStarted") > 0) events.emit("ToolInvocationStarted", event);
    },
    phase(call, phase) {
      if (events.listenerCount("ToolInvocationPhase") === 0) return;
      events.emit("ToolInvocationPhase", { callId: call.callId, sessionId, toolId: call.toolId, phase });
    },
    finished(call, envelope, decisions) {
      const begin = started.get(call.callId);
      started.delete(call.callId);
      const args = shownArgs(call.args);
      // The audit row first: an event listener that throws below must not cost the row.
      const log = audit();
      if (log) {
        // Redacted as values, then written as JSON: a mask never breaks the JSON a view parses,
        // and a secret the head's cut goes through was masked whole before the cut.
        const head = envelopeHead(envelope);
        log.record({
          callId: call.callId,
          sessionId,
          root,
          toolId: call.toolId,
          originLayer: call.entry?.origin.layer ?? null,
          originKind: call.entry?.origin.kind ?? null,
          originName: call.entry?.origin.name ?? null,
          descriptorHash: call.entry?.descriptorHash ?? null,
          argsJson: safeJson(args),
          decisionsJson: safeJson(redacted(decisions, RECORDED_STRING_CHARS, "the decisions")),
          outcome: envelope.type,
          envelopeHead: head.length > ENVELOPE_HEAD_CHARS ? `${head.slice(0, ENVELOPE_HEAD_CHARS)}…` : head,
          durationMs: envelope.metadata.duration_ms,
          startedAt: call.startedAt,
        });
      }
      const finished = {
        ...(begin ?? {
          callId: call.callId,
          sessionId,
          toolId: call.toolId,
          origin: call.entry?.origin,
          startedAt: call.startedAt,
        }),
        args,
        envelope,
        decisions,
      };
      events.emit(envelope.type === "output" ? "ToolInvocationSucceeded" : "ToolInvocationFailed", finished);
    },
  };
}
