import type { RunEvent } from "../engine/agent/index.ts";

export interface RunOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * How `lathe run` shows a run: with `--json`, every event as one line of JSON on stdout; else
 * the model's text on stdout and the rest (tool calls, results, approvals, notices) on stderr,
 * so `lathe run "…" > answer.md` keeps only the answer.
 */
export function runEventPrinter(json: boolean, out: RunOutput): (event: RunEvent) => void {
  if (json) return (event) => out.stdout(`${JSON.stringify(event)}\n`);
  let atLineStart = true;
  let textStep = -1;
  const endLine = (): void => {
    if (!atLineStart) out.stdout("\n");
    atLineStart = true;
  };
  return (event) => {
    switch (event.type) {
      case "text":
        // Each step's text starts on its own line.
        if (event.step !== textStep && textStep !== -1) endLine();
        textStep = event.step;
        out.stdout(event.text);
        atLineStart = event.text.endsWith("\n");
        break;
      case "tool-call":
        out.stderr(`▸ ${event.toolName} ${oneLine(JSON.stringify(event.input) ?? "")}\n`);
        break;
      case "approval":
        out.stderr(
          `  ${event.decision === "allow" ? "approved" : "not approved"}: ${oneLine(event.reason, 400)}\n`,
        );
        break;
      case "question-refused":
        out.stderr("  question refused: no one can answer here (headless)\n");
        break;
      case "tool-result":
        out.stderr(
          event.envelope.type === "output"
            ? `  ✓ ${event.toolName} (${event.envelope.metadata.duration_ms} ms${event.envelope.metadata.truncated ? ", truncated" : ""})\n`
            : `  ✗ ${event.toolName}: ${oneLine(event.envelope.error_text, 400)}\n`,
        );
        break;
      case "notice":
        out.stderr(`lathe: ${event.message}\n`);
        break;
      case "error":
        endLine();
        out.stderr(`error: ${event.message}\n`);
        break;
      case "finish":
        endLine();
        break;
      default:
        break;
    }
  };
}
