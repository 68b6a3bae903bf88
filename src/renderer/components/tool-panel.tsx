import type { KeyboardEvent } from "react";
import { parseArguments } from "../state/app-store.ts";
import { useAppState } from "../state/store-context.tsx";
import { ErrorLine } from "./error-line.tsx";
import { originLabel } from "./origin-label.ts";
import { ParametersTable } from "./parameters-table.tsx";

/** What the Run button says while its call goes on: what it waits for, or that it runs. */
const RUNNING_LABEL = {
  queued: "Queued…",
  "awaiting-approval": "Waiting for approval…",
  running: "Running…",
} as const;

export function ToolPanel() {
  const tool = useAppState((s) => s.tools.find((t) => t.id === s.selectedId));
  const text = useAppState((s) => (s.selectedId ? (s.argsText[s.selectedId] ?? "") : ""));
  const running = useAppState((s) => s.running);
  const runningToolId = useAppState((s) => s.runningToolId);
  const setArgs = useAppState((s) => s.setArgs);
  const run = useAppState((s) => s.run);
  const stop = useAppState((s) => s.stop);
  const stopping = useAppState((s) => s.stopping);
  const stopError = useAppState((s) => s.stopError);
  // What this view's own call waits for, if anything (a chat's prompt is not its business).
  const waiting = useAppState((s) =>
    s.running ? s.activity.find((entry) => entry.status === "running" && entry.waiting)?.waiting : undefined,
  );

  if (!tool) {
    return (
      <section className="panel" aria-label="Tool">
        <p className="muted">Pick a tool on the left.</p>
      </section>
    );
  }

  const parsed = parseArguments(text);
  const invalid = "error" in parsed;
  const canRun = !invalid && !running;
  // Another tool's call runs meanwhile (one call at a time): the button stays this tool's, and
  // Stop says whose call it ends.
  const runsHere = running && runningToolId === tool.id;
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && canRun) {
      event.preventDefault();
      void run();
    }
  };

  return (
    <section className="panel" aria-labelledby="tool-heading">
      <div className="panel-head">
        <h2 id="tool-heading">{tool.id}</h2>
        <span className={tool.readOnly ? "badge badge-read" : "badge badge-write"}>
          {tool.readOnly ? "read-only" : "mutating"}
        </span>
        <span className="muted">
          {originLabel(tool.origin)} · {tool.kind}
        </span>
      </div>
      <details className="description">
        <summary>{firstLine(tool.description)}</summary>
        <p>{tool.description}</p>
      </details>
      <ParametersTable parameters={tool.parameters} />
      <form
        className="runner"
        onSubmit={(event) => {
          event.preventDefault();
          if (canRun) void run();
        }}
      >
        <label htmlFor="tool-args">Arguments (JSON)</label>
        <textarea
          id="tool-args"
          className="args"
          spellCheck={false}
          rows={Math.min(12, Math.max(4, text.split("\n").length + 1))}
          value={text}
          aria-invalid={invalid}
          aria-describedby="tool-args-help"
          onChange={(event) => setArgs(tool.id, event.target.value)}
          onKeyDown={onKeyDown}
        />
        <p
          id="tool-args-help"
          className={invalid ? "field-error" : "muted"}
          role={invalid ? "alert" : undefined}
        >
          {invalid ? parsed.error : "One JSON object. Ctrl+Enter runs the tool."}
        </p>
        {tool.readOnly ? null : (
          <p className="notice" role="note">
            {tool.id} changes things: Lathe asks you before each call unless a rule allows it.
          </p>
        )}
        <div className="row-actions">
          <button type="submit" className="run" disabled={!canRun}>
            {runsHere ? RUNNING_LABEL[waiting ?? "running"] : `Run ${tool.id}`}
          </button>
          {running ? (
            <button type="button" disabled={stopping} onClick={() => void stop()}>
              {stopping ? "Stopping…" : runsHere ? "Stop" : `Stop ${runningToolId ?? "the call"}`}
            </button>
          ) : null}
        </div>
        <ErrorLine message={stopError} />
      </form>
    </section>
  );
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
