import { useChat } from "../state/chat-context.tsx";
import { cutNote } from "../state/result-notes.ts";
import type { ToolCard } from "../state/transcript.ts";
import { DiffView } from "./diff-view.tsx";
import { PreviewRest, useTextPreview } from "./long-text.tsx";
import { TerminalOutput } from "./terminal-output.tsx";
import { escapeBidiControls } from "../../shared/bidi-controls.ts";

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

function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <details className="card-json">
      <summary>{label}</summary>
      <pre>{escapeBidiControls(JSON.stringify(value, null, 2) ?? "(none)")}</pre>
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
          <BashOutput
            output={output}
            outputPath={card.envelope?.metadata.output_path}
            note={cutNote(card.envelope)}
          />
          {exit !== undefined ? (
            <p className={exit === 0 ? "muted card-line" : "notice card-line"}>exit code {exit}</p>
          ) : null}
        </>
      ) : null}
    </>
  );
}

/**
 * A command's output in its terminal, drawn up to the limits of any long text (a huge output
 * would make the chat slow), with what is left out and where the whole of it is said under it:
 * what the page does not draw and what the tool cut (`note`) in one line. The cut falls between
 * lines, so the colours of what is drawn are kept.
 */
function BashOutput({
  output,
  outputPath,
  note,
}: {
  output: string;
  outputPath: string | undefined;
  note: string | undefined;
}) {
  const { preview, more } = useTextPreview(output);
  return (
    <>
      <TerminalOutput text={preview.shown} label="Terminal output" />
      <PreviewRest
        label="Terminal output"
        preview={preview}
        outputPath={outputPath}
        note={note}
        onMore={more}
      />
    </>
  );
}

/**
 * Whether the open body says what the card's cut result left out itself (a command's output, in
 * the line under its terminal), so the card does not say it again.
 */
export function bodySaysCut(card: ToolCard): boolean {
  return (
    card.toolName === "bash" &&
    card.envelope?.type === "output" &&
    text(record(card.envelope.data)["output"]) !== undefined
  );
}

function GrepBody({ data }: { data: Record<string, unknown> }) {
  if (Array.isArray(data["matches"])) {
    const entries = (data["matches"] as unknown[]).map((m) => {
      const match = record(m);
      return `${escapeBidiControls(text(match["path"]) ?? "?")}:${count(match["line"]) ?? "?"}: ${text(match["text"]) ?? ""}`;
    });
    return <CompactList label="Matches" entries={entries} />;
  }
  if (Array.isArray(data["counts"])) {
    const entries = (data["counts"] as unknown[]).map((c) => {
      const entry = record(c);
      return `${escapeBidiControls(text(entry["path"]) ?? "?")}: ${count(entry["count"]) ?? "?"}`;
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

/** A new file's content as an all-added diff (capped), for a write whose envelope carries no diff. */
function creationDiff(path: string, content: string): string {
  const lines = content.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, DIFF_LINE_LIMIT);
  const header = `--- ${path}\n+++ ${path}\n@@ -0,0 +1,${lines.length} @@\n`;
  const more = lines.length > shown.length ? `\n… ${lines.length - shown.length} more lines` : "";
  return `${header}${shown.map((line) => `+${line}`).join("\n")}${more}`;
}

/**
 * A write's content under a caption, without a diff: what a write that replaced an existing file
 * wrote (its previous content is only in the call's checkpoint), or what a write that has not run
 * (waiting, refused, failed) would write. A diff from nothing would claim the file was created.
 */
function ContentBody({ caption, label, content }: { caption: string; label: string; content: string }) {
  const lines = content.replace(/\n$/, "").split("\n");
  return (
    <>
      <p className="muted card-line">{caption}</p>
      <pre className="code-block card-preview" aria-label={label}>
        <code>{lines.slice(0, DIFF_LINE_LIMIT).join("\n")}</code>
        {lines.length > DIFF_LINE_LIMIT ? (
          <span className="muted">{`\n… ${lines.length - DIFF_LINE_LIMIT} more lines`}</span>
        ) : null}
      </pre>
    </>
  );
}

/** How many lines a read's preview or a write's diff shows. */
const DIFF_LINE_LIMIT = 200;
const PREVIEW_LINES = 40;

function ReadBody({ data }: { data: Record<string, unknown> }) {
  const content = text(data["content"]);
  if (content === undefined) return null;
  const lines = content.split("\n");
  return (
    <pre className="code-block card-preview" aria-label="File content">
      <code>{lines.slice(0, PREVIEW_LINES).join("\n")}</code>
      {lines.length > PREVIEW_LINES ? (
        <span className="muted">{`\n… ${lines.length - PREVIEW_LINES} more lines`}</span>
      ) : null}
    </pre>
  );
}

/**
 * A call whose arguments were not JSON (it never ran): the text the model wrote, as it wrote it —
 * where it stopped, when it was cut off at the output limit.
 */
function RawArguments({ text, cutOff }: { text: string; cutOff: boolean }) {
  return (
    <ContentBody
      caption={
        cutOff
          ? "Nothing was run. Its arguments, as far as the model wrote them before it was cut off:"
          : "Nothing was run. Its arguments, which are not valid JSON:"
      }
      label="Arguments as written"
      content={text}
    />
  );
}

/** What a card shows of its call when open: a diff, a terminal, a list, a preview; JSON for the rest. */
export function ToolCardBody({ card }: { card: ToolCard }) {
  if (typeof card.input === "string")
    return <RawArguments text={card.input} cutOff={card.argsCutOff === true} />;
  return <ParsedCallBody card={card} />;
}

function ParsedCallBody({ card }: { card: ToolCard }) {
  const input = record(card.input);
  const envelope = card.envelope;
  const data = envelope?.type === "output" ? record(envelope.data) : {};
  const done = envelope?.type === "output";
  // The call's checkpoint knows whether a write created its file or replaced one.
  const replacedFile = useChat((s) =>
    s.checkpoints.some(
      (c) =>
        c.kind === "tool" &&
        c.toolCallId === card.toolCallId &&
        c.files.some((f) => f.type === "file" && f.change === "modified"),
    ),
  );
  switch (card.toolName) {
    case "edit":
      return text(data["diff"]) !== undefined ? (
        <DiffView diff={text(data["diff"]) ?? ""} />
      ) : (
        <JsonBlock label="Arguments" value={card.input} />
      );
    case "write": {
      const diff = text(data["diff"]);
      if (diff !== undefined) return <DiffView diff={diff} />;
      const content = text(input["content"]) ?? "";
      if (envelope === undefined)
        return <ContentBody caption="Content to write:" label="Content to write" content={content} />;
      if (!done)
        return (
          <ContentBody
            caption="Nothing was written. The content it asked to write:"
            label="Content not written"
            content={content}
          />
        );
      if (replacedFile)
        return (
          <ContentBody
            caption="Replaced the whole file. It now reads:"
            label="New content"
            content={content}
          />
        );
      const path = text(data["path"]) ?? text(input["path"]) ?? "";
      return <DiffView diff={creationDiff(path, content)} />;
    }
    case "bash":
      return <BashBody card={card} data={data} />;
    case "read":
      return done ? <ReadBody data={data} /> : null;
    case "glob":
      return done ? (
        <CompactList
          label="Files"
          entries={Array.isArray(data["files"]) ? (data["files"] as unknown[]).map(String) : []}
        />
      ) : null;
    case "grep":
      return done ? <GrepBody data={data} /> : null;
    case "todo":
      return <TodoBody input={input} />;
    case "question":
      return <QuestionBody input={input} data={data} />;
    case "task":
      return null;
    default:
      return (
        <>
          <JsonBlock label="Arguments" value={card.input} />
          {done ? <JsonBlock label="Result" value={envelope.data} /> : null}
        </>
      );
  }
}
