import os from "node:os";
import path from "node:path";
import type {
  GbnfJsonSchema,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
} from "node-llama-cpp";
import { ModelError } from "../../model-error.ts";
import { assertContextFits } from "./context-memory.ts";
import { assertGgufFile, explainLoadFailure, ggufTruncation } from "./gguf-load-error.ts";
import { loadNodeLlamaCpp, type NodeLlamaCpp, withNodeLlamaCppEnv } from "./node-llama-cpp.ts";
import { SequencePool } from "./sequence-pool.ts";

interface LlamaRuntimeOptions {
  /**
   * `false` (the default) runs on the CPU; `"auto"` uses a GPU when one of node-llama-cpp's
   * prebuilt GPU binaries works on this machine. Nothing is ever downloaded or built.
   */
  gpu?: false | "auto";
  /**
   * A cap on the threads all models use together. Default: node-llama-cpp's choice, but never
   * more than the machine's cores (it asks for at least 4, and spinning threads on fewer cores
   * slow generation down many times over).
   */
  maxThreads?: number;
  /** Receives llama.cpp's warnings and errors (the last few also go into load-failure messages). */
  onLog?: (level: string, message: string) => void;
  /** The memory free now, in bytes, that a new context must fit in. Default `os.freemem()`. */
  freeMemory?: () => number;
  /**
   * How long a model no call uses stays loaded (ms); default 10 minutes. When another model file
   * loads, one no call has used for `keepOnSwitchMs` (default 30 s) is freed at once instead, so
   * switching models does not hold both in memory, while a run between two steps keeps its own.
   */
  keepIdleMs?: number;
  keepOnSwitchMs?: number;
}

export interface ContextSettings {
  /** Tokens the model sees at once; default the smaller of 8192 and what the model was trained on. */
  contextSize?: number;
  /** Threads one generation uses; node-llama-cpp picks when absent. */
  threads?: number;
  /** How many calls may generate on this model at once (each has its own sequence). Default 1. */
  sequences?: number;
}

/** A context sequence lent to one model call; `release` hands it to the next caller. */
export interface SequenceLease {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  release(): void;
}

/** What `prepare` made: the context's size and the one the model was trained for, in tokens. */
export interface PreparedContext {
  contextSize: number;
  trainContextSize: number;
}

interface PooledContext {
  context: LlamaContext;
  pool: SequencePool<LlamaContextSequence>;
}

const DEFAULT_CONTEXT_SIZE = 8192;

/** The context a model gets: the size asked for, else 8192 tokens or its trained context if less. */
export function contextSizeFor(trainContextSize: number, requested: number | undefined): number {
  return requested ?? Math.min(DEFAULT_CONTEXT_SIZE, trainContextSize);
}
const KEEP_IDLE_MS = 10 * 60_000;
const KEEP_ON_SWITCH_MS = 30_000;
const GRAMMAR_CACHE_SIZE = 32;
const KEPT_LOGS = 6;

function maxThreads(requested: number | undefined): { maxThreads?: number } {
  if (requested !== undefined) return { maxThreads: requested };
  const cores = os.availableParallelism();
  return cores < 4 ? { maxThreads: cores } : {};
}

/**
 * One llama.cpp instance for the process, models loaded once per file, and contexts kept per
 * model and settings so consecutive calls reuse what is already evaluated. node-llama-cpp is
 * imported on first use, so hosts that never run a GGUF do not pay for it.
 */
export class LlamaRuntime {
  private readonly options: LlamaRuntimeOptions;
  private module: Promise<NodeLlamaCpp> | undefined;
  private instance: Promise<Llama> | undefined;
  private readonly models = new Map<string, Promise<LlamaModel>>();
  private readonly contexts = new Map<string, Promise<PooledContext>>();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** Per model file: the calls holding or waiting for one of its sequences, and since when none has. */
  private readonly use = new Map<string, { calls: number; idleSince: number; timer?: NodeJS.Timeout }>();
  private logs: string[] = [];

  constructor(options: LlamaRuntimeOptions = {}) {
    this.options = options;
  }

  private nodeLlamaCpp(): Promise<NodeLlamaCpp> {
    this.module ??= loadNodeLlamaCpp();
    return this.module;
  }

  /** The shared llama.cpp binding, started on first use (a second or so, once per process). */
  llama(): Promise<Llama> {
    this.instance ??= this.startLlama().catch((error: unknown) => {
      this.instance = undefined;
      throw error;
    });
    return this.instance;
  }

  private async startLlama(): Promise<Llama> {
    const { getLlama, LlamaLogLevel } = await this.nodeLlamaCpp();
    try {
      // It tests its binary in a process of its own, which loads the module again.
      return await withNodeLlamaCppEnv(() =>
        getLlama({
          gpu: this.options.gpu ?? false,
          build: "never",
          skipDownload: true,
          usePrebuiltBinaries: true,
          progressLogs: false,
          logLevel: LlamaLogLevel.warn,
          logger: (level, message) => this.log(level, message),
          ...maxThreads(this.options.maxThreads),
        }),
      );
    } catch (error) {
      throw new ModelError(
        "model_unavailable",
        `llama.cpp cannot start on this machine (${(error as Error).message}). node-llama-cpp ships prebuilt binaries for Linux, macOS and Windows on x64 and arm64; Lathe never builds it from source. Use a local server provider such as ollama instead.`,
        { cause: error },
      );
    }
  }

  private log(level: string, message: string): void {
    const text = message.trim();
    if (text === "") return;
    this.logs.push(text);
    if (this.logs.length > KEPT_LOGS) this.logs.shift();
    this.options.onLog?.(level, text);
  }

  /**
   * The model in `file` (an absolute path), loaded once and kept while calls use it (see
   * `keepIdleMs`); throws ModelError saying what is wrong.
   */
  model(file: string): Promise<LlamaModel> {
    const key = path.resolve(file);
    let model = this.models.get(key);
    if (!model) {
      const loading = this.loadModel(key);
      model = loading;
      this.models.set(key, loading);
      this.busy(key); // the load itself: the model is not freed while it loads
      loading.then(
        () => this.idle(key),
        () => {
          if (this.models.get(key) === loading) this.models.delete(key);
          this.idle(key);
        },
      );
    }
    return model;
  }

  private async loadModel(file: string): Promise<LlamaModel> {
    await assertGgufFile(file);
    // Before llama.cpp sees it: node-llama-cpp reads a cut-off header without complaint, fails on
    // what is missing, and may then never finish disposing of itself.
    const llama = await this.llama();
    const cutOff = await ggufTruncation(file, llama);
    if (cutOff !== undefined) throw new ModelError("model_unavailable", cutOff);
    await this.freeIdleModels(file);
    this.logs = [];
    try {
      return await llama.loadModel({ modelPath: file });
    } catch (error) {
      throw explainLoadFailure(error, file, undefined, this.logs);
    }
  }

  /**
   * A sequence of a context on the model in `file`, waiting for a free one (`onWait` is told
   * when every one is lent to other calls, before the wait); abortable.
   */
  async lease(
    file: string,
    settings: ContextSettings = {},
    signal?: AbortSignal,
    onWait?: () => void,
  ): Promise<SequenceLease> {
    const key = path.resolve(file);
    this.busy(key);
    try {
      return await this.leaseSequence(key, settings, signal, onWait);
    } catch (error) {
      this.idle(key);
      throw error;
    }
  }

  /**
   * Loads the model in `file` and creates the context `settings` describe, as the first call
   * would, so what cannot work (a file that does not load, a context too large for the memory
   * free) is refused before a run starts; the context is kept for the calls that follow.
   * Throws ModelError saying what is wrong.
   */
  async prepare(file: string, settings: ContextSettings = {}): Promise<PreparedContext> {
    const key = path.resolve(file);
    this.busy(key);
    try {
      const model = await this.model(key);
      const { contextSize, pooled } = this.pooledContext(key, model, settings);
      await pooled;
      return { contextSize, trainContextSize: model.trainContextSize };
    } finally {
      this.idle(key);
    }
  }

  /** The context `settings` describe on `model`, created once and shared by later calls. */
  private pooledContext(
    file: string,
    model: LlamaModel,
    settings: ContextSettings,
  ): { contextSize: number; pooled: Promise<PooledContext> } {
    const contextSize = contextSizeFor(model.trainContextSize, settings.contextSize);
    const key = [file, contextSize, settings.threads ?? "", settings.sequences ?? 1].join("\0");
    let pooled = this.contexts.get(key);
    if (!pooled) {
      const creating = this.createContext(model, file, contextSize, settings);
      pooled = creating;
      this.contexts.set(key, creating);
      creating.catch(() => {
        if (this.contexts.get(key) === creating) this.contexts.delete(key);
      });
    }
    return { contextSize, pooled };
  }

  private async leaseSequence(
    file: string,
    settings: ContextSettings,
    signal: AbortSignal | undefined,
    onWait: (() => void) | undefined,
  ): Promise<SequenceLease> {
    const model = await this.model(file);
    const { pool } = await this.pooledContext(file, model, settings).pooled;
    const sequence = await pool.acquire(signal, onWait);
    let released = false;
    return {
      model,
      sequence,
      release: () => {
        if (released) return;
        released = true;
        pool.release(sequence);
        this.idle(file);
      },
    };
  }

  private async createContext(
    model: LlamaModel,
    file: string,
    contextSize: number,
    settings: ContextSettings,
  ): Promise<PooledContext> {
    const sequences = Math.max(1, settings.sequences ?? 1);
    const free = (this.options.freeMemory ?? os.freemem)();
    assertContextFits(model, { contextSize, sequences, free });
    this.logs = [];
    let context: LlamaContext;
    try {
      context = await model.createContext({
        contextSize,
        sequences,
        ...(settings.threads !== undefined ? { threads: settings.threads } : {}),
      });
    } catch (error) {
      throw explainLoadFailure(error, file, contextSize, this.logs);
    }
    const items = Array.from({ length: sequences }, () => context.getSequence());
    return { context, pool: new SequencePool(items) };
  }

  /** A grammar for a JSON schema; the last few are kept, since an agent offers the same tools each step. */
  async grammar(schema: GbnfJsonSchema): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (grammar) {
      this.grammars.delete(key);
    } else {
      grammar = this.llama().then((llama) => llama.createGrammarForJsonSchema<GbnfJsonSchema>(schema));
      grammar.catch(() => this.grammars.delete(key));
    }
    this.grammars.set(key, grammar);
    for (const oldest of this.grammars.keys()) {
      if (this.grammars.size <= GRAMMAR_CACHE_SIZE) break;
      this.grammars.delete(oldest);
    }
    return grammar;
  }

  /** A grammar for any JSON value (`responseFormat: json` without a schema). */
  async jsonGrammar(): Promise<LlamaGrammar> {
    return (await this.llama()).getGrammarFor("json");
  }

  private busy(file: string): void {
    const use = this.use.get(file);
    if (use) {
      use.calls += 1;
      clearTimeout(use.timer);
      delete use.timer;
    } else this.use.set(file, { calls: 1, idleSince: 0 });
  }

  /** A call on `file` ended (or its model finished loading): once none is left, the model's idle time starts. */
  private idle(file: string): void {
    const use = this.use.get(file);
    if (!use) return; // unloaded meanwhile
    use.calls = Math.max(0, use.calls - 1);
    if (use.calls > 0) return;
    if (!this.models.has(file)) {
      this.use.delete(file); // it never loaded: nothing to keep or free
      return;
    }
    use.idleSince = Date.now();
    clearTimeout(use.timer);
    use.timer = setTimeout(() => {
      if (this.use.get(file) === use && use.calls === 0) void this.unload(file).catch(() => undefined);
    }, this.options.keepIdleMs ?? KEEP_IDLE_MS);
    use.timer.unref();
  }

  /** Before `file` loads: frees every other model no call has used for `keepOnSwitchMs`. */
  private async freeIdleModels(file: string): Promise<void> {
    const keep = this.options.keepOnSwitchMs ?? KEEP_ON_SWITCH_MS;
    const now = Date.now();
    const idle = [...this.models.keys()].filter((other) => {
      const use = this.use.get(other);
      return other !== file && use !== undefined && use.calls === 0 && now - use.idleSince >= keep;
    });
    await Promise.all(idle.map((other) => this.unload(other)));
  }

  /** Frees the model in `file` and its contexts (calls running on it are cut off). */
  async unload(file: string): Promise<void> {
    const key = path.resolve(file);
    const use = this.use.get(key);
    clearTimeout(use?.timer);
    this.use.delete(key);
    // Forgotten at once, so a call that comes while they are freed loads the model afresh.
    const pooledContexts = [...this.contexts].filter(([contextKey]) => contextKey.startsWith(`${key}\0`));
    for (const [contextKey] of pooledContexts) this.contexts.delete(contextKey);
    const model = this.models.get(key);
    this.models.delete(key);
    for (const [, pooled] of pooledContexts) {
      await pooled.then(
        async ({ context, pool }) => {
          pool.close();
          await context.dispose();
        },
        () => undefined, // it never loaded: nothing to free
      );
    }
    await model?.then(
      (loaded) => loaded.dispose(),
      () => undefined, // it never loaded: nothing to free
    );
  }

  /** Frees every model and llama.cpp itself; the runtime starts afresh if used again. */
  async dispose(): Promise<void> {
    for (const key of [...this.models.keys()]) await this.unload(key);
    this.grammars.clear();
    const instance = this.instance;
    this.instance = undefined;
    await instance?.then(
      (llama) => llama.dispose(),
      () => undefined, // it never started: nothing to free
    );
  }
}

let shared: LlamaRuntime | undefined;

/** The process-wide runtime `createGgufModel` uses unless given another (CPU only). */
export function sharedLlamaRuntime(): LlamaRuntime {
  shared ??= new LlamaRuntime();
  return shared;
}

/**
 * Free the process-wide runtime's models and llama.cpp, if anything used them: a command that
 * ends in a process that goes on (the CLI's daemon) must not keep gigabytes of model loaded
 * after it. The next use starts a fresh runtime.
 */
export async function releaseSharedLlamaRuntime(): Promise<void> {
  const runtime = shared;
  shared = undefined;
  await runtime?.dispose();
}
