import type { LanguageModel } from "ai";
import type { ProviderEndpoint, ProvidersSettings } from "../config/lathe-settings.ts";
import { ModelError } from "./model-error.ts";
import type { ServerContextWindow } from "./models/server-context-window.ts";
import { parseModelSpec, type ModelSpec } from "./model-spec.ts";
import { DEFAULT_MODEL_TIMEOUTS, resolveModelTimeouts, type ModelTimeouts } from "./model-timeouts.ts";

/** Where API keys come from besides the environment, e.g. the app's OS keychain. Never a file. */
export type SecretSource = (name: string) => string | undefined;

/** What a provider factory may read: its settings entry, the environment, the keychain. */
export interface ProviderContext {
  /** This provider's entry under `providers` in settings, if any. */
  endpoint: ProviderEndpoint | undefined;
  env: NodeJS.ProcessEnv;
  secrets?: SecretSource;
  /** A fetch for requests to the endpoint (tests inject one; defaults to the global). */
  fetch?: typeof fetch;
}

/** A model ready to drive the loop. */
export interface ResolvedModel {
  spec: ModelSpec;
  model: LanguageModel;
  /** False when the provider knows the model cannot call tools: the loop runs a plain chat. */
  supportsTools?: boolean;
  /** The model's context window in tokens, when the provider knows it (sizes how many tool definitions it is shown). */
  contextTokens?: number;
  /**
   * Ask the server the context window it runs the model with (a local server, when settings do
   * not say): `withServerWindow` (server-window.ts) calls it once a run. Never rejects.
   */
  contextWindow?(signal?: AbortSignal): Promise<ServerContextWindow>;
  /**
   * Check the endpoint answers (and serves the model) before the run; throws ModelError.
   * Resolves to notices to tell the user once (a setting that works, but not as one may think).
   */
  preflight?(signal?: AbortSignal): Promise<string[] | undefined>;
  /** Turn a failure of a model call into a message that says what to do, when it knows one. */
  explainError?(error: unknown): string | undefined;
  /**
   * The text with the credentials this model's requests carry (its API key) masked, whatever
   * their shape: a server may echo them back in an error, which is shown and recorded.
   */
  maskSecrets?(text: string): string;
  /** How long a call may stay silent (`providers.<name>.timeouts`); the registry fills it in. */
  timeouts?: ModelTimeouts;
  /** Who answers, for messages: "Ollama at http://127.0.0.1:11434". */
  endpoint?: string;
  /** Whether images in tool results (from MCP tools) go to the model as images; else as a placeholder. */
  acceptsImages?: boolean;
}

export interface ProviderDefinition {
  name: string;
  /** One line for `--help` and the app's model picker. */
  description: string;
  /** How long its calls may stay silent unless settings say otherwise (default DEFAULT_MODEL_TIMEOUTS). */
  defaultTimeouts?: ModelTimeouts;
  /** May load the provider's SDK on first use (so `lathe run` only loads the one it needs). */
  create(model: string, context: ProviderContext): ResolvedModel | Promise<ResolvedModel>;
  /** The models the endpoint offers (for pickers); absent when the provider cannot list them. */
  listModels?(context: ProviderContext, signal?: AbortSignal): Promise<string[]>;
}

/** Settings and sources the registry hands to a provider. */
export interface ResolveOptions {
  providers?: ProvidersSettings;
  env?: NodeJS.ProcessEnv;
  secrets?: SecretSource;
  fetch?: typeof fetch;
}

/**
 * Provider name → factory of AI SDK language models. `PROVIDER:MODEL` names a model; hosts add
 * providers (e.g. an embedded GGUF runner) with `register`.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, ProviderDefinition>();

  register(definition: ProviderDefinition): void {
    if (this.providers.has(definition.name)) {
      throw new Error(`The model provider "${definition.name}" is registered twice.`);
    }
    this.providers.set(definition.name, definition);
  }

  names(): string[] {
    return [...this.providers.keys()].sort();
  }

  get(name: string): ProviderDefinition | undefined {
    return this.providers.get(name);
  }

  private context(name: string, options: ResolveOptions): ProviderContext {
    return {
      endpoint: (options.providers as Record<string, ProviderEndpoint | undefined> | undefined)?.[name],
      env: options.env ?? process.env,
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    };
  }

  private definition(name: string): ProviderDefinition {
    const definition = this.providers.get(name);
    if (!definition) {
      throw new ModelError(
        "model_spec",
        `There is no model provider "${name}". Use one of: ${this.names().join(", ")} (as PROVIDER:MODEL).`,
      );
    }
    return definition;
  }

  /** A model from `PROVIDER:MODEL` (or a parsed spec); rejects with ModelError when it cannot be used. */
  async resolve(spec: string | ModelSpec, options: ResolveOptions = {}): Promise<ResolvedModel> {
    const parsed = typeof spec === "string" ? parseModelSpec(spec, this.names()) : spec;
    const definition = this.definition(parsed.provider);
    const context = this.context(parsed.provider, options);
    const resolved = await definition.create(parsed.model, context);
    const timeouts = resolveModelTimeouts(
      definition.defaultTimeouts ?? DEFAULT_MODEL_TIMEOUTS,
      context.endpoint?.timeouts,
    );
    // A context window set in settings wins over what the provider guessed, and the server is not asked.
    const contextTokens = context.endpoint?.contextTokens ?? resolved.contextTokens;
    // The provider's spec names the model as a session records it (gguf: the file's absolute
    // path, so a resume from another folder runs the same file); the provider is the one asked.
    const recorded = { provider: parsed.provider, model: resolved.spec.model };
    if (contextTokens === undefined) return { ...resolved, spec: recorded, timeouts };
    const { contextWindow: _notAsked, ...known } = resolved;
    return { ...known, spec: recorded, timeouts, contextTokens };
  }

  /** The models a provider's endpoint offers; throws ModelError when it does not answer. */
  async listModels(provider: string, options: ResolveOptions = {}, signal?: AbortSignal): Promise<string[]> {
    const definition = this.definition(provider);
    if (!definition.listModels) return [];
    return definition.listModels(this.context(provider, options), signal);
  }
}
