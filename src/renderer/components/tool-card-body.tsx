import type { ToolCard } from "../state/transcript.ts";
import { DiffView } from "./diff-view.tsx";
import { TerminalOutput } from "./terminal-output.tsx";

/** How many entries a compact list shows before "and N more". */
const LIST_LIMIT = 12;

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? "" : "s"}`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function CompactList({ label, entries }: { label: string; entries: string[] }) {
  if (entries.length === 0) return <p className="muted card-line">No matches.</p>;
  const shown = entries.slice(0, LIST_LIMIT);
  return (
    <>
      <ul className="compact-list" aria-label={label}>
        {shown.map((entry, index) => (
          <li key={index}>
            <code>{entry}</code>
          </li>
        ))}
      </ul>
      {entries.length > shown.length ? (
        <p className="muted card-line">and {entries.length - shown.length} more</p>
      ) : null}
    </>
  );
}

function PathLine({ path, detail }: { path: string | undefined; detail?: string | undefined }) {
  if (path === undefined) return null;
  return (
    <p className="card-line">
      <code>{path}</code>
      {detail ? <span className="muted"> · {detail}</span> : null}
    </p>
  );
}

function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <details className="card-json">
      <summary>{label}</summary>
      <pre>{JSON.stringify(value, null, 2) ?? "(none)"}</pre>
    </details>
  );
}

function BashBody({ card, data }: { card: ToolCard; data: Record<string, unknown> }) {
  const command = text(record(card.input)["command"]) ?? "";
  const output = text(data["output"]);
  const exit = count(data["exit_code"]);
  return (
    <>
      <pre className="card-command" aria-label="Command">
        <span className="muted">$ </span>
        {command}
      </pre>
      {output !== undefined ? (
        <>
          <TerminalOutput text={output} label="Terminal output" />
          {exit !== undefined ? (
            <p className={exit === 0 ? "muted card-line" : "notice card-line"}>exit code {exit}</p>
          ) : null}
        </>
      ) : null}
    </>
  );
}

function GrepBody({ data }: { data: Record<string, unknown> }) {
  if (Array.isArray(data["matches"])) {
    const entries = (data["matches"] as unknown[]).map((m) => {
      const match = record(m);
      return `${text(match["path"]) ?? "?"}:${count(match["line"]) ?? "?"}: ${text(match["text"]) ?? ""}`;
    });
    return <CompactList label="Matches" entries={entries} />;
  }
  if (Array.isArray(data["counts"])) {
    const entries = (data["counts"] as unknown[]).map((c) => {
      const entry = record(c);
      return `${text(entry["path"]) ?? "?"}: ${count(entry["count"]) ?? "?"}`;
    });
    return <CompactList label="Counts" entries={entries} />;
  }
  const files = Array.isArray(data["files"]) ? (data["files"] as unknown[]).map(String) : [];
  return <CompactList label="Files" entries={files} />;
}

function TodoBody({ input }: { input: Record<string, unknown> }) {
  const todos = Array.isArray(input["todos"]) ? (input["todos"] as unknown[]).map(record) : [];
  return (
    <CompactList
      label="Todo items"
      entries={todos.map((t) => `[${text(t["status"]) ?? "?"}] ${text(t["content"]) ?? ""}`)}
    />
  );
}

function QuestionBody({ input, data }: { input: Record<string, unknown>; data: Record<string, unknown> }) {
  const questions = Array.isArray(input["questions"]) ? (input["questions"] as unknown[]).map(record) : [];
  const answers = Array.isArray(data["answers"]) ? (data["answers"] as unknown[]) : undefined;
  return (
    <ul className="compact-list" aria-label="Questions">
      {questions.map((q, index) => {
        const answer = answers?.[index];
        return (
          <li key={index}>
            {text(q["question"]) ?? ""}
            {Array.isArray(answer) ? <strong> → {answer.map(String).join(", ") || "(none)"}</strong> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** What a card shows of its call: shaped for the tools people read most, JSON for the rest. */
export function ToolCardBody({ card }: { card: ToolCard }) {
  const input = record(card.input);
  const envelope = card.envelope;
  const data = envelope?.type === "output" ? record(envelope.data) : {};
  const done = envelope?.type === "output";
  switch (card.toolName) {
    case "edit":
      return (
        <>
          <PathLine
            path={text(data["path"]) ?? text(input["path"])}
            detail={done ? `${count(data["replacements"]) ?? 0} replaced` : undefined}
          />
          {text(data["diff"]) !== undefined ? <DiffView diff={text(data["diff"]) ?? ""} /> : null}
        </>
      );
    case "write": {
      const size = count(data["bytes"]) ?? new TextEncoder().encode(text(input["content"]) ?? "").length;
      return <PathLine path={text(data["path"]) ?? text(input["path"])} detail={bytes(size)} />;
    }
    case "bash":
      return <BashBody card={card} data={data} />;
    case "read": {
      const range =
        done && count(data["start_line"]) !== undefined
          ? `lines ${count(data["start_line"])}–${count(data["end_line"])} of ${count(data["total_lines"])}`
          : undefined;
      return <PathLine path={text(data["path"]) ?? text(input["path"])} detail={range} />;
    }
    case "glob":
      return (
        <>
          <PathLine path={text(input["pattern"])} />
          {done ? (
            <CompactList
              label="Files"
              entries={Array.isArray(data["files"]) ? (data["files"] as unknown[]).map(String) : []}
            />
          ) : null}
        </>
      );
    case "grep":
      return (
        <>
          <PathLine path={text(input["pattern"])} />
          {done ? <GrepBody data={data} /> : null}
        </>
      );
    case "todo":
      return <TodoBody input={input} />;
    case "question":
      return <QuestionBody input={input} data={data} />;
    case "task":
      return <p className="card-line">{text(input["description"]) ?? ""}</p>;
    default:
      return (
        <>
          <JsonBlock label="Arguments" value={card.input} />
          {done ? <JsonBlock label="Result" value={envelope.data} /> : null}
        </>
      );
  }
}
