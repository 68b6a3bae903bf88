import { randomUUID } from "node:crypto";
import type { FsCapability } from "../capability/fs-capability.ts";
import type { CallCheckpoints, OpenCheckpoint } from "../checkpoints/session-checkpoints.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import { checkArguments, type ArgumentCheck } from "./argument-check.ts";
import type { PolicyResult, StageRecord } from "./call-decision.ts";
import { phaseReporter, type CallPhase, type CallPhaseListener } from "./call-phase.ts";
import type { CallPlan, PlannedAccess, ResolvedAccess, ResolvedPlan } from "./call-plan.ts";
import type { AnyTool, ToolRuntime, Truncation } from "./contract.ts";
import { errorEnvelope, outputEnvelope, type Envelope, type EnvelopeMetadata } from "./envelope.ts";
import { jsonShapeProblem, unusableResultMessage } from "./json-shape.ts";
import type { Scheduler, SchedulerSlot } from "./scheduler.ts";
import type { CallOutcome, CallRequest, ToolCall } from "./tool-call.ts";
import { describeClaimHolder, type FileClaimer } from "./file-claimer.ts";
import { describeOrigin, type RegisteredTool, type ToolRegistry } from "./tool-registry.ts";
import type { ToolSession } from "./tool-session.ts";
import { isSelfTruncated, leftOutNotes } from "./truncation.ts";
import { errorMessage } from "../errors/error-message.ts";
import { monotonicMs } from "./monotonic-ms.ts";

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
  /** The call waits (queued, awaiting approval), or runs after waiting (see CallPhase). */
  phase?(call: CallRecord, phase: CallPhase): void;
  /** Why calls cannot be recorded now (the audit trail cannot be written), or undefined: then none runs. */
  unrecordable?(): string | undefined;
}

/** What one call needs from its session. */
export interface CallContext {
  readonly registry: ToolRegistry;
  readonly session: ToolSession;
  readonly scheduler: Scheduler;
  readonly root: string;
  /** The OS sandbox for the processes this session's tools start. */
  readonly sandbox: ProcessSandbox;
  capabilityFor(tool: AnyTool): FsCapability;
  /** Capability check, rules, watchdog and approval; absent means every valid call runs. */
  decide?(call: ToolCall): Promise<PolicyResult>;
  /** The same stages for an access a tool makes while running. */
  authorize?(call: ToolCall, access: PlannedAccess): Promise<ResolvedAccess>;
  /** The same stages for several accesses a tool makes together while running, decided as one. */
  authorizePlan?(call: ToolCall, plan: CallPlan, approvalKey: string): Promise<ResolvedAccess[]>;
  /** The deny rule a file a tool found by itself falls under (see ToolRuntime.readDenied). */
  readDenied?(call: ToolCall, file: { absolute: string; display: string }): string | undefined;
  /** The ask rule a file a tool found by itself falls under (see ToolRuntime.readAsks). */
  readAsks?(call: ToolCall, file: { absolute: string; display: string }): string | undefined;
  observer?: CallObserver;
  /** Told about failures that are the runtime's fault rather than the model's. */
  onInternalError?(toolId: string, error: unknown): void;
  /** Checkpoints of the files calls change; absent when the session keeps none. */
  checkpoints?: CallCheckpoints;
  /** Who is changing which file, across sessions and processes; absent when nothing is shared. */
  fileClaims?: FileClaimer;
  /**
   * Why the session's calls may no longer run (another process deleted or closed it), or
   * undefined: asked as each call is about to run, so a call queued before that does not run.
   */
  sessionLost?(): string | undefined;
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

/** Tell the host about a failure of the runtime; a host hook that throws must not break the call. */
function reportInternal(ctx: CallContext, toolId: string, err: unknown): void {
  try {
    ctx.onInternalError?.(toolId, err);
  } catch (hookError) {
    // The host's own error hook failed: the terminal is all that is left to tell.
    console.error(`lathe: ${toolId}: reporting an internal error failed:`, hookError, "original:", err);
  }
}

function messageOf(err: unknown): string {
  try {
    return errorMessage(err);
  } catch {
    return "an error that cannot be printed";
  }
}

function errorText(toolId: string, err: unknown, ctx: CallContext): string {
  if (ToolCallError.isInstance(err)) return err.message;
  reportInternal(ctx, toolId, err);
  const message = messageOf(err);
  const code =
    LatheError.isInstance(err) || !(err instanceof Error) ? "" : ((err as NodeJS.ErrnoException).code ?? "");
  return `${toolId} failed: ${message}${code && !message.includes(code) ? ` (${code})` : ""}`;
}

/** What a call stopped before it ran is answered with. */
function abortedBeforeStart(toolId: string): string {
  return `${toolId} was aborted before it started; nothing was done.`;
}

/** No plan, or no policy to check one: nothing resolved. */
const NOTHING_RESOLVED: ResolvedPlan = { accesses: [] };

async function executeBounded(
  ctx: CallContext,
  call: ToolCall,
  resolved: ResolvedPlan,
  checkpoint?: OpenCheckpoint,
): Promise<{ data?: unknown; error?: string }> {
  const { tool } = call.entry;
  const outer = call.signal;
  if (outer?.aborted) return { error: abortedBeforeStart(tool.id) };
  const controller = new AbortController();
  const timeoutMs = tool.callTimeoutMs?.(call.args) ?? tool.timeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const forward = (): void => controller.abort(outer?.reason);
  outer?.addEventListener("abort", forward, { once: true });
  const stop = stopWhenAborted(controller.signal);
  // What the tool decides on while running is decided under the call's own (inner) signal.
  const running: ToolCall = { ...call, signal: controller.signal };
  const { readDenied, readAsks } = ctx;
  try {
    const runtime: ToolRuntime = {
      signal: controller.signal,
      callId: call.callId,
      ...(call.correlationId !== undefined ? { correlationId: call.correlationId } : {}),
      fs: call.fs,
      resolved,
      session: ctx.session,
      root: ctx.root,
      sandbox: ctx.sandbox,
      authorize: async (access) => {
        if (!ctx.authorize)
          throw new ToolCallError(`${tool.id} may not make ${access.capability} calls here.`);
        return ctx.authorize(running, access);
      },
      authorizePlan: async (plan, approvalKey) => {
        if (!ctx.authorizePlan)
          throw new ToolCallError(`${tool.id} may not make shell, file or network calls here.`);
        return ctx.authorizePlan(running, plan, approvalKey);
      },
      ...(readDenied ? { readDenied: (file) => readDenied(running, file) } : {}),
      ...(readAsks ? { readAsks: (file) => readAsks(running, file) } : {}),
      ...(checkpoint?.files ? { checkpoint: checkpoint.files } : {}),
    };
    return { data: await Promise.race([tool.execute(call.args, runtime), stop.promise]) };
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

/**
 * Run the call under its checkpoint when its tool changes files: opened before (a scanning tool's
 * workspace is scanned then; if that fails the call does not run), recorded after, whatever the
 * outcome, since a call that failed half-way may have changed files too.
 */
async function executeCheckpointed(
  ctx: CallContext,
  call: ToolCall,
  resolved: ResolvedPlan,
): Promise<{ data?: unknown; error?: string }> {
  const { tool } = call.entry;
  if (!ctx.checkpoints || tool.checkpoints === undefined) {
    return executeBounded(ctx, call, resolved);
  }
  let checkpoint: OpenCheckpoint | undefined;
  try {
    checkpoint = await ctx.checkpoints.open({
      tool,
      callId: call.callId,
      ...(call.correlationId !== undefined ? { toolCallId: call.correlationId } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
  } catch (err) {
    if (call.signal?.aborted) return { error: abortedBeforeStart(tool.id) };
    reportInternal(ctx, tool.id, err);
    return {
      error: `${tool.id} was not run: Lathe could not prepare the checkpoint that lets its changes be undone (${messageOf(err)}). Nothing was changed.`,
    };
  }
  try {
    return await executeBounded(ctx, call, resolved, checkpoint);
  } finally {
    await checkpoint?.close().catch((err: unknown) => reportInternal(ctx, tool.id, err));
  }
}

/**
 * Run a call of a tool that reads a file, checks it is what its session read, then replaces it
 * (write, edit) while holding that file: another call changing it at the same moment, in another
 * session or another Lathe process, would pass the same check and one change would overwrite the
 * other unseen. The second call waits until the first is done, then finds the file changed.
 */
async function executeClaimed(
  ctx: CallContext,
  call: ToolCall,
  resolved: ResolvedPlan,
): Promise<{ data?: unknown; error?: string }> {
  const { tool } = call.entry;
  const targets = resolved.accesses.flatMap((a) => (a.capability === "fs.write" ? [a.path] : []));
  if (!ctx.fileClaims || tool.checkpoints !== "reported" || targets.length === 0) {
    return executeCheckpointed(ctx, call, resolved);
  }
  let claimed: Awaited<ReturnType<FileClaimer["claim"]>>;
  try {
    claimed = await ctx.fileClaims.claim(
      targets.map((t) => t.absolute),
      call.signal,
    );
  } catch (err) {
    if (call.signal?.aborted) return { error: abortedBeforeStart(tool.id) };
    reportInternal(ctx, tool.id, err);
    return {
      error: `${tool.id} was not run: Lathe could not check whether another call is changing ${targets.map((t) => t.display).join(", ")} (${messageOf(err)}). Nothing was changed.`,
    };
  }
  if (claimed.holder) {
    const { holder } = claimed;
    const shown = targets.find((t) => t.absolute === holder.path)?.display ?? holder.path;
    return {
      error: `${tool.id} was not run: another Lathe call (${describeClaimHolder(holder)}) is still changing ${shown}. Nothing was changed. Call read on ${shown} again once it is done, then call ${tool.id} again.`,
    };
  }
  try {
    return await executeCheckpointed(ctx, call, resolved);
  } finally {
    try {
      claimed.release();
    } catch (err) {
      // The claim then counts as left over (its process no longer holds it) and is taken over.
      reportInternal(ctx, tool.id, err);
    }
  }
}

/**
 * The MCP servers that are disabled as a whole: their tools are not known, so a call to one is
 * "unknown", but it may well have been meant for one of them; say which are down and why.
 */
function serversDown(registry: ToolRegistry): string {
  return registry
    .disabledTools()
    .filter((d) => d.origin.kind === "mcp" && d.id === d.origin.name)
    .map(
      (d) =>
        ` MCP server "${d.id}" is not available, so its tools are not listed (a call to one of them is refused like this one until the user fixes it): ${d.reason}`,
    )
    .join("");
}

/**
 * Check the call's arguments, wait for its turn (or its stop: a call stopped while it waits
 * ends at once), then put it to the policy and run it.
 */
async function runInTurn(
  ctx: CallContext,
  record: CallRecord,
  request: CallRequest,
  tool: AnyTool,
  slot: SchedulerSlot,
  phase: CallPhaseListener,
  stages: StageRecord[],
): Promise<{ data?: unknown; error?: string }> {
  const entry = record.entry as RegisteredTool;
  let checked: ArgumentCheck;
  try {
    checked = await checkArguments(tool.id, tool.parameters, record.args, request.signal);
  } catch (err) {
    if (request.signal?.aborted) return { error: abortedBeforeStart(tool.id) };
    throw err;
  }
  if (checked.invalid !== undefined) return { error: checked.invalid };
  // Checked on a worker, the arguments come back a copy with the defaults filled in.
  record.args = checked.args;
  const call: ToolCall = {
    callId: record.callId,
    correlationId: request.correlationId,
    entry,
    args: checked.args,
    fs: ctx.capabilityFor(tool),
    signal: request.signal,
    phase,
  };
  if (slot.held()) {
    phase("queued");
    // Stopped while it waited its turn (Ctrl-C, its card's Stop button): it ends now, not when
    // the calls before it are done; it was not asked about and did not run.
    if (!(await turnOrStop(slot, call.signal))) return { error: abortedBeforeStart(tool.id) };
  }
  if (call.signal?.aborted) return { error: abortedBeforeStart(tool.id) };
  let lost: string | undefined;
  try {
    lost = ctx.sessionLost?.();
  } catch (err) {
    return { error: errorText(tool.id, err, ctx) };
  }
  if (lost !== undefined) return { error: lost };
  let resolved = NOTHING_RESOLVED;
  if (ctx.decide) {
    let decision: PolicyResult;
    try {
      decision = await ctx.decide(call);
    } catch (err) {
      return { error: errorText(tool.id, err, ctx) };
    }
    stages.push(...decision.stages);
    if (!decision.allowed) return { error: decision.errorText ?? `${tool.id} was not allowed.` };
    resolved = { accesses: decision.accesses, ...(decision.cwd ? { cwd: decision.cwd } : {}) };
  }
  // Said only by a call that waited (queued, or for its approval): it runs now.
  phase("running");
  return executeClaimed(ctx, call, resolved);
}

/** Whether the slot's turn came (true) or the signal stopped the call first (false). */
async function turnOrStop(slot: SchedulerSlot, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) {
    await slot.turn;
    return true;
  }
  if (signal.aborted) return false;
  const stop = stopWhenAborted(signal);
  try {
    await Promise.race([slot.turn, stop.promise]);
    return true;
  } catch (err) {
    if (err instanceof CallStopped) return false;
    throw err;
  } finally {
    stop.dispose();
  }
}

async function run(
  ctx: CallContext,
  record: CallRecord,
  request: CallRequest,
  started: number,
  stages: StageRecord[],
): Promise<Envelope> {
  const meta = (): EnvelopeMetadata => ({ duration_ms: Math.round(monotonicMs() - started) });
  const entry = record.entry;
  if (!entry) {
    const disabled = ctx.registry.disabledTool(record.toolId);
    if (disabled) {
      return errorEnvelope(
        `Tool "${record.toolId}" (${describeOrigin(disabled.origin)}) is disabled, so it was not run. ${disabled.reason}${disabled.fix ? ` To enable it again, the user must ${disabled.fix}.` : ""} Tell the user; calling it again fails the same way until then.`,
        meta(),
      );
    }
    const known = ctx.registry.ids();
    return errorEnvelope(
      `Unknown tool "${record.toolId}". Available tools: ${known.length > 0 ? known.join(", ") : "none"}.${serversDown(ctx.registry)}`,
      meta(),
    );
  }
  const { tool } = entry;
  if (!tool.enabled) return errorEnvelope(`Tool "${tool.id}" is disabled.`, meta());
  const parsed = parseArguments(request.args);
  if (parsed.error !== undefined) return errorEnvelope(parsed.error, meta());
  record.args = parsed.args;
  // The place in the scheduler's order is taken now, as the call is issued: checking the
  // arguments may take a while (on a worker), and a call issued later whose check ends sooner
  // must not run before it. The policy decides inside the turn: a write whose approval takes a
  // while still runs before a write issued after it (which is queued meanwhile, and says so).
  const slot = ctx.scheduler.take(tool.readOnly);
  const listeners: CallPhaseListener[] = [];
  if (request.onPhase) listeners.push(request.onPhase);
  const observer = ctx.observer;
  if (observer?.phase) listeners.push((phase) => observer.phase?.(record, phase));
  const phase = phaseReporter(listeners, (err) => reportInternal(ctx, tool.id, err));
  let outcome: { data?: unknown; error?: string };
  try {
    outcome = await runInTurn(ctx, record, request, tool, slot, phase, stages);
  } finally {
    // What the policy or a tool says of this call once it has ended (an identical call's prompt
    // answered later) is no phase of it: the host has its result already.
    phase.close();
    slot.release();
  }
  if (outcome.error !== undefined) return errorEnvelope(outcome.error, meta());

  const data = outcome.data;
  const shown = isSelfTruncated(data) ? data.data : data;
  const problem = jsonShapeProblem(shown);
  if (problem !== undefined) {
    return errorEnvelope(unusableResultMessage(tool.id, problem), meta());
  }
  if (isSelfTruncated(data)) {
    return outputEnvelope(data.data, {
      ...meta(),
      truncated: true,
      output_path: data.outputPath,
      ...leftOutNotes(data.leftOut, data.outputPath),
    });
  }
  let cut: Truncation<unknown> | undefined;
  try {
    cut = tool.truncate?.(data);
  } catch (err) {
    return errorEnvelope(
      `${tool.id} produced a result that could not be cut to size: ${errorText(tool.id, err, ctx)}`,
      meta(),
    );
  }
  if (!cut) return outputEnvelope(data, meta());
  try {
    const outputPath = await ctx.session.writeSidecar(tool.id, cut.full);
    return outputEnvelope(cut.data, {
      ...meta(),
      truncated: true,
      output_path: outputPath,
      ...leftOutNotes(cut.leftOut, outputPath),
    });
  } catch (err) {
    reportInternal(ctx, tool.id, err);
    return outputEnvelope(cut.data, {
      ...meta(),
      truncated: true,
      ...leftOutNotes(cut.leftOut, undefined),
    });
  }
}

/**
 * One tool call, end to end: lookup, JSON parsing, schema validation, the policy (capability
 * check, rules, watchdog, approval), scheduling, execution under an abort signal and a timeout,
 * truncation to a sidecar, and the envelope, recorded by the observer. Never throws, whatever
 * the model sent and whichever stage fails (a tool, a hook, the observer itself): every call ends
 * in exactly one envelope and one `observer.finished`. A result that is not JSON data (nested
 * past MAX_RESULT_DEPTH, a cycle, a BigInt) becomes an error envelope before anything
 * serializes it. Resolves to the envelope with the call's id and what the policy decided.
 */
export async function callTool(ctx: CallContext, request: CallRequest): Promise<CallOutcome> {
  const started = monotonicMs();
  const { toolId } = request;
  let entry: RegisteredTool | undefined;
  let lookupError: unknown;
  try {
    entry = ctx.registry.get(toolId);
  } catch (err) {
    lookupError = err;
  }
  const record: CallRecord = {
    callId: randomUUID(),
    toolId,
    entry,
    args: request.args,
    startedAt: Date.now(),
  };
  const stages: StageRecord[] = [];
  try {
    ctx.observer?.started(record);
  } catch (err) {
    reportInternal(ctx, toolId, err);
  }
  let envelope: Envelope;
  try {
    if (lookupError !== undefined) throw lookupError;
    // A call the audit trail cannot record does not run (fail closed).
    const unrecordable = ctx.observer?.unrecordable?.();
    envelope =
      unrecordable === undefined
        ? await run(ctx, record, request, started, stages)
        : errorEnvelope(
            `${toolId} was not run: Lathe cannot record tool calls in its audit trail, and runs none it cannot record. ${unrecordable} Tell the user; every call fails the same way until then.`,
            { duration_ms: Math.round(monotonicMs() - started) },
          );
  } catch (err) {
    // Whatever stage threw, the call still ends in one error envelope (and one audit row below).
    envelope = errorEnvelope(errorText(toolId, err, ctx), {
      duration_ms: Math.round(monotonicMs() - started),
    });
  }
  try {
    ctx.observer?.finished(record, envelope, stages);
  } catch (err) {
    reportInternal(ctx, toolId, err);
  }
  return { envelope, callId: record.callId, decisions: stages };
}
