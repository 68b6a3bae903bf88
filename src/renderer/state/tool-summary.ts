import type { ToolKind } from "../../shared/api-contract.ts";
import type { ToolCard } from "./transcript.ts";
import { escapeBidiControls } from "../../shared/bidi-controls.ts";
import { counted } from "../../shared/counted.ts";

/** The kind of the built-in tools, for cards drawn before the tool list has loaded. */
const BUILTIN_KINDS: Record<string, ToolKind> = {
  read: "read",
  write: "edit",
  edit: "edit",
  glob: "search",
  grep: "search",
  tool_search: "search",
  bash: "execute",
  web_fetch: "fetch",
  web_search: "fetch",
  todo: "think",
  question: "other",
  task: "other",
  skill: "read",
};

/** A card's kind: what the tool list says, else what Lathe's own tool of that name is, else "other". */
export function cardKind(toolName: string, listed: ToolKind | undefined): ToolKind {
  return listed ?? BUILTIN_KINDS[toolName] ?? "other";
}

/** Cards whose body is what a person wants to see (a diff, a terminal, a child run) start open. */
export function startsOpen(kind: ToolKind, card: Pick<ToolCard, "toolName" | "task">): boolean {
  return kind === "edit" || kind === "execute" || card.toolName === "task" || card.task !== undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

function byteSize(n: number): string {
  if (n < 1024) return counted(n, "byte");
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** One line a person reads: the first line of a text, cut to `max` characters. */
function oneLine(text: string, max = 120): string {
  const line = text.split("\n", 1)[0] ?? "";
  const more = line.length < text.trimEnd().length;
  return line.length > max ? `${line.slice(0, max - 1)}…` : more ? `${line} …` : line;
}

/** A `question` call in one line: the first question it asks, and how many more. */
export function questionSummary(args: unknown): string {
  const input = record(args);
  const questions = Array.isArray(input["questions"]) ? input["questions"].map(record) : [];
  const first = oneLine(str(questions[0]?.["question"]) ?? "");
  return questions.length > 1 ? `${first} · ${counted(questions.length - 1, "more question")}` : first;
}

/**
 * What a collapsed card says about its call: the file, command, pattern or URL, and once it has
 * run, the gist of its result (lines read, bytes written, matches found).
 */
export function cardSummary(
  card: Pick<ToolCard, "toolName" | "input" | "envelope"> & Partial<Pick<ToolCard, "argsCutOff">>,
): string {
  // Paths and commands in a summary read in the order their characters have (see bidi-controls.ts).
  return escapeBidiControls(summaryOf(card));
}

function summaryOf(
  card: Pick<ToolCard, "toolName" | "input" | "envelope"> & Partial<Pick<ToolCard, "argsCutOff">>,
): string {
  // Arguments that are not JSON name nothing to summarize (the call never ran).
  if (typeof card.input === "string")
    return card.argsCutOff === true ? "arguments cut off" : "arguments not valid JSON";
  const input = record(card.input);
  const done = card.envelope?.type === "output";
  const data = done ? record(card.envelope?.type === "output" ? card.envelope.data : undefined) : {};
  // A cut list shows only its first entries: the count is of those, not of all that matched.
  const cut = done && card.envelope?.metadata.truncated === true ? " shown, more left out" : "";
  switch (card.toolName) {
    case "read": {
      const path = str(data["path"]) ?? str(input["path"]) ?? "";
      const start = num(data["start_line"]);
      return start !== undefined
        ? `${path} · lines ${start}–${num(data["end_line"]) ?? "?"} of ${num(data["total_lines"]) ?? "?"}`
        : path;
    }
    case "write": {
      const path = str(data["path"]) ?? str(input["path"]) ?? "";
      const size = num(data["bytes"]) ?? new TextEncoder().encode(str(input["content"]) ?? "").length;
      return `${path} · ${byteSize(size)}`;
    }
    case "edit": {
      const path = str(data["path"]) ?? str(input["path"]) ?? "";
      const replaced = num(data["replacements"]);
      return done && replaced !== undefined ? `${path} · ${replaced} replaced` : path;
    }
    case "bash":
      return `$ ${oneLine(str(input["command"]) ?? "")}`;
    case "glob": {
      const files = Array.isArray(data["files"]) ? data["files"].length : undefined;
      return `${str(input["pattern"]) ?? ""}${files !== undefined ? ` · ${counted(files, "file")}${cut}` : ""}`;
    }
    case "grep": {
      const matches = Array.isArray(data["matches"])
        ? counted(data["matches"].length, "match")
        : Array.isArray(data["files"])
          ? counted(data["files"].length, "file")
          : Array.isArray(data["counts"])
            ? counted(data["counts"].length, "file")
            : undefined;
      return `${str(input["pattern"]) ?? ""}${matches !== undefined ? ` · ${matches}${cut}` : ""}`;
    }
    case "todo": {
      const todos = Array.isArray(input["todos"]) ? input["todos"].map(record) : [];
      const completed = todos.filter((t) => t["status"] === "completed").length;
      return `${counted(todos.length, "item")} · ${completed} done`;
    }
    case "question":
      return questionSummary(input);
    case "task":
      return oneLine(str(input["description"]) ?? "");
    case "web_fetch":
      return str(input["url"]) ?? "";
    case "web_search":
      return str(input["query"]) ?? "";
    default: {
      const first = Object.values(input).find((v) => typeof v === "string" || typeof v === "number");
      return first === undefined ? "" : oneLine(String(first));
    }
  }
}
