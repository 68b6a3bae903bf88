import type { RunEvent } from "../engine/agent/index.ts";
import { compactionLine } from "../engine/light.ts";
import { shownLines, shownText } from "./shown-path.ts";

type RunStatus = Extract<RunEvent, { type: "finish" }>["status"];

interface RunOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Text a model, a tool or a server wrote, as part of one line on a person's terminal: whitespace
 * collapsed, cut at `max`, and control characters escaped (see shownText): an escape sequence in
 * a tool's error or in a refused command would otherwise reach the terminal and act there.
 */
function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return shownText(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}

/** How a run ended, in a few words: "done in 2 steps", "stopped", "failed"… */
export function runOutcome(status: RunStatus, steps: number): string {
  const count = `${steps} step${steps === 1 ? "" : "s"}`;
  switch (status) {
    case "completed":
      return `done in ${count}`;
    case "max-rounds":
      return `stopped after ${count}: the agent's budgets.maxRounds`;
    case "aborted":
      return "stopped";
    case "failed":
      return "failed";
  }
}

/** What follows a text the model did not finish, on its own line on stderr. */
export const CUT_OFF_LINE = "lathe: [the text above was cut off here: the model did not finish it]";

/** What a task's output is indented with, once per level of nesting. */
const TASK_INDENT = "  │ ";

/** The stderr line of an event that is not the model's text, if it has one. */
function activityLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case "tool-call":
      return `▸ ${shownText(event.toolName)} ${oneLine(JSON.stringify(event.input) ?? "")}`;
    case "approval":
      return `  ${event.decision === "allow" ? "approved" : "not approved"}: ${oneLine(event.reason, 400)}`;
    case "question-refused":
      return "  question refused: no one can answer here (headless)";
    case "tool-result":
      return event.envelope.type === "output"
        ? `  ✓ ${shownText(event.toolName)} (${event.envelope.metadata.duration_ms} ms${event.envelope.metadata.truncated ? ", truncated" : ""})`
        : `  ✗ ${shownText(event.toolName)}: ${oneLine(event.envelope.error_text, 400)}`;
    case "notice":
      return `lathe: ${shownLines(event.message)}`;
    case "compaction":
      return `lathe: ${compactionLine(event)}`;
    case "model-waiting":
      // A silent model fails the step in time with its own error; a wait for the model another
      // run (a task beside this one) is using can last as long as that answer, and says so.
      return event.kind === "model-busy"
        ? `lathe: waiting for the model: another run is using it (the wait counts toward no timeout; its ${Math.round(event.timeoutMs / 1_000)} s to start answering begin once it has the model)`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * How `lathe run` shows a run: with `--json`, every event as one line of JSON on stdout (a task's
 * events nested in `task` events); else the model's text on stdout and the rest (tool calls,
 * results, approvals, notices, and everything tasks do, indented under them) on stderr, so
 * `lathe run "…" > answer.md` keeps only the answer. Control characters other than newline and
 * tab are printed escaped (`\u001b`) everywhere but in `--json` (where JSON escapes them), so
 * neither the model nor a tool can act on the terminal of whoever reads the run.
 */
export function runEventPrinter(json: boolean, out: RunOutput): (event: RunEvent) => void {
  if (json) return (event) => out.stdout(`${JSON.stringify(event)}\n`);
  let atLineStart = true;
  let textStep = -1;
  const endLine = (): void => {
    if (!atLineStart) out.stdout("\n");
    atLineStart = true;
  };
  // A task's text is printed a whole line at a time, so lines of tasks running side by side do not mix.
  const partial = new Map<string, string>();

  const printTask = (event: RunEvent, depth: number, key: string): void => {
    const indent = TASK_INDENT.repeat(depth);
    const flush = (): void => {
      const rest = partial.get(key);
      partial.delete(key);
      if (rest) out.stderr(`${indent}${rest}\n`);
    };
    switch (event.type) {
      case "task":
        printTask(event.event, depth + 1, `${key}/${event.taskId}`);
        return;
      case "text": {
        const lines = `${partial.get(key) ?? ""}${shownLines(event.text)}`.split("\n");
        partial.set(key, lines.pop() ?? "");
        for (const line of lines) out.stderr(`${indent}${line}\n`);
        if (event.cutOff) {
          flush();
          out.stderr(`${indent}${CUT_OFF_LINE}\n`);
        }
        return;
      }
      case "start":
        out.stderr(
          `${indent}task ${event.sessionId}: agent ${shownText(event.agent)} on ${shownText(event.model)}\n`,
        );
        return;
      case "error":
        flush();
        out.stderr(`${indent}error: ${shownLines(event.message)}\n`);
        return;
      case "finish":
        flush();
        out.stderr(
          `${indent}task ${event.status} after ${event.steps} step${event.steps === 1 ? "" : "s"}\n`,
        );
        return;
      default: {
        flush();
        const line = activityLine(event);
        if (line !== undefined) out.stderr(`${indent}${line}\n`);
      }
    }
  };

  return (event) => {
    switch (event.type) {
      case "text":
        // Each step's text starts on its own line.
        if (event.step !== textStep && textStep !== -1) endLine();
        textStep = event.step;
        out.stdout(shownLines(event.text));
        if (event.text !== "") atLineStart = event.text.endsWith("\n");
        if (event.cutOff) {
          endLine();
          out.stderr(`${CUT_OFF_LINE}\n`);
        }
        break;
      case "task":
        printTask(event.event, 1, event.taskId);
        break;
      case "error":
        endLine();
        out.stderr(`error: ${shownLines(event.message)}\n`);
        break;
      case "finish":
        endLine();
        break;
      default: {
        const line = activityLine(event);
        if (line !== undefined) out.stderr(`${line}\n`);
      }
    }
  };
}
