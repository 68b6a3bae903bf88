import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { ModelStallError, type StallDetails, type StallKind } from "./model-stall-error.ts";
import type { ModelTimeouts } from "./model-timeouts.ts";

/** A wait long enough for a host to show it ("waiting for the model — 12 s"). */
export interface ModelWait {
  kind: StallKind;
  /** How long the model has been silent so far. */
  elapsedMs: number;
  /** When the wait becomes a failure. */
  timeoutMs: number;
}

export interface StallGuardOptions {
  timeouts: ModelTimeouts;
  /** Who and what the message of a stall names. */
  describe: Omit<StallDetails, "kind" | "timeoutMs">;
  /** The model has been silent for `noticeMs` (default 1 s, at most half the timeout). */
  onWaiting?(wait: ModelWait): void;
  /** Output came after `onWaiting`. */
  onResumed?(wait: { kind: StallKind; waitedMs: number }): void;
  noticeMs?: number;
}

const DEFAULT_NOTICE_MS = 1_000;

/**
 * Whether a stream part is output of the model. The stream's start (made locally), response
 * metadata, raw chunks and empty deltas are not: a server that sends only those is silent.
 */
function isOutput(part: LanguageModelV4StreamPart): boolean {
  switch (part.type) {
    case "stream-start":
    case "response-metadata":
    case "raw":
      return false;
    case "text-delta":
    case "reasoning-delta":
    case "tool-input-delta":
      return part.delta.length > 0;
    default:
      return true;
  }
}

/** One model call's silence: what it waits for, since when, and whether a host was told. */
class CallWatch {
  private kind: StallKind = "first-byte";
  private readonly requestedAt = Date.now();
  private noticed: { kind: StallKind; since: number } | undefined;
  private readonly options: StallGuardOptions;
  private readonly abort: (reason: ModelStallError) => void;

  constructor(options: StallGuardOptions, abort: (reason: ModelStallError) => void) {
    this.options = options;
    this.abort = abort;
  }

  /** The model produced output: from now on only silences in the middle count. */
  output(): void {
    if (this.noticed) {
      this.options.onResumed?.({ kind: this.noticed.kind, waitedMs: Date.now() - this.noticed.since });
      this.noticed = undefined;
    }
    this.kind = "idle";
  }

  /** Wait for `pending`, failing with ModelStallError once the silence passes its limit. */
  wait<T>(pending: Promise<T>): Promise<T> {
    const now = Date.now();
    const kind = this.kind;
    // Until the first output the clock runs from the request; after it, from this wait's start.
    const since = kind === "first-byte" ? this.requestedAt : now;
    const timeoutMs =
      kind === "first-byte" ? this.options.timeouts.firstByteMs : this.options.timeouts.idleMs;
    return new Promise<T>((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      const settle = (): void => timers.forEach(clearTimeout);
      if (!this.noticed && this.options.onWaiting) {
        const noticeMs = Math.min(this.options.noticeMs ?? DEFAULT_NOTICE_MS, timeoutMs / 2);
        timers.push(
          setTimeout(
            () => {
              this.noticed = { kind, since };
              this.options.onWaiting?.({ kind, elapsedMs: Date.now() - since, timeoutMs });
            },
            Math.max(0, since + noticeMs - now),
          ),
        );
      }
      timers.push(
        setTimeout(
          () => {
            settle();
            const error = new ModelStallError({ ...this.options.describe, kind, timeoutMs });
            this.abort(error);
            reject(error);
          },
          Math.max(0, since + timeoutMs - now),
        ),
      );
      pending.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }
}

function isV4(model: LanguageModel): model is LanguageModelV4 {
  return typeof model === "object" && model.specificationVersion === "v4";
}

/**
 * The model with a limit on silence: a streamed call fails with ModelStallError when the first
 * output does not come within `firstByteMs` of the request (a server that accepted the request
 * and says nothing), or when the answer pauses for more than `idleMs` (a server that stopped
 * mid-stream). The request is aborted at that moment. Waits longer than `noticeMs` are reported
 * so a host can show them. Time the consumer spends between reads does not count.
 */
export function guardAgainstStalls(model: LanguageModel, options: StallGuardOptions): LanguageModel {
  if (!isV4(model)) return model;
  const inner = model;
  const guarded: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: inner.provider,
    modelId: inner.modelId,
    get supportedUrls() {
      return inner.supportedUrls;
    },
    doGenerate: (callOptions) => inner.doGenerate(callOptions),
    async doStream(callOptions: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
      const own = new AbortController();
      const abortSignal = callOptions.abortSignal
        ? AbortSignal.any([callOptions.abortSignal, own.signal])
        : own.signal;
      const watch = new CallWatch(options, (reason) => own.abort(reason));
      const result = await watch.wait(Promise.resolve(inner.doStream({ ...callOptions, abortSignal })));
      const reader = result.stream.getReader();
      const stream = new ReadableStream<LanguageModelV4StreamPart>(
        {
          async pull(controller) {
            let next: Awaited<ReturnType<typeof reader.read>>;
            try {
              next = await watch.wait(reader.read());
            } catch (error) {
              if (ModelStallError.isModelStall(error)) reader.cancel(error).catch(() => undefined);
              throw error;
            }
            if (next.done) {
              controller.close();
              return;
            }
            if (isOutput(next.value)) watch.output();
            controller.enqueue(next.value);
          },
          cancel: (reason) => reader.cancel(reason),
        },
        // Read from the model only when the consumer asks: its own pauses are not the model's.
        { highWaterMark: 0 },
      );
      return { ...result, stream };
    },
  };
  return guarded;
}
