import { randomUUID } from "node:crypto";
import type { FsCapability } from "../capability/fs-capability.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { PlannedAccess, ResolvedAccess } from "../policy/call-plan.ts";
import type { PolicyResult, StageRecord } from "../policy/call-policy.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import type { SessionState } from "../session/session-state.ts";
import { validateArguments } from "./argument-validator.ts";
import type { AnyTool, ToolRuntime } from "./contract.ts";
import { errorEnvelope, outputEnvelope, type Envelope, type EnvelopeMetadata } from "./envelope.ts";
import type { Scheduler } from "./scheduler.ts";
import type { RegisteredTool, ToolRegistry } from "./tool-registry.ts";
import { isSelfTruncated } from "./truncation.ts";

/** One invocation as observers (events, audit) see it. */
export interface CallRecord {
  callId: string;
  toolId: string;
  entry: RegisteredTool | undefined;
  args: unknown;
  startedAt: number;
}

export interface CallObserver {
  started(call: CallRecord): void;
  finished(call: CallRecord, envelope: Envelope, stages: readonly StageRecord[]): void;
}

/** What one call needs from its session. */
export interface CallContext {
  readonly registry: ToolRegistry;
  readonly session: SessionState;
  readonly scheduler: Scheduler;
  readonly root: string;
  /** The OS sandbox for the processes this session's tools start. */
  readonly sandbox: ProcessSandbox;
  capabilityFor(tool: AnyTool): FsCapability;
  /** Capability check, rules, watchdog and approval; absent means every valid call runs. */
  decide?(
    entry: RegisteredTool,
    args: unknown,
    fs: FsCapability,
    signal?: AbortSignal,
  ): Promise<PolicyResult>;
  /** The same stages for an access a tool makes while running. */
  authorize?(
    entry: RegisteredTool,
    access: PlannedAccess,
    fs: FsCapability,
    signal?: AbortSignal,
  ): Promise<ResolvedAccess>;
  observer?: CallObserver;
  /** Told about failures that are the runtime's fault rather than the model's. */
  onInternalError?(toolId: string, error: unknown): void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

class CallStopped extends Error {}

function parseArguments(raw: unknown): { args?: unknown; error?: string } {
  if (typeof raw !== "string") return { args: raw ?? {} };
  const text = raw.trim();
  if (text === "") return { args: {} };
  try {
    return { args: JSON.parse(text) };
  } catch (err) {
    return {
      error: `The arguments are not valid JSON (${(err as Error).message}). Send one JSON object that matches the tool's parameters.`,
    };
  }
}

function stopWhenAborted(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(new CallStopped());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort as () => void) };
}

function errorText(toolId: string, err: unknown, ctx: CallContext): string {
  if (ToolCallError.isInstance(err)) return err.message;
  ctx.onInternalError?.(toolId, err);
  const message = err instanceof Error ? err.message : String(err);
  const code =
    LatheError.isInstance(err) || !(err instanceof Error) ? "" : ((err as NodeJS.ErrnoException).code ?? "");
  return `${toolId} failed: ${message}${code && !message.includes(code) ? ` (${code})` : ""}`;
}

async function executeBounded(
  entry: RegisteredTool,
  args: unknown,
  ctx: CallContext,
  fs: FsCapability,
  outer: AbortSignal | undefined,
  callId: string,
): Promise<{ data?: unknown; error?: string }> {
  const { tool } = entry;
  if (outer?.aborted) return { error: `${tool.id} was aborted before it started; nothing was done.` };
  const controller = new AbortController();
  const timeoutMs = tool.callTimeoutMs?.(args) ?? tool.timeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const forward = (): void => controller.abort(outer?.reason);
  outer?.addEventListener("abort", forward, { once: true });
  const stop = stopWhenAborted(controller.signal);
  try {
    const runtime: ToolRuntime = {
      signal: controller.signal,
      callId,
      fs,
      session: ctx.session,
      root: ctx.root,
      sandbox: ctx.sandbox,
      authorize: async (access) => {
        if (!ctx.authorize)
          throw new ToolCallError(`${tool.id} may not make ${access.capability} calls here.`);
        return ctx.authorize(entry, access, fs, controller.signal);
      },
    };
    return { data: await Promise.race([tool.execute(args, runtime), stop.promise]) };
  } catch (err) {
    if (err instanceof CallStopped || controller.signal.aborted) {
      return timedOut
        ? {
            error: `${tool.id} timed out after ${timeoutMs} ms and was stopped. Narrow the request and try again.`,
          }
        : {
            error: `${tool.id} was aborted${outer?.reason instanceof Error ? `: ${outer.reason.message}` : ""}.`,
          };
    }
    return { error: errorText(tool.id, err, ctx) };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", forward);
    stop.dispose();
  }
}

async function run(
  ctx: CallContext,
  record: CallRecord,
  rawArgs: unknown,
  options: CallOptions,
  started: number,
  stages: StageRecord[],
): Promise<Envelope> {
  const meta = (): EnvelopeMetadata => ({ duration_ms: Math.round(performance.now() - started) });
  const entry = record.entry;
  if (!entry) {
    const known = ctx.registry.ids();
    return errorEnvelope(
      `Unknown tool "${record.toolId}". Available tools: ${known.length > 0 ? known.join(", ") : "none"}.`,
      meta(),
    );
  }
  const { tool } = entry;
  if (!tool.enabled) return errorEnvelope(`Tool "${tool.id}" is disabled.`, meta());
  const parsed = parseArguments(rawArgs);
  if (parsed.error !== undefined) return errorEnvelope(parsed.error, meta());
  record.args = parsed.args;
  const invalid = validateArguments(tool.id, tool.parameters, parsed.args);
  if (invalid !== undefined) return errorEnvelope(invalid, meta());

  const fs = ctx.capabilityFor(tool);
  // The scheduler slot is taken now, when the call is issued, and the policy decides inside it:
  // a write whose approval takes a while still runs before a write issued after it.
  const outcome = await ctx.scheduler.run(tool.readOnly, async () => {
    if (ctx.decide) {
      let decision: PolicyResult;
      try {
        decision = await ctx.decide(entry, parsed.args, fs, options.signal);
      } catch (err) {
        return { error: errorText(tool.id, err, ctx) };
      }
      stages.push(...decision.stages);
      if (!decision.allowed) return { error: decision.errorText ?? `${tool.id} was not allowed.` };
    }
    return executeBounded(entry, parsed.args, ctx, fs, options.signal, record.callId);
  });
  if (outcome.error !== undefined) return errorEnvelope(outcome.error, meta());

  const data = outcome.data;
  if (isSelfTruncated(data)) {
    return outputEnvelope(data.data, { ...meta(), truncated: true, output_path: data.outputPath });
  }
  const cut = tool.truncate?.(data);
  if (!cut) return outputEnvelope(data, meta());
  try {
    const outputPath = await ctx.session.writeSidecar(tool.id, cut.full);
    return outputEnvelope(cut.data, { ...meta(), truncated: true, output_path: outputPath });
  } catch (err) {
    ctx.onInternalError?.(tool.id, err);
    return outputEnvelope(cut.data, { ...meta(), truncated: true });
  }
}

/**
 * One tool call, end to end: lookup, JSON parsing, schema validation, the policy (capability
 * check, rules, watchdog, approval), scheduling, execution under an abort signal and a timeout,
 * truncation to a sidecar, and the envelope, recorded by the observer. Never throws for
 * anything the model sent; every outcome is an envelope.
 */
export async function callTool(
  ctx: CallContext,
  toolId: string,
  rawArgs: unknown,
  options: CallOptions = {},
): Promise<Envelope> {
  const started = performance.now();
  const record: CallRecord = {
    callId: randomUUID(),
    toolId,
    entry: ctx.registry.get(toolId),
    args: rawArgs,
    startedAt: Date.now(),
  };
  const stages: StageRecord[] = [];
  ctx.observer?.started(record);
  const envelope = await run(ctx, record, rawArgs, options, started, stages);
  ctx.observer?.finished(record, envelope, stages);
  return envelope;
}
