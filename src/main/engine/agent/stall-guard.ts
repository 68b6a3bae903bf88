import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { ModelStallError, type StallDetails, type StallKind } from "./model-stall-error.ts";
import { DEFAULT_MODEL_TIMEOUTS, type ModelTimeouts } from "./model-timeouts.ts";
import { takesTurns } from "./model-turn.ts";
import type { ResolvedModel } from "./provider-registry.ts";

/**
 * What a call waits for: the model's first output or the rest of it (silences that fail the step
 * at their timeout), or, `model-busy`, its turn on a model another run's call has (an embedded
 * model serves one call at a time): that wait does not count toward any timeout.
 */
export type WaitKind = StallKind | "model-busy";

/** A wait long enough for a host to show it ("waiting for the model — 12 s"). */
interface ModelWait {
  kind: WaitKind;
  /** How long the model has been silent so far. */
  elapsedMs: number;
  /** When the wait becomes a failure. */
  timeoutMs: number;
}

interface StallGuardOptions {
  timeouts: ModelTimeouts;
  /** Who and what the message of a stall names. */
  describe: Omit<StallDetails, "kind" | "timeoutMs">;
  /** The model has been silent for `noticeMs` (default 1 s, at most half the timeout). */
  onWaiting?(wait: ModelWait): void;
  /** Output came after `onWaiting` (or, after a `model-busy` wait, the call got the model). */
  onResumed?(wait: { kind: WaitKind; waitedMs: number }): void;
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

/**
 * One model call's silence: what it waits for, since when, and whether a host was told. One
 * timer at a time, re-armed lazily, so a fast stream pays a clock read per part and no more.
 */
class CallWatch {
  private kind: StallKind = "first-byte";
  /** When the request went to the model: when it was made, or when its turn came after a queue. */
  private requestedAt = Date.now();
  /** When the current silence began; undefined while the model is not being waited on. */
  private since: number | undefined;
  /** Since when the call waits for its turn on a model another call has (no silence, no timeout). */
  private queuedSince: number | undefined;
  private noticed: { kind: WaitKind; since: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private over = false;
  private readonly options: StallGuardOptions;
  private readonly onStall: (error: ModelStallError) => void;

  constructor(options: StallGuardOptions, onStall: (error: ModelStallError) => void) {
    this.options = options;
    this.onStall = onStall;
  }

  private get timeoutMs(): number {
    return this.kind === "first-byte" ? this.options.timeouts.firstByteMs : this.options.timeouts.idleMs;
  }

  private get noticeMs(): number {
    return Math.min(this.options.noticeMs ?? DEFAULT_NOTICE_MS, this.timeoutMs / 2);
  }

  /**
   * The model is being waited on: the request was sent, or the next part was asked for. Until
   * the first output the clock runs from the request; after it, from the first wait since the
   * last output, so the consumer's own pauses between reads do not count.
   */
  waiting(): void {
    if (this.over || this.queuedSince !== undefined) return;
    this.since ??= this.kind === "first-byte" ? this.requestedAt : Date.now();
    this.schedule();
  }

  /** A part came; only output of the model (not metadata) ends the silence. */
  arrived(output: boolean): void {
    if (!output) return;
    if (this.noticed) {
      this.options.onResumed?.({ kind: this.noticed.kind, waitedMs: Date.now() - this.noticed.since });
      this.noticed = undefined;
    }
    this.kind = "idle";
    this.since = undefined;
  }

  /**
   * Another call has the model: this one waits for its turn, which is no silence of the model.
   * The clock stops; a host is told (after the notice time) what the call waits for.
   */
  queued(): void {
    if (this.over) return;
    this.clearTimer();
    this.since = undefined;
    this.queuedSince = Date.now();
    if (this.options.onWaiting) this.arm(this.queuedSince + this.noticeMs);
  }

  /** The call has the model now: the wait for its first output starts from here. */
  started(): void {
    if (this.over || this.queuedSince === undefined) return;
    this.clearTimer();
    if (this.noticed) {
      this.options.onResumed?.({ kind: this.noticed.kind, waitedMs: Date.now() - this.noticed.since });
      this.noticed = undefined;
    }
    this.queuedSince = undefined;
    this.requestedAt = Date.now();
    this.waiting();
  }

  /** The call is over (answered, failed or cancelled): no more timers. */
  finish(): void {
    this.over = true;
    this.clearTimer();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), Math.max(0, at - Date.now()));
  }

  private schedule(): void {
    const since = this.since as number;
    const at = since + (this.noticed || !this.options.onWaiting ? this.timeoutMs : this.noticeMs);
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.arm(at);
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.over) return;
    if (this.queuedSince !== undefined) {
      // Waiting for another run's call to end: said once; it times nothing out.
      if (!this.noticed && this.options.onWaiting) {
        this.noticed = { kind: "model-busy", since: this.queuedSince };
        this.options.onWaiting({
          kind: "model-busy",
          elapsedMs: Date.now() - this.queuedSince,
          timeoutMs: this.options.timeouts.firstByteMs,
        });
      }
      return;
    }
    if (this.since === undefined) return;
    const elapsed = Date.now() - this.since;
    if (elapsed >= this.timeoutMs) {
      this.finish();
      this.onStall(
        new ModelStallError({ ...this.options.describe, kind: this.kind, timeoutMs: this.timeoutMs }),
      );
      return;
    }
    if (!this.noticed && this.options.onWaiting && elapsed >= this.noticeMs) {
      this.noticed = { kind: this.kind, since: this.since };
      this.options.onWaiting({ kind: this.kind, elapsedMs: elapsed, timeoutMs: this.timeoutMs });
    }
    this.schedule();
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
      let stalled: ModelStallError | undefined;
      let failWaiting: (error: ModelStallError) => void = () => undefined;
      let failStream: (error: ModelStallError) => void = () => undefined;
      const watch = new CallWatch(options, (error) => {
        stalled = error;
        own.abort(error);
        failWaiting(error);
        failStream(error);
      });
      const stall = new Promise<never>((_, reject) => (failWaiting = reject));
      stall.catch(() => undefined);
      watch.waiting();
      let result: LanguageModelV4StreamResult;
      // A model that serves one call at a time says when this call waits for another run's to end.
      const request = takesTurns(inner)
        ? inner.doStreamInTurn(
            { ...callOptions, abortSignal },
            { queued: () => watch.queued(), started: () => watch.started() },
          )
        : inner.doStream({ ...callOptions, abortSignal });
      try {
        result = await Promise.race([request, stall]);
      } catch (error) {
        watch.finish();
        throw error;
      }
      const reader = result.stream.getReader();
      const stream = new ReadableStream<LanguageModelV4StreamPart>(
        {
          start(controller) {
            failStream = (error) => {
              controller.error(error);
              reader.cancel(error).catch(() => undefined);
            };
          },
          async pull(controller) {
            watch.waiting();
            let next: Awaited<ReturnType<typeof reader.read>>;
            try {
              next = await reader.read();
            } catch (error) {
              watch.finish();
              if (stalled) return;
              throw error;
            }
            if (stalled) return;
            if (next.done) {
              watch.finish();
              controller.close();
              return;
            }
            watch.arrived(isOutput(next.value));
            controller.enqueue(next.value);
          },
          cancel(reason) {
            watch.finish();
            return reader.cancel(reason);
          },
        },
        // Read from the model only when the consumer asks: its own pauses are not the model's.
        { highWaterMark: 0 },
      );
      return { ...result, stream };
    },
  };
  return guarded;
}

/** Where settings keep a provider's entry, as a person would type the path. */
function settingsKeyOf(provider: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(provider) ? `providers.${provider}` : `providers["${provider}"]`;
}

/**
 * A resolved model guarded against silence with its own timeouts (`providers.<name>.timeouts`),
 * a stall naming its endpoint, model and settings entry: what every request to a person's model
 * goes through, a run's steps and a summary made between runs alike.
 */
export function guardResolvedModel(
  resolved: ResolvedModel,
  waits: Pick<StallGuardOptions, "onWaiting" | "onResumed"> = {},
): LanguageModel {
  return guardAgainstStalls(resolved.model, {
    timeouts: resolved.timeouts ?? DEFAULT_MODEL_TIMEOUTS,
    describe: {
      endpoint: resolved.endpoint ?? `The ${resolved.spec.provider} provider`,
      model: resolved.spec.model,
      settingsKey: settingsKeyOf(resolved.spec.provider),
    },
    ...waits,
  });
}
