import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { FsCapability } from "../capability/fs-capability.ts";
import type { SessionState } from "../session/session-state.ts";
import { validateArguments } from "./argument-validator.ts";
import type { AnyTool } from "./contract.ts";
import { errorEnvelope, outputEnvelope, type Envelope, type EnvelopeMetadata } from "./envelope.ts";
import type { Scheduler } from "./scheduler.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/** What one call needs from its session. */
export interface CallContext {
  readonly registry: ToolRegistry;
  readonly session: SessionState;
  readonly scheduler: Scheduler;
  readonly root: string;
  capabilityFor(tool: AnyTool): FsCapability;
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
  const code = LatheError.isInstance(err) || !(err instanceof Error) ? "" : ((err as NodeJS.ErrnoException).code ?? "");
  return `${toolId} failed: ${message}${code && !message.includes(code) ? ` (${code})` : ""}`;
}

async function executeBounded(
  tool: AnyTool,
  args: unknown,
  ctx: CallContext,
  outer: AbortSignal | undefined,
): Promise<{ data?: unknown; error?: string }> {
  if (outer?.aborted) return { error: `${tool.id} was aborted before it started; nothing was done.` };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${tool.timeoutMs} ms`));
  }, tool.timeoutMs);
  const forward = (): void => controller.abort(outer?.reason);
  outer?.addEventListener("abort", forward, { once: true });
  const stop = stopWhenAborted(controller.signal);
  try {
    const runtime = {
      signal: controller.signal,
      fs: ctx.capabilityFor(tool),
      session: ctx.session,
      root: ctx.root,
    };
    return { data: await Promise.race([tool.execute(args, runtime), stop.promise]) };
  } catch (err) {
    if (err instanceof CallStopped || controller.signal.aborted) {
      return timedOut
        ? { error: `${tool.id} timed out after ${tool.timeoutMs} ms and was stopped. Narrow the request and try again.` }
        : { error: `${tool.id} was aborted${outer?.reason instanceof Error ? `: ${outer.reason.message}` : ""}.` };
    }
    return { error: errorText(tool.id, err, ctx) };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", forward);
    stop.dispose();
  }
}

/**
 * One tool call, end to end: lookup, JSON parsing, schema validation, scheduling, execution
 * under an abort signal and a timeout, truncation to a sidecar, and the envelope. Never throws
 * for anything the model sent; every outcome is an envelope.
 */
export async function callTool(
  ctx: CallContext,
  toolId: string,
  rawArgs: unknown,
  options: CallOptions = {},
): Promise<Envelope> {
  const started = performance.now();
  const meta = (): EnvelopeMetadata => ({ duration_ms: Math.round(performance.now() - started) });
  const entry = ctx.registry.get(toolId);
  if (!entry) {
    const known = ctx.registry.ids();
    return errorEnvelope(
      `Unknown tool "${toolId}". Available tools: ${known.length > 0 ? known.join(", ") : "none"}.`,
      meta(),
    );
  }
  const { tool } = entry;
  if (!tool.enabled) return errorEnvelope(`Tool "${toolId}" is disabled.`, meta());
  const parsed = parseArguments(rawArgs);
  if (parsed.error !== undefined) return errorEnvelope(parsed.error, meta());
  const invalid = validateArguments(tool.id, tool.parameters, parsed.args);
  if (invalid !== undefined) return errorEnvelope(invalid, meta());

  const outcome = await ctx.scheduler.run(tool.readOnly, () => executeBounded(tool, parsed.args, ctx, options.signal));
  if (outcome.error !== undefined) return errorEnvelope(outcome.error, meta());

  let data = outcome.data;
  const cut = tool.truncate?.(data);
  if (!cut) return outputEnvelope(data, meta());
  data = cut.data;
  try {
    const outputPath = await ctx.session.writeSidecar(tool.id, cut.full);
    return outputEnvelope(data, { ...meta(), truncated: true, output_path: outputPath });
  } catch (err) {
    ctx.onInternalError?.(tool.id, err);
    return outputEnvelope(data, { ...meta(), truncated: true });
  }
}
