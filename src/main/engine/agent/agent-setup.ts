import { noModelChosen } from "./no-model-chosen.ts";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import { resolveLatheHome } from "../config/lathe-home.ts";
import { Engine } from "../engine.ts";
import { errorMessage } from "../errors/error-message.ts";
import { SessionError } from "../errors/session-error.ts";
import { TrustStore } from "../policy/trust-store.ts";
import { ConversationStore, type ConversationRecord } from "../store/conversation-store.ts";
import { openDatabase } from "../store/database.ts";
import { SessionStore } from "../store/session-store.ts";
import { loadAgentCatalog } from "./agent-catalog.ts";
import type { AgentManifest } from "./agent-manifest.ts";
import type { McpEvent } from "../mcp/mcp-event.ts";
import { defaultProviderRegistry } from "./default-providers.ts";
import { sessionModelSpec } from "./file-model-spec.ts";
import { ModelError } from "./model-error.ts";
import { configuredMcpServers } from "../mcp/mcp-approval.ts";
import { isStdio } from "../mcp/mcp-command-line.ts";
import { warmSpawner } from "../spawner/process-spawner.ts";
import { loadModelSettings } from "./model-settings.ts";
import type { ProviderRegistry, ResolvedModel, SecretSource } from "./provider-registry.ts";
import { withServerWindow } from "./server-window.ts";

interface AgentSetupInput {
  /** The workspace folder; defaults to the resumed session's folder, else the current directory. */
  root?: string;
  latheHome?: string;
  /** The agent's id; defaults to the resumed conversation's agent, else "default". */
  agentId?: string;
  /** `PROVIDER:MODEL`; defaults to the resumed conversation's, the agent's, then settings' defaultModel. */
  model?: string;
  /** A session whose conversation the run continues; it must exist. */
  resume?: string;
  /** What the resumed conversation is wanted for, as errors word it (default "resume"). */
  resumeFor?: "resume" | "compact";
  providers?: ProviderRegistry;
  env?: NodeJS.ProcessEnv;
  secrets?: SecretSource;
  fetch?: typeof fetch;
  /** Check the model's endpoint answers (and has the model) while the engine starts; rejects with ModelError. */
  preflight?: boolean;
  /**
   * The run starts processes (its MCP servers, the agent's commands): when stdio MCP servers are
   * configured, start the process spawner that starts them first thing (see below).
   */
  warmSpawner?: boolean;
  /** Told before an MCP server first starts (with its exact command line) and of its state changes. */
  onMcpEvent?: (event: McpEvent) => void;
  /** Told when opening the store starts a migration that takes seconds (see EngineOptions). */
  onLongMigration?: (notice: string) => void;
  signal?: AbortSignal;
}

interface AgentSetup {
  /** An engine carrying the agent's permission rules; the caller closes it. */
  engine: Engine;
  agent: AgentManifest;
  model: ResolvedModel;
  /** Things to tell the user once: ignored project agents or settings. */
  notices: string[];
}

/** The recorded conversation `id`, if any; and whether a session has that id (one of tool calls alone has none). */
function readConversation(
  latheHome: string,
  id: string,
  onLongMigration: ((notice: string) => void) | undefined,
): { conversation: ConversationRecord | undefined; session: boolean } {
  const db = openDatabase(path.join(latheHome, "lathe.db"), onLongMigration ? { onLongMigration } : {});
  try {
    return {
      conversation: new ConversationStore(db).get(id),
      session: new SessionStore(db).get(id) !== undefined,
    };
  } finally {
    db.close();
  }
}

/**
 * Everything a run needs, resolved in order: the agent (from the catalog, project agents only
 * in a trusted folder), the model (flag, resumed conversation, agent, settings) and an engine
 * with the agent's permission rules. Throws AgentNotFoundError, ManifestError, ModelError,
 * SessionError or ConfigError with a message that says how to fix it.
 */
export async function setupAgentRun(input: AgentSetupInput): Promise<AgentSetup> {
  const latheHome = await canonicalize(path.resolve(input.latheHome ?? resolveLatheHome(input.env)));
  let conversation: ConversationRecord | undefined;
  if (input.resume !== undefined) {
    const found = readConversation(latheHome, input.resume, input.onLongMigration);
    const wantedFor = input.resumeFor ?? "resume";
    conversation = found.conversation;
    if (!conversation && found.session) {
      // `lathe session list` shows these beside the conversations, so one may well be tried here.
      throw new SessionError(
        `Session ${input.resume} holds tool calls alone (lathe call or lathe batch with --session ${input.resume}): it has no conversation to ${wantedFor}. Go on with --session ${input.resume} on lathe call or lathe batch, or start a conversation with lathe run "<prompt>".`,
      );
    }
    if (!conversation) {
      throw new SessionError(
        `There is no conversation "${input.resume}" to ${wantedFor}. ${
          wantedFor === "resume"
            ? `Start one with lathe run "<prompt>"; it prints the session id to resume.`
            : "`lathe session list` shows the sessions there are."
        }`,
      );
    }
  }
  const requested = path.resolve(input.root ?? conversation?.root ?? process.cwd());
  let root: string;
  try {
    root = await realpath(requested);
  } catch {
    throw new SessionError(`The folder ${requested} does not exist. Pass an existing folder as the root.`);
  }
  if (conversation && conversation.root !== root) {
    throw new SessionError(
      `Session ${conversation.sessionId} works in ${conversation.root}, not ${root}. Leave out --root to resume it there.`,
    );
  }
  // Stdio MCP servers start through the process spawner, a Node process of its own: started now,
  // its start overlaps loading the agent, the model and the engine, where the engine would start
  // it only when it starts the servers and then wait for it. (Every run warms it at its first
  // step anyway; one without such servers is left as it was, its spawner off its first request's path.)
  const servers = configuredMcpServers(root, latheHome);
  if (
    input.warmSpawner === true &&
    process.platform !== "win32" &&
    servers.some((server) => isStdio(server.config))
  )
    warmSpawner();
  const projectTrusted = new TrustStore(latheHome).isTrusted(root);
  const catalog = await loadAgentCatalog({ root, latheHome, projectTrusted });
  const agent = catalog.get(input.agentId ?? conversation?.agent ?? "default");
  const settings = loadModelSettings({ root, latheHome, projectTrusted });
  // A session recorded before gguf: paths were kept absolute holds its path as written.
  const recorded =
    input.model === undefined && conversation !== undefined
      ? await sessionModelSpec(conversation.model, conversation)
      : undefined;
  const spec = input.model ?? recorded?.spec ?? agent.model ?? settings.defaultModel;
  if (spec === undefined) {
    throw new ModelError(
      "model_spec",
      noModelChosen(
        "pass --model PROVIDER:MODEL (e.g. --model ollama:llama3.2, or --model gguf:<file.gguf> to run a local file in-process)",
        agent,
        latheHome,
      ),
    );
  }
  const registry = input.providers ?? defaultProviderRegistry();
  // Stopped while it got this far (a slow machine still loading): no engine is started for nothing.
  input.signal?.throwIfAborted();
  const startEngine = (): Promise<StartedEngine> =>
    Engine.create({
      root,
      latheHome,
      manifestRules: agent.permissions,
      agent: agent.id,
      ...(input.onMcpEvent ? { onMcpEvent: input.onMcpEvent } : {}),
      ...(input.onLongMigration ? { onLongMigration: input.onLongMigration } : {}),
    }).then(
      (engine) => ({ engine }),
      (error: unknown) => ({ error }),
    );
  // With MCP servers configured, the engine starts first, and its servers with it: other
  // processes, the slowest part of a run's start, they boot while this process loads the model's
  // provider rather than after it. (Loaded alongside the engine's start, the provider would hold
  // this process's thread while the servers wait to be asked for.) Without any, nothing is gained:
  // the model is resolved first, so a model that cannot be used starts no engine.
  const early = servers.length > 0 ? await startEngine() : undefined;
  let resolved: ResolvedModel;
  try {
    resolved = await registry.resolve(spec, {
      providers: settings.providers,
      ...(input.env ? { env: input.env } : {}),
      ...(input.secrets ? { secrets: input.secrets } : {}),
      ...(input.fetch ? { fetch: input.fetch } : {}),
    });
    // Stopped while it got this far (a slow machine still loading): no engine goes on for nothing.
    input.signal?.throwIfAborted();
  } catch (err) {
    // The model's error is the one to fix first, as when the engine started only after it was
    // resolved; an engine started meanwhile is closed, its servers stopped.
    if (early !== undefined && "engine" in early) await closeStarted(early.engine, err);
    throw err;
  }
  // The endpoint check waits on the network; the engine's start does not need to wait for it.
  const check: Promise<{ error: unknown } | { notices: string[] }> | undefined =
    input.preflight && resolved.preflight
      ? resolved.preflight(input.signal).then(
          (notices) => ({ notices: notices ?? [] }),
          (error: unknown) => ({ error }),
        )
      : undefined;
  // Nor for the context window a local server runs the model with, asked meanwhile.
  const window = input.preflight ? withServerWindow(resolved, input.signal) : undefined;
  const started = early ?? (await startEngine());
  if ("error" in started) throw started.error;
  const { engine } = started;
  const checked = await check;
  if (checked && "error" in checked) {
    await engine.close();
    throw checked.error;
  }
  const learned = await window;
  const model = learned?.model ?? resolved;
  const modelNotices = [
    ...(recorded?.notice !== undefined ? [recorded.notice] : []),
    ...(checked?.notices ?? []),
    ...(learned?.notices ?? []),
  ];
  return {
    engine,
    agent,
    model,
    notices: [...catalog.notices, ...settings.notices, ...engine.notices, ...modelNotices],
  };
}

/** An engine's start, or why it failed (kept until the model's own error has been said). */
type StartedEngine = { engine: Engine } | { error: unknown };

/**
 * Close an engine started before the model that then failed to resolve. One that fails to close
 * joins the model's error, neither hiding the other.
 */
async function closeStarted(engine: Engine, cause: unknown): Promise<void> {
  try {
    await engine.close();
  } catch (closeError) {
    throw new AggregateError(
      [cause, closeError],
      `${errorMessage(cause)}; closing the engine started meanwhile failed too: ${errorMessage(closeError)}`,
      { cause: closeError },
    );
  }
}
