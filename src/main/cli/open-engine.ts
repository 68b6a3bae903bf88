import type { Engine, McpEvent, UnsandboxedServerApprover } from "../engine/index.ts";
import { AuditUnwrittenError } from "../engine/light.ts";
import { writeIfOpen } from "./closed-output.ts";
import { describeError, writeStderr } from "./output.ts";
import { shownLines, shownText } from "./shown-path.ts";

/** The engines whose unwritable audit trail stderr has already explained. */
const auditFailureSaid = new WeakSet<Engine>();

/**
 * What fails in the engine and is no one's call's answer goes to stderr: internal errors (the
 * runtime's fault), and an audit trail that cannot be written (then no call runs).
 */
export function reportRuntimeFailures(engine: Engine): void {
  engine.events.on("internal-error", ({ toolId, sessionId, error }) => {
    void writeStderr(`internal error in tool ${toolId} (session ${sessionId}): ${describeError(error)}\n`);
  });
  engine.events.on("AuditFailed", ({ error }) => {
    auditFailureSaid.add(engine);
    void writeStderr(`lathe: no further tool call runs: ${describeError(error)}\n`);
  });
}

/**
 * Close the engine; a failure is said on stderr and never thrown, so it hides neither what the
 * command printed nor its own error. Calls left out of the audit trail are counted there, and why
 * the trail could not be written is said only if stderr has not said it already (a person reads
 * the reason once, not once per line that mentions it).
 */
export async function closeEngine(engine: Engine): Promise<void> {
  try {
    await engine.close();
  } catch (err) {
    if (err instanceof AuditUnwrittenError && auditFailureSaid.has(engine)) {
      const n = err.calls;
      await writeStderr(
        `lathe: ${n} tool call${n === 1 ? " is" : "s are"} missing from the audit trail, which could not be written (why: above).\n`,
      );
      return;
    }
    await writeStderr(`error while closing the engine: ${describeError(err)}\n`);
  }
}

/**
 * Says what opening the store does when it takes seconds (a migration after an upgrade), before
 * it starts. The process does nothing else meanwhile: the line is handed to stderr at once (a
 * terminal, a file or, on Linux, a pipe takes it synchronously), not queued behind the work.
 */
export function sayLongMigration(notice: string): void {
  writeIfOpen(process.stderr, `lathe: ${shownText(notice)}\n`);
}

/**
 * Says exactly what runs before an MCP server first starts (an engine's `onMcpEvent`), or that
 * one still running from an earlier command (kept by the daemon) is used instead.
 */
export function sayMcpStarts(event: McpEvent): void {
  if (event.type === "starting" && event.first) {
    void writeStderr(`lathe: starting MCP server ${event.server} (${event.layer}): ${event.commandLine}\n`);
  } else if (event.type === "reused") {
    const pid = event.pid === undefined ? "" : `, pid ${event.pid}`;
    void writeStderr(
      `lathe: using MCP server ${event.server} (${event.layer}), still running from an earlier command${pid}: ${event.commandLine}\n`,
    );
  }
}

/**
 * For a one-shot command, which must see every tool: wait for MCP servers to start, then say on
 * stderr what could not load (a command that lists the disabled tools itself, `listsDisabled`,
 * leaves only the unnamed problems to stderr).
 */
export async function settleExtensions(engine: Engine, listsDisabled = false): Promise<void> {
  await engine.settleExtensions();
  for (const d of engine.registry.disabledTools()) {
    if (listsDisabled && d.origin.name !== undefined) continue;
    // Turned off on purpose: saying so on every command would be noise (`lathe tools` lists it).
    if (d.byChoice === true) continue;
    const fix = d.fix === undefined ? "" : ` Fix: ${d.fix}.`;
    // A problem of a folder or a settings entry, not of one plugin or server: its reason says it all.
    const what =
      d.origin.name === undefined
        ? ""
        : `${d.id} (${d.origin.layer} ${d.origin.kind} "${d.origin.name}") is disabled: `;
    // The reason may quote what a server wrote: it reaches the terminal escaped.
    await writeStderr(`lathe: ${shownText(`${what}${d.reason}${fix}`)}\n`);
  }
}

/**
 * Create the engine for a root. The engine (and with it zod, ajv, SQLite) is imported here, on
 * first use, so `lathe --help` and `lathe --version` start instantly. Internal errors the engine
 * reports go to stderr: they are the runtime's fault, and a person should see them.
 */
export async function openEngine(
  root: string,
  options: {
    extensions?: boolean;
    watchExtensions?: boolean;
    approveUnsandboxedMcp?: UnsandboxedServerApprover;
  } = {},
): Promise<Engine> {
  const { Engine } = await import("../engine/index.ts");
  const engine = await Engine.create({
    root,
    ...(options.extensions === false ? { extensions: false } : {}),
    ...(options.watchExtensions === false ? { watchExtensions: false } : {}),
    // Only a host with a person to ask (lathe serve) passes one; headless, such servers stay stopped.
    ...(options.approveUnsandboxedMcp ? { approveUnsandboxedMcp: options.approveUnsandboxedMcp } : {}),
    onMcpEvent: sayMcpStarts,
    onLongMigration: sayLongMigration,
  });
  // Said once per run: e.g. a project's settings ignored until the folder is trusted. A notice
  // may name a file (a skill folder that was skipped): it reaches the terminal escaped.
  for (const notice of engine.notices) await writeStderr(`lathe: ${shownLines(notice)}\n`);
  reportRuntimeFailures(engine);
  engine.events.on("CheckpointSkipped", ({ reason }) => void writeStderr(`lathe: ${shownLines(reason)}\n`));
  return engine;
}

/**
 * Run `fn` with an engine for `root` (without plugins and MCP servers when `extensions` is
 * false: commands that only read the store need none), then close the engine. A failure while
 * closing is reported on stderr but never hides what `fn` produced (for `call`, the envelope) or
 * the error it threw. `listsDisabled`: the command prints the disabled tools itself, so stderr
 * does not repeat them.
 */
export async function withEngine<T>(
  root: string,
  fn: (engine: Engine) => Promise<T>,
  options: { extensions?: boolean; listsDisabled?: boolean; watchExtensions?: boolean } = {},
): Promise<T> {
  // One command, then exit: compiling zod's checkers would cost more than it saves.
  const { validateWithoutJit } = await import("../engine/index.ts");
  validateWithoutJit();
  // One command and no turn: plugin folders changing meanwhile are seen by the next command
  // (a command that makes many calls, `lathe batch`, watches them and applies what changed
  // between its calls).
  const engine = await openEngine(root, { ...options, watchExtensions: options.watchExtensions === true });
  try {
    await settleExtensions(engine, options.listsDisabled === true);
    return await fn(engine);
  } finally {
    await closeEngine(engine);
  }
}
