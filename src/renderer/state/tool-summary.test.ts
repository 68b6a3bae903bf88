import { describe, expect, it } from "vitest";
import { cardKind, cardSummary, startsOpen } from "./tool-summary.ts";

const ok = (data: unknown) => ({ type: "output" as const, data, metadata: { duration_ms: 3 } });

describe("tool card summaries", () => {
  it.each([
    [
      "read",
      { path: "a.ts" },
      ok({ path: "a.ts", start_line: 1, end_line: 20, total_lines: 80 }),
      "a.ts · lines 1–20 of 80",
    ],
    ["read", { path: "a.ts" }, undefined, "a.ts"],
    ["write", { path: "n.txt", content: "Hello\n" }, undefined, "n.txt · 6 bytes"],
    ["write", { path: "n.txt", content: "x" }, ok({ path: "n.txt", bytes: 2048 }), "n.txt · 2.0 KB"],
    ["edit", { path: "a.ts" }, ok({ path: "a.ts", replacements: 2, diff: "" }), "a.ts · 2 replaced"],
    ["bash", { command: "npm test\nnpm run lint" }, undefined, "$ npm test …"],
    ["glob", { pattern: "**/*.ts" }, ok({ files: ["a.ts", "b.ts"] }), "**/*.ts · 2 files"],
    [
      "glob",
      { pattern: "**/*" },
      { ...ok({ files: ["a.ts", "b.ts"] }), metadata: { duration_ms: 3, truncated: true } },
      "**/* · 2 files shown, more left out",
    ],
    [
      "grep",
      { pattern: "x" },
      { ...ok({ matches: [{}] }), metadata: { duration_ms: 3, truncated: true } },
      "x · 1 match shown, more left out",
    ],
    ["grep", { pattern: "TODO" }, ok({ matches: [{}] }), "TODO · 1 match"],
    ["grep", { pattern: "TODO" }, ok({ matches: [{}, {}] }), "TODO · 2 matches"],
    ["todo", { todos: [{ status: "completed" }, { status: "pending" }] }, undefined, "2 items · 1 done"],
    ["task", { description: "Greet" }, undefined, "Greet"],
    [
      "question",
      { questions: [{ question: "Which database?", options: [{ label: "SQLite" }] }] },
      undefined,
      "Which database?",
    ],
    [
      "question",
      { questions: [{ question: "Which database?" }, { question: "Name?" }, { question: "Port?" }] },
      undefined,
      "Which database? · 2 more questions",
    ],
    ["web_fetch", { url: "https://example.com" }, undefined, "https://example.com"],
    ["word_count", { path: "README.md", verbose: true }, undefined, "README.md"],
    ["word_count", {}, undefined, ""],
  ])("%s %j says what it did", (toolName, input, envelope, summary) => {
    expect(cardSummary({ toolName, input, envelope })).toBe(summary);
  });

  it("cuts a long command to one short line", () => {
    const summary = cardSummary({
      toolName: "bash",
      input: { command: "x".repeat(300) },
      envelope: undefined,
    });
    expect(summary.length).toBeLessThanOrEqual(122);
    expect(summary.endsWith("…")).toBe(true);
  });

  it("knows the built-in kinds before the tool list loads; the list wins when it has the tool", () => {
    expect(cardKind("bash", undefined)).toBe("execute");
    expect(cardKind("edit", undefined)).toBe("edit");
    expect(cardKind("grep", undefined)).toBe("search");
    expect(cardKind("web_fetch", undefined)).toBe("fetch");
    expect(cardKind("my_plugin", undefined)).toBe("other");
    expect(cardKind("my_plugin", "read")).toBe("read");
  });

  it("opens diffs, terminals and child runs; keeps reads and searches folded", () => {
    expect(startsOpen("edit", { toolName: "write", task: undefined })).toBe(true);
    expect(startsOpen("execute", { toolName: "bash", task: undefined })).toBe(true);
    expect(startsOpen("other", { toolName: "task", task: undefined })).toBe(true);
    expect(startsOpen("read", { toolName: "read", task: undefined })).toBe(false);
    expect(startsOpen("search", { toolName: "grep", task: undefined })).toBe(false);
  });
});

describe("tool card summaries of names that reorder their text", () => {
  // `evil\u202Etxt.exe` would show as `evilexe.txt`: the card says what the name really is.
  it.each([
    ["read", { path: "evil\u202Etxt.exe" }, "evil\\u202etxt.exe"],
    ["write", { path: "\u2067x\u2069.sh", content: "" }, "\\u2067x\\u2069.sh · 0 bytes"],
    ["bash", { command: "cat \u200Fnote\u061C.txt" }, "$ cat \\u200fnote\\u061c.txt"],
    ["glob", { pattern: "*\u202D.md" }, "*\\u202d.md"],
  ])("%s %j reads %s", (toolName, input, summary) => {
    expect(cardSummary({ toolName, input, envelope: undefined })).toBe(summary);
  });
});
