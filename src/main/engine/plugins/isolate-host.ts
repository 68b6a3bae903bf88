import { randomUUID } from "node:crypto";
import type ivm from "isolated-vm";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { AsciiJson, EncodedJson } from "./encoded-json.ts";
import { ISOLATE_BOOTSTRAP, type RuntimeShape } from "./isolate-bootstrap.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { undeclaredMemberMessage } from "./undeclared-member.ts";
import { errorMessage } from "../errors/error-message.ts";

/**
 * Carries out one `runtime` request of the call in flight (see plugin-runtime-bridge.ts), given
 * its payload as the JSON text the plugin sent (parsed by the dispatcher when its turn comes).
 * Resolves to the result, or to an EncodedJson or AsciiJson of it.
 */
export type RuntimeDispatch = (op: string, payloadJson: string) => Promise<unknown>;

export interface IsolateHostOptions {
  /** The tool id, for messages. */
  name: string;
  source: string;
  /** A file URL naming the entry, for stack traces. */
  filename: string;
  shape: RuntimeShape;
  memoryMb: number;
  /** WebAssembly budget in MB (memories and modules, see wasm-guard.ts); 0: no WebAssembly at all. */
  wasmMb?: number;
  /** CPU budget of the synchronous part of one call (the module's top level gets startCpuMs). */
  cpuTimeoutMs: number;
  /** Every line the plugin logs (`plugin`), and what Lathe notes about it (`lathe`: restarts, errors). */
  onLog(line: string, source: PluginLogSource): void;
}

/** Who wrote a plugin log line: the plugin (runtime.log, console) or Lathe about it. */
export type PluginLogSource = "plugin" | "lathe";

export interface IsolateCall {
  dispatch: RuntimeDispatch;
  /** Wall-clock budget: past it the isolate is disposed, whatever the plugin is waiting on. */
  wallTimeoutMs: number;
  signal?: AbortSignal;
}

export interface IsolateStats {
  running: boolean;
  starts: number;
  /** Isolates disposed because a call broke a limit or was stopped. */
  restarts: number;
  calls: number;
  lastFailure?: string;
}

interface Live {
  isolate: ivm.Isolate;
  run: ivm.Reference<(token: string, argsJson: string) => Promise<string>>;
}

interface Reply {
  ok: boolean;
  value?: unknown;
  kind?: "thrown" | "result";
  message?: string;
  /** The thrown error's stack, when it had one. */
  stack?: string;
  /** What was thrown carries no message (`throw null`, `throw 42`): `message` shows the value. */
  bare?: boolean;
  /** A TypeError was thrown: the `runtime` members the call read that tool.yaml does not grant. */
  absent?: string[];
  /** The plugin used up its WebAssembly budget: restart the isolate once the call is answered. */
  restart?: boolean;
}

class Stopped extends Error {}

const MEMORY_LIMIT = /memory limit/i;
const CPU_LIMIT = /execution timed out/i;

/**
 * Replies longer than this go to the isolate as an ExternalCopy that the bootstrap copies in
 * itself. isolated-vm copies a string of 1 KB or more (as UTF-16: 512 characters) into an
 * isolate as an external string and then checks the isolate's memory; when that happens as a
 * host promise settles, outside any call, running out of memory aborts the whole process
 * (laverdet/isolated-vm#293) instead of stopping the isolate. Copied in by the bootstrap, it
 * stops the isolate only.
 */
const DIRECT_REPLY_CHARS = 512;

/** A successful reply longer than this is not parsed here: its value is handed on as JSON. */
const PARSE_INLINE_CHARS = 64 * 1024;
/** How the bootstrap's `run` begins a successful reply (it builds it with JSON.stringify). */
const OK_PREFIX = '{"ok":true,"value":';

/**
 * The value of a large successful reply, as JSON, cut out of the reply without parsing it: the
 * caller parses it where that costs the event loop nothing (see plugin-result.ts).
 */
function largeValue(replyJson: string): EncodedJson | undefined {
  if (replyJson.length <= PARSE_INLINE_CHARS || !replyJson.startsWith(OK_PREFIX)) return undefined;
  return new EncodedJson(replyJson.slice(OK_PREFIX.length, -1));
}

type Ivm = typeof ivm;
let loading: Promise<Ivm> | undefined;

/**
 * The isolate library (a native addon), loaded when the first plugin isolate starts: a start
 * that lists or calls no plugin never loads it.
 */
function isolatedVm(): Promise<Ivm> {
  loading ??= import("isolated-vm").then((module) => module.default);
  return loading;
}

function toIsolate(lib: Ivm, reply: string): string | ivm.ExternalCopy<string> {
  return reply.length < DIRECT_REPLY_CHARS ? reply : new lib.ExternalCopy(reply);
}

function hostReply(lib: Ivm, value: unknown): string | ivm.ExternalCopy {
  if (value instanceof AsciiJson) {
    const { bytes } = value;
    const exact = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    // Moved, not copied: the isolate takes the buffer over.
    return new lib.ExternalCopy(exact ? bytes.buffer : bytes.slice().buffer, { transferOut: true });
  }
  return toIsolate(
    lib,
    value instanceof EncodedJson
      ? `{"ok":true,"value":${value.json}}`
      : JSON.stringify({ ok: true, value: value === undefined ? null : value }),
  );
}

function hostError(lib: Ivm, err: unknown): string | ivm.ExternalCopy<string> {
  return toIsolate(lib, JSON.stringify({ ok: false, message: errorMessage(err) }));
}

/** The host functions every isolate of one plugin calls: its runtime requests and its log lines. */
interface HostRefs {
  dispatch: ivm.Reference<
    (token: string, op: string, payloadJson: string) => Promise<string | ivm.ExternalCopy>
  >;
  log: ivm.Reference<(line: string) => void>;
}

/**
 * One plugin's isolate (isolated-vm): started on the first call, kept warm, and disposed and
 * started afresh when a call breaks its memory limit, its CPU budget or its wall-clock budget.
 * Calls run one at a time, so a call's `runtime` can never act for another call. Everything is
 * asynchronous: the host's event loop keeps running whatever the plugin does.
 */
export class IsolateHost {
  private readonly options: IsolateHostOptions;
  /** Made with the first isolate (the library is loaded then), kept across restarts. */
  private refs: HostRefs | undefined;
  private live: Live | undefined;
  /** The isolate being started or running, so a stop can dispose it at any point. */
  private isolate: ivm.Isolate | undefined;
  /** The call in flight: its token, its dispatcher, and its runtime requests not yet answered. */
  private current: { token: string; dispatch: RuntimeDispatch; inFlight: Set<Promise<unknown>> } | undefined;
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private closed: string | undefined;
  private readonly counters = { starts: 0, restarts: 0, calls: 0 };
  private lastFailure: string | undefined;
  private disposed = false;
  /** A call is between its start and its end (runOne). */
  private running = false;
  /** Code of a finished call made a request while a call ran: stop the isolate when that call ends. */
  private stopAfterCall: string | undefined;

  constructor(options: IsolateHostOptions) {
    this.options = options;
  }

  private hostRefs(lib: Ivm): HostRefs {
    if (this.refs) return this.refs;
    const dispatch = new lib.Reference(async (token: string, op: string, payloadJson: string) => {
      const current = this.current;
      if (!current || typeof token !== "string" || token !== current.token) {
        this.outlivedCall();
        return hostError(
          lib,
          new Error(
            "This runtime belongs to a call that has finished; use the runtime passed to the current execute call.",
          ),
        );
      }
      const work = (async () => current.dispatch(String(op), String(payloadJson)))();
      current.inFlight.add(work);
      try {
        return hostReply(lib, await work);
      } catch (err) {
        return hostError(lib, err);
      } finally {
        current.inFlight.delete(work);
      }
    });
    const log = new lib.Reference((line: string) => this.options.onLog(String(line), "plugin"));
    this.refs = { dispatch, log };
    return this.refs;
  }

  stats(): IsolateStats {
    return {
      running: this.live !== undefined,
      ...this.counters,
      ...(this.lastFailure === undefined ? {} : { lastFailure: this.lastFailure }),
    };
  }

  /** Calls waiting or running. */
  get pending(): number {
    return this.queued;
  }

  /**
   * Run `execute(args, runtime)` in the isolate and return its result (a copy, as JSON data; a
   * large result as an EncodedJson of it, unparsed). Throws ToolCallError with the plugin's own
   * message when it throws, and with the limit it broke when it is stopped.
   */
  call(args: unknown, call: IsolateCall): Promise<unknown> {
    if (this.closed !== undefined) return Promise.reject(new ToolCallError(this.closed));
    this.queued++;
    const result = this.tail.then(() => this.runOne(args, call));
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result.finally(() => {
      this.queued--;
    });
  }

  /**
   * Start the isolate now, without a call: the module's top-level code runs and `execute` must be
   * a function (`lathe plugin check`). Throws ToolCallError as the first call would.
   */
  load(): Promise<void> {
    if (this.closed !== undefined) return Promise.reject(new ToolCallError(this.closed));
    const started = this.tail.then(async () => {
      this.live ??= await this.start();
    });
    this.tail = started.catch(() => undefined);
    return started;
  }

  private async start(): Promise<Live> {
    const { options } = this;
    const lib = await isolatedVm();
    if (this.disposed) throw new ToolCallError(this.closed ?? `${options.name} has been unloaded.`);
    const refs = this.hostRefs(lib);
    const isolate = new lib.Isolate({
      memoryLimit: options.memoryMb,
      onCatastrophicError: (message) => options.onLog(`isolate failure: ${message}`, "lathe"),
    });
    this.isolate = isolate;
    try {
      const context = await isolate.createContext();
      const install = await context.evalClosure(
        ISOLATE_BOOTSTRAP,
        [refs.dispatch, refs.log, JSON.stringify(options.shape), options.wasmMb ?? 0],
        {
          result: { reference: true },
          timeout: PLUGIN_LIMITS.startCpuMs,
        },
      );
      const module = await isolate.compileModule(options.source, { filename: options.filename });
      if (module.dependencySpecifiers.length > 0) {
        throw new ToolCallError(
          `${options.name} imports "${module.dependencySpecifiers[0]}"; plugins must be self-contained modules.`,
        );
      }
      await module.instantiate(context, (specifier) => {
        throw new Error(`import of "${specifier}" refused`);
      });
      await module.evaluate({ timeout: PLUGIN_LIMITS.startCpuMs });
      const execute = await module.namespace.get("execute", { reference: true });
      const run = (await install.apply(undefined, [execute.derefInto()], {
        result: { reference: true },
      })) as ivm.Reference;
      execute.release();
      install.release();
      if (run.typeof !== "function") {
        throw new ToolCallError(
          `${options.name} cannot run: its entry's \`execute\` export is not a function. Its author must export \`async function execute(args, runtime)\`.`,
        );
      }
      this.counters.starts++;
      return { isolate, run: run as Live["run"] };
    } catch (err) {
      if (!isolate.isDisposed) isolate.dispose();
      if (this.isolate === isolate) this.isolate = undefined;
      if (err instanceof Stopped) throw err;
      const at = this.thrownAt((err as Error | undefined)?.stack);
      const failure = ToolCallError.isInstance(err)
        ? err
        : (this.limitError(err, "while starting") ??
          new ToolCallError(`${options.name} failed to start: ${(err as Error).message}${at}`));
      this.lastFailure = failure.message;
      options.onLog(`isolate could not start: ${failure.message}`, "lathe");
      throw failure;
    }
  }

  /**
   * Where in the plugin's entry file an error was thrown, from its stack, as ` (thrown at
   * /…/index.js:3:9)`; "" when no frame of the stack is in the entry file.
   */
  private thrownAt(stack: string | undefined): string {
    if (typeof stack !== "string") return "";
    const { filename } = this.options;
    for (const line of stack.split("\n")) {
      const at = line.lastIndexOf(`${filename}:`);
      if (at < 0) continue;
      const position = /^:(\d+):(\d+)/.exec(line.slice(at + filename.length));
      if (!position) continue;
      return ` (thrown at ${this.entryPath()}:${position[1]}:${position[2]})`;
    }
    return "";
  }

  /** The plugin's entry file as a path (its `filename` is a file URL). */
  private entryPath(): string {
    const { filename } = this.options;
    return filename.startsWith("file://") ? filename.slice("file://".length) : filename;
  }

  /**
   * The error to report when `err` is an isolate limit (memory, CPU), else undefined.
   * `selfDisposed`: the isolate was disposed without Lathe stopping it, which isolated-vm does
   * only when the heap passes its limit; a call awaiting the host then fails with "Promise was
   * abandoned", which names no limit.
   */
  private limitError(err: unknown, when: string, selfDisposed = false): ToolCallError | undefined {
    const message = errorMessage(err);
    const { name, memoryMb, cpuTimeoutMs } = this.options;
    const starting = when === "while starting";
    // The module's top-level code runs before the call's input is looked at: a smaller input
    // cannot help there; its author must move the work into execute.
    const advice = starting
      ? `This is a bug in the plugin's top-level code (${this.entryPath()}), not in the call: its author must keep it to declarations and do the work inside execute.`
      : "Call it with a smaller input.";
    if (MEMORY_LIMIT.test(message) || selfDisposed) {
      return new ToolCallError(
        `${name} used more than its memory limit of ${memoryMb} MB ${when} and was stopped; its isolate was restarted. ${advice}`,
      );
    }
    if (CPU_LIMIT.test(message)) {
      const budget = starting ? PLUGIN_LIMITS.startCpuMs : cpuTimeoutMs;
      return new ToolCallError(
        `${name} ran without pause for more than ${budget} ms ${when} (an endless loop?) and was stopped; its isolate was restarted. ${advice}`,
      );
    }
    return undefined;
  }

  /**
   * A request came with no call to answer it: code the plugin started went on after its call
   * had ended (a loop around a request nobody awaits, a `runtime` kept for later). The request
   * is refused; and since every answer would enter the isolate again, such code could go on
   * forever between calls (and during other tools' calls), taking the host's time, with no
   * limit to stop it. So the isolate is stopped: at once when no call runs, else as soon as the
   * running call has ended (its result is kept).
   */
  private outlivedCall(): void {
    const reason = `${this.options.name} went on using runtime after its call had ended (code it started and did not await, or a runtime kept for later), so its isolate was stopped; a plugin's code must finish within its call`;
    if (this.running) this.stopAfterCall ??= reason;
    else if (this.isolate) this.kill(reason);
  }

  /** Dispose the isolate now (it may be mid-call); the next call starts a new one. */
  private kill(reason: string): void {
    this.stopAfterCall = undefined;
    const isolate = this.isolate;
    this.live = undefined;
    this.isolate = undefined;
    if (isolate) {
      if (!isolate.isDisposed) isolate.dispose();
      this.counters.restarts++;
    }
    this.lastFailure = reason;
    this.options.onLog(`isolate stopped: ${reason}`, "lathe");
  }

  private async runOne(args: unknown, call: IsolateCall): Promise<unknown> {
    const { name } = this.options;
    if (this.closed !== undefined) throw new ToolCallError(this.closed);
    if (call.signal?.aborted)
      throw new ToolCallError(`${name} was aborted before it started; nothing was done.`);
    this.counters.calls++;
    this.running = true;
    let stopReason: string | undefined;
    let rejectStop: (err: Error) => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => {
      rejectStop = reject;
    });
    stopped.catch(() => undefined);
    const stop = (reason: string): void => {
      if (stopReason !== undefined) return;
      stopReason = reason;
      this.kill(reason);
      rejectStop(new Stopped(reason));
    };
    const timer = setTimeout(
      () => stop(`a call did not finish within ${call.wallTimeoutMs} ms (wall clock)`),
      call.wallTimeoutMs,
    );
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      // The pipeline aborts a call at its timeout with that reason: say it, not just "aborted".
      const why: unknown = call.signal?.reason;
      stop(
        why instanceof Error && why.message !== ""
          ? `a call was stopped: ${why.message}`
          : "a call was aborted",
      );
    };
    call.signal?.addEventListener("abort", onAbort, { once: true });
    // From the pool randomUUID keeps: a fresh randomBytes per call cost a few µs of every round trip.
    const token = randomUUID();
    try {
      if (!this.live) this.live = await Promise.race([this.start(), stopped]);
      const live = this.live;
      const current = { token, dispatch: call.dispatch, inFlight: new Set<Promise<unknown>>() };
      this.current = current;
      const replyJson = await Promise.race([
        live.run.apply(undefined, [token, JSON.stringify(args ?? {})], {
          result: { promise: true },
          timeout: this.options.cpuTimeoutMs,
        }),
        stopped,
      ]);
      // Nothing the plugin started may outlive its call: refuse further requests, and let the
      // ones it fired without awaiting finish before the result is handed back.
      this.current = undefined;
      if (current.inFlight.size > 0) await Promise.race([Promise.allSettled([...current.inFlight]), stopped]);
      if (typeof replyJson !== "string")
        throw new ToolCallError(`${name} returned nothing the host could read.`);
      if (replyJson.length > PLUGIN_LIMITS.resultBytes) {
        throw new ToolCallError(
          `${name} returned ${replyJson.length} characters of JSON, more than its limit of ${PLUGIN_LIMITS.resultBytes}. Ask for less (a narrower path, fewer items).`,
        );
      }
      const large = largeValue(replyJson);
      if (large) return large;
      const reply = JSON.parse(replyJson) as Reply;
      if (reply.restart === true) this.kill("it used up its WebAssembly budget");
      if (reply.ok) return reply.value;
      if (reply.kind === "result") {
        throw new ToolCallError(
          `${name} returned a value that is not JSON data (${reply.message}); this is a bug in the plugin.`,
        );
      }
      const at = this.thrownAt(reply.stack);
      const message =
        reply.bare === true
          ? `${name} failed by throwing ${reply.message}, not an Error with a message, so it said nothing about what went wrong. This is a bug in the plugin (${this.entryPath()}): it should throw new Error("…") saying what was wrong and how to call again.`
          : reply.message === undefined || reply.message === ""
            ? `${name} failed without a message${at}.`
            : (undeclaredMemberMessage(name, reply.message, reply.absent ?? [], at) ??
              `${reply.message}${at}`);
      this.options.onLog(`call failed: ${message}`, "lathe");
      throw new ToolCallError(message);
    } catch (err) {
      if (stopReason !== undefined) {
        throw new ToolCallError(
          aborted
            ? `${name} was aborted; its isolate was stopped.`
            : `${name} did not finish within its timeout of ${call.wallTimeoutMs} ms (it may be waiting on a promise that never settles) and was stopped; its isolate was restarted. A promise that never settles is a bug in the plugin; if it only needs longer, its author can raise timeoutMs in its tool.yaml (at most ${PLUGIN_LIMITS.maxTimeoutMs} ms).`,
        );
      }
      if (ToolCallError.isInstance(err)) throw err;
      const limit = this.limitError(err, "during the call", this.isolate?.isDisposed === true);
      this.kill(limit ? limit.message : `the isolate failed: ${(err as Error).message}`);
      throw (
        limit ??
        new ToolCallError(
          `${name} stopped unexpectedly (${(err as Error).message}); its isolate was restarted.`,
        )
      );
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
      if (this.current?.token === token) this.current = undefined;
      this.running = false;
      if (this.stopAfterCall !== undefined) {
        if (this.isolate) this.kill(this.stopAfterCall);
        else this.stopAfterCall = undefined;
      }
    }
  }

  /**
   * Refuse new calls with `reason` and wait for the calls already queued or running to finish
   * (at most `timeoutMs`, after which the isolate is stopped under them).
   */
  async drain(reason: string, timeoutMs: number): Promise<void> {
    this.closed ??= reason;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), timeoutMs);
    });
    const outcome = await Promise.race([this.tail.then(() => "done" as const), late]);
    clearTimeout(timer);
    if (outcome === "late") this.kill("unloading with a call still running");
  }

  /** Release the isolate and refuse further calls. Idempotent. */
  dispose(reason = `${this.options.name} has been unloaded.`): void {
    this.closed ??= reason;
    if (this.disposed) return;
    this.disposed = true;
    const isolate = this.isolate;
    this.live = undefined;
    this.isolate = undefined;
    if (isolate && !isolate.isDisposed) isolate.dispose();
    this.current = undefined;
    this.refs?.dispatch.release();
    this.refs?.log.release();
    this.refs = undefined;
  }
}
