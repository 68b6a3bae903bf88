import { InvalidArgumentError, Option, type Command } from "commander";
import type { Engine } from "../../engine/index.ts";
import type { RunEvent, RunStatus } from "../../engine/agent/index.ts";
import { counted, parseModelSpec } from "../../engine/light.ts";
import { CliError } from "../cli-error.ts";
import { type Mode, modeOption, parseAgentId, parseSessionId, rootOf, rootOption } from "../cli-options.ts";
import { ExitCode, type ExitCodeValue, type ExitStatus } from "../exit-codes.ts";
import { writeIfOpen } from "../closed-output.ts";
import { stopOnInterrupt } from "../interrupt.ts";
import { describeError } from "../output.ts";
import {
  closeEngine,
  reportRuntimeFailures,
  sayLongMigration,
  sayMcpStarts,
  settleExtensions,
} from "../open-engine.ts";
import { printPluginLogs } from "../plugin-log-printer.ts";
import { readStdin } from "../read-stdin.ts";
import { asksForJson, printRunJsonFailure } from "../run-json-failure.ts";
import { runEventPrinter, runOutcome } from "../run-event-printer.ts";

interface RunOptions {
  root?: string;
  agent?: string;
  model?: string;
  mode?: Mode;
  json?: boolean;
  resume?: string;
  replay?: boolean;
  verbose?: boolean;
}

export function modelOption(): Option {
  return new Option(
    "--model <provider:model>",
    "the model, e.g. gguf:~/models/qwen.gguf, ollama:llama3.2, lmstudio:<id>, llamacpp:<id>, vllm:<id>, openai-compatible:<id>, anthropic:<id>, openai:<id> (default: the agent's, else defaultModel in settings)",
  ).argParser((value: string) => {
    try {
      parseModelSpec(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    return value;
  });
}

/**
 * Errors that mean the command line itself is wrong: exit 2 (a model that names no provider, or
 * none chosen). A session or an agent is not one of them: a well-formed id that names no session
 * (or one that cannot be resumed here) or no agent (none defined, or one of a project not
 * trusted) exits 1, as every command given an id that names nothing does; a malformed id is
 * refused by `parseSessionId` / `parseAgentId` before the run starts (exit 2).
 */
const USAGE_CODES = new Set(["model_spec"]);

function failure(err: unknown): CliError {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  const usage = typeof code === "string" && USAGE_CODES.has(code);
  return new CliError(describeError(err), usage ? ExitCode.usage : ExitCode.failure);
}

/**
 * Replay the session's recorded events. Resolves to the exit code its last run had (0 finished, 1
 * failed or stopped early, or it recorded no end: its process was killed or crashed), so a script
 * that replays a session learns how it went as the live run's caller did.
 */
async function replay(options: RunOptions & { resume: string }): Promise<ExitCodeValue> {
  const [{ replaySession }, { withEngine }] = await Promise.all([
    import("../../engine/agent/index.ts"),
    import("../open-engine.ts"),
  ]);
  const json = options.json === true;
  const printEvent = runEventPrinter(json, {
    stdout: (t) => writeIfOpen(process.stdout, t),
    stderr: (t) => writeIfOpen(process.stderr, t),
  });
  // Read by a person, each recorded run says how it ended, as the live run said on stderr; one
  // whose process died (killed, crashed) recorded no end, and that is said too.
  let running = false;
  const unfinished = (): void => {
    if (running)
      writeIfOpen(process.stderr, "lathe: this run recorded no end: its process was killed or crashed.\n");
    running = false;
  };
  // The last run's end: undefined until one starts, null while it has recorded none.
  let lastEnd: RunStatus | null | undefined;
  const print = (event: RunEvent): void => {
    if (event.type === "start") lastEnd = null;
    if (event.type === "finish") lastEnd = event.status;
    if (!json && event.type === "start") unfinished();
    printEvent(event);
    if (json) return;
    if (event.type === "start") running = true;
    if (event.type === "finish") {
      running = false;
      const tokens =
        event.usage.totalTokens !== undefined ? `, ${counted(event.usage.totalTokens, "token")}` : "";
      writeIfOpen(process.stderr, `lathe: ${runOutcome(event.status, event.steps)}${tokens}.\n`);
    }
  };
  // Who runs the session's last run now, when its end is not recorded because it goes on.
  let goingOn: string | undefined;
  try {
    // A replay prints what was recorded: it calls no tool, so it starts no plugin or MCP server.
    // As `--resume` does, it goes to the session's own folder unless --root names another.
    await withEngine(
      rootOf(options),
      async (engine) => {
        replaySession(engine, options.resume, print, { ownFolderOnly: options.root !== undefined });
        if (lastEnd === null) goingOn = engine.runningIn(options.resume);
      },
      { extensions: false },
    );
  } catch (err) {
    throw failure(err);
  }
  if (!json && goingOn !== undefined) {
    // Not ended, not dead either: the replay shows it so far (and exits 1: it has not finished).
    writeIfOpen(process.stderr, `lathe: this run is still going on, ${goingOn}.\n`);
    running = false;
  }
  if (!json) unfinished();
  // A conversation with no run recorded has nothing that failed.
  if (lastEnd === undefined) return ExitCode.ok;
  return lastEnd === "completed" ? ExitCode.ok : ExitCode.failure;
}

/**
 * `lathe run "<prompt>"`: one agent turn, headless. Text streams to stdout (or JSONL events with
 * --json); `ask` approvals become denials and questions fail; the exit code says whether the run
 * finished (0), failed or stopped (1), or the command line was wrong (2).
 */
export function registerRunCommand(program: Command, result: ExitStatus, argv: readonly string[]): void {
  const command = program.command("run");
  // With --json, a failure says why on stdout too, as one JSON line (run-json-failure.ts): those
  // commander finds in the command line, and those of the action.
  command.exitOverride((err) => {
    if (asksForJson(argv)) printRunJsonFailure(err);
    throw err;
  });
  command
    .description("Run an agent on a prompt: the model drives the tools; its answer streams to stdout.")
    .argument("[prompt]", 'what the agent should do; "-" reads it from stdin')
    .addOption(rootOption())
    .option(
      "--agent <id>",
      'the agent (a manifest in $LATHE_HOME/agents or <root>/.lathe/agents; default "default")',
      parseAgentId,
    )
    .addOption(modelOption())
    .addOption(modeOption())
    .option("--json", "print every event as one line of JSON instead of the text")
    .option(
      "--verbose",
      "print plugins' log lines (runtime.log, console) and restarts to stderr as they come",
    )
    .option(
      "--resume <id>",
      "continue the session <id> (lathe run prints the id of every run)",
      parseSessionId,
    )
    .option(
      "--replay",
      "with --resume: print the recorded events again, calling neither the model nor any tool",
    )
    .addHelpText(
      "after",
      `
Models: PROVIDER:MODEL. gguf:<path> runs a GGUF file in-process (no server at all; tune it with
LATHE_GGUF_THREADS, LATHE_GGUF_CONTEXT_SIZE, LATHE_GGUF_MAX_STRING). Local servers need no key: ollama (127.0.0.1:11434), lmstudio (:1234),
llamacpp (:8080), vllm (:8000); move one, or point openai-compatible at any server, in settings:
  {"providers": {"openai-compatible": {"baseURL": "http://127.0.0.1:9000/v1", "apiKeyEnv": "MY_KEY"}},
   "defaultModel": "ollama:llama3.2"}
Cloud providers read their key from the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY.

JSON events (--json): start, notice, step-start, text, reasoning (cutOff: true on the last
piece of a text the model did not finish: cut at the output limit, a dropped connection, a stop),
tool-call, tool-phase {toolCallId, phase} while a call waits its turn ("queued", then
"running"), approval, question-refused, tool-result, step-finish, error, finish (with status
and token usage, summaries included), compaction {reason, messages, tokensBefore, tokensAfter,
summary, usage} when the conversation's older part was summarised to fit the model's context,
model-waiting {kind, elapsedMs, timeoutMs} when the model has been silent a while and
model-resumed once it goes on, and task: {taskId, toolCallId, event}, an event of a subagent
the task tool started (nested). A run that fails without a finish event (a bad --model, no
model, an unknown agent, a session it cannot resume) ends instead with one line
{"type": "error", "message": "…", "exitCode": 1 or 2}.

A model silent past its timeouts fails the run: providers.<name>.timeouts in settings
({"firstByteMs": 120000, "idleMs": 60000} by default; gguf: 600000 to the first byte).

Exit codes: 0 the run finished, 1 it failed or stopped early (error, budget, Ctrl-C), --resume names
no conversation it can continue or --agent no agent, 2 usage error (a malformed --resume or --agent id among them).
--replay exits as the session's last run did (1 when it failed, stopped early, recorded no end
or still goes on).

Examples:
  lathe run "Summarise README.md" --model ollama:llama3.2
  lathe run "Fix the failing test" --mode yolo --json > events.jsonl
  lathe run "Now add a test for it" --resume s-m2x1k9-1a2b3c4d
  lathe run --resume s-m2x1k9-1a2b3c4d --replay`,
    )
    .action(async (promptArg: string | undefined, options: RunOptions) => {
      try {
        result.exitCode = await runCommand(promptArg, options);
      } catch (err) {
        if (options.json === true) printRunJsonFailure(err);
        throw err;
      }
    });
}

async function runCommand(promptArg: string | undefined, options: RunOptions): Promise<ExitCodeValue> {
  if (options.replay) {
    if (options.resume === undefined)
      throw new CliError("--replay needs --resume <id>: the session to replay.", ExitCode.usage);
    if (promptArg !== undefined)
      throw new CliError("--replay takes no prompt: it only prints what was recorded.", ExitCode.usage);
    return replay({ ...options, resume: options.resume });
  }
  if (promptArg === undefined) {
    throw new CliError(
      'missing the prompt: lathe run "<what to do>" (or "-" to read it from stdin)',
      ExitCode.usage,
    );
  }
  const prompt = (promptArg === "-" ? await readStdin() : promptArg).trim();
  if (prompt === "") throw new CliError("The prompt is empty: say what the agent should do.", ExitCode.usage);
  return runOnce(prompt, options);
}

async function runOnce(prompt: string, options: RunOptions): Promise<ExitCodeValue> {
  // Ctrl-C, SIGTERM or a closed stdout stop the run from here on, at any stage.
  const controller = new AbortController();
  const progress: RunProgress = {};
  // When the process must end before the run wound down, the person still hears where it stands.
  const release = stopOnInterrupt(controller, {
    lastWord: () => {
      if (progress.told === true) return undefined;
      const word =
        progress.sessionId === undefined
          ? stoppedBeforeStart(options).message
          : `stopped before the run wound down; what was said so far is kept. Continue with: lathe run --resume ${progress.sessionId} "<prompt>"`;
      // A script reading --json learns it on stdout too, as from any run ending without a finish.
      if (options.json === true) printRunJsonFailure(new CliError(word, ExitCode.failure), { now: true });
      return word;
    },
  });
  try {
    return await runStoppable(prompt, options, controller.signal, progress);
  } finally {
    release();
  }
}

/** How far a run got, for the word said when the process ends before it wound down. */
interface RunProgress {
  /** Set by the run's start event: from then on the session holds what the run recorded. */
  sessionId?: string;
  /** The person has been told how the run ended (its finish, or that it never started). */
  told?: boolean;
}

async function runStoppable(
  prompt: string,
  options: RunOptions,
  signal: AbortSignal,
  progress: RunProgress,
): Promise<0 | 1> {
  // Stdio MCP servers start through the process spawner: started once the engine's code has
  // loaded, before the agent's (the ai SDK) does, it boots meanwhile and the servers wait on it
  // less. (A resumed session's folder is known only once its conversation is read: setupAgentRun
  // starts the spawner then.)
  if (options.root !== undefined || options.resume === undefined) {
    const { warmSpawnerForServers } = await import("../../engine/index.ts");
    await warmSpawnerForServers(rootOf(options));
  }
  const agentModule = await import("../../engine/agent/index.ts");
  const json = options.json === true;
  const printEvent = runEventPrinter(json, {
    stdout: (t) => writeIfOpen(process.stdout, t),
    stderr: (t) => writeIfOpen(process.stderr, t),
  });
  const print: typeof printEvent = (event) => {
    if (event.type === "start") progress.sessionId = event.sessionId;
    // In JSON the finish event is the last word; in text, the outcome line printed after it.
    if (event.type === "finish" && json) progress.told = true;
    printEvent(event);
  };
  let setup: Awaited<ReturnType<typeof agentModule.setupAgentRun>>;
  try {
    setup = await agentModule.setupAgentRun({
      // A resumed session runs in its own folder unless --root says otherwise.
      ...(options.root !== undefined || options.resume === undefined ? { root: rootOf(options) } : {}),
      ...(options.agent !== undefined ? { agentId: options.agent } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.resume !== undefined ? { resume: options.resume } : {}),
      preflight: true,
      warmSpawner: true,
      signal,
      onMcpEvent: sayMcpStarts,
      onLongMigration: sayLongMigration,
    });
  } catch (err) {
    if (signal.aborted) throw stoppedBeforeStart(options, progress);
    throw failure(err);
  }
  const { engine, agent, model } = setup;
  if (options.verbose === true) printPluginLogs(engine);
  reportRuntimeFailures(engine);
  try {
    // Stopped while starting: nothing was asked of the model, so nothing is recorded either.
    if (signal.aborted) throw stoppedBeforeStart(options, progress);
    // The store the run records in is opened while the servers start rather than after them,
    // off the first request's path. It fails as it would in the run: the same error, said the same way.
    try {
      engine.conversations();
    } catch (err) {
      throw failure(err);
    }
    // The model is offered the MCP servers' tools, as `lathe call` has them: wait for the servers.
    await settleExtensions(engine);
    if (signal.aborted) throw stoppedBeforeStart(options, progress);
    for (const message of setup.notices) print({ type: "notice", message });
    const run = await agentModule
      .runAgent({
        engine,
        agent,
        model,
        prompt,
        ...(options.resume !== undefined ? { sessionId: options.resume } : {}),
        ...(options.mode !== undefined ? { mode: options.mode } : {}),
        signal,
        onEvent: print,
      })
      .catch((err: unknown) => {
        throw failure(err);
      });
    // Background tasks go on after the run; they print as they work, and Ctrl-C stops them too.
    await agentModule.settleTasks(engine);
    if (!json) {
      const outcome = runOutcome(run.status, run.steps);
      const tokens =
        run.usage.totalTokens !== undefined ? `, ${counted(run.usage.totalTokens, "token")}` : "";
      // After a failure the same prompt fails again until its cause (said above) is dealt with.
      // A dropped connection leaves nothing to fix in the conversation: it goes on as it is.
      const then =
        run.status === "failed" && run.connectionDropped !== true
          ? "Once the error above is dealt with, continue"
          : "Continue";
      writeIfOpen(
        process.stderr,
        run.contextFull === true
          ? `lathe: ${outcome}${tokens}. ${contextFullWayOn(engine, run)}\n`
          : `lathe: ${outcome}${tokens}. ${then} with: lathe run --resume ${run.sessionId} "<prompt>"\n`,
      );
      progress.told = true;
    }
    return run.status === "completed" ? ExitCode.ok : ExitCode.failure;
  } finally {
    await closeEngine(engine);
    // A model run in this process (gguf) is freed with the run: in the daemon the process goes on.
    await agentModule.releaseInProcessModels();
  }
}

/** A word for the shell: as it is when it needs no quoting, else in double quotes. */
function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : JSON.stringify(word);
}

/**
 * What to do when the conversation no longer fits the model's context: resuming it as it is
 * fails the same way, so the ways on are a new session or a rewind to before this run's prompt.
 */
function contextFullWayOn(engine: Engine, run: { sessionId: string; runId: string }): string {
  const prompts = engine.conversations().prompts(run.sessionId);
  const prompt = prompts.find((p) => p.runId === run.runId);
  const root = engine.root === process.cwd() ? "" : ` --root ${shellWord(engine.root)}`;
  // Back to before the session's first prompt would leave nothing: a new session is the same.
  const rewind =
    prompt === undefined || prompt === prompts[0]
      ? ""
      : `, or take this session back to before this prompt (undoing its file changes) with: lathe rewind --session ${run.sessionId} --before ${prompt.seq}${root}`;
  return `Resumed as it is, the conversation fails the same way: start a new session with lathe run "<prompt>"${rewind}`;
}

/** The error a run stopped while it started ends with; `progress` learns it has been said. */
function stoppedBeforeStart(options: RunOptions, progress?: RunProgress): CliError {
  if (progress) progress.told = true;
  const again =
    options.resume !== undefined ? `lathe run --resume ${options.resume} "<prompt>"` : "lathe run";
  return new CliError(
    `stopped before the run started; nothing was recorded. Start again with: ${again}`,
    ExitCode.failure,
  );
}
