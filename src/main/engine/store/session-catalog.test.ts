import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConversationStore } from "./conversation-store.ts";
import { openDatabase, type Db } from "./database.ts";
import { SessionCatalog, TITLE_LENGTH, titleFromText } from "./session-catalog.ts";
import { TodoStore } from "./todo-store.ts";

let db: Db;
let conversations: ConversationStore;
let catalog: SessionCatalog;
let clock = 1_000;

/** A recorded session in `root`: its row, its conversation, and one prompt (plus an answer). */
function record(
  id: string,
  prompt: string,
  options: { root?: string; parent?: string; answer?: string; model?: string } = {},
): void {
  db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, ?)").run(
    id,
    options.root ?? "/w",
    clock,
  );
  conversations.begin(id, {
    agent: "default",
    model: options.model ?? "ollama:m",
    ...(options.parent ? { parentSessionId: options.parent } : {}),
  });
  conversations.write(id, {
    messages: [
      { seq: 0, runId: "r1", role: "user", parts: [{ type: "text", text: prompt }] },
      ...(options.answer
        ? [
            {
              seq: 1,
              runId: "r1",
              role: "assistant" as const,
              parts: [{ type: "text" as const, text: options.answer }],
            },
          ]
        : []),
    ],
    events: [{ seq: 0, runId: "r1", type: "notice", json: "{}" }],
  });
  clock += 1000;
  db.prepare("UPDATE conversations SET updated_at = ? WHERE session_id = ?").run(clock, id);
}

beforeEach(() => {
  db = openDatabase(":memory:");
  conversations = new ConversationStore(db);
  catalog = new SessionCatalog(db);
});
afterEach(() => db.close());

describe("the session catalog", () => {
  it("lists a folder's conversations newest first, titled by their first prompt, with model and parent", () => {
    record("a", "Fix the failing test in src/app.ts", { model: "ollama:qwen" });
    record("b", "Write the README");
    record("other", "Not this folder", { root: "/elsewhere" });
    record("t1", "child prompt", { parent: "a" });
    conversations.linkChild("a", "t1", { description: "Run the tests" });

    const list = catalog.list({ root: "/w" });
    expect(list.map((s) => s.id)).toEqual(["t1", "b", "a"]);
    expect(list.find((s) => s.id === "a")).toMatchObject({
      title: "Fix the failing test in src/app.ts",
      titleSource: "prompt",
      model: "ollama:qwen",
      agent: "default",
      parentId: undefined,
    });
    // A task is named by what its parent asked of it, and points at its parent.
    expect(list.find((s) => s.id === "t1")).toMatchObject({
      title: "Run the tests",
      titleSource: "task",
      parentId: "a",
    });
  });

  it("keeps a title to one short line", () => {
    expect(titleFromText("  two\n\nlines  ")).toBe("two lines");
    const long = titleFromText("word ".repeat(60));
    expect(long.length).toBeLessThanOrEqual(TITLE_LENGTH);
    expect(long.endsWith("…")).toBe(true);
    expect(titleFromText("x".repeat(200))).toHaveLength(TITLE_LENGTH);
  });

  it("renames a session; an empty name brings back the one from its prompt", () => {
    record("a", "First prompt");
    catalog.rename("a", "  My   session ");
    expect(catalog.get("a")).toMatchObject({ title: "My session", titleSource: "custom", root: "/w" });
    catalog.rename("a", "");
    expect(catalog.get("a")).toMatchObject({ title: "First prompt", titleSource: "prompt" });
    expect(() => catalog.rename("a", "x".repeat(201))).toThrow(/at most 200 characters/);
  });

  it.each([
    ["a word of the first prompt, any case", "FAILING", ["a"]],
    ["a word of the model's answer", "greenfield", ["b"]],
    ["a custom title", "renamed", ["c"]],
    ["a task's description", "lint", ["t1"]],
    ["LIKE's % taken literally", "%", ["d"]],
    ["LIKE's _ taken literally", "a_b", ["d"]],
    ["nothing", "zebra", []],
  ])("searches by %s", (_what, query, ids) => {
    record("a", "Fix the failing test");
    record("b", "Plan it", { answer: "A greenfield rewrite." });
    record("c", "Something");
    catalog.rename("c", "Renamed thing");
    record("d", "Raise coverage to 90% in a_b");
    record("t1", "child prompt", { parent: "a" });
    conversations.linkChild("a", "t1", { description: "Run lint" });
    expect(
      catalog
        .list({ root: "/w", query })
        .map((s) => s.id)
        .sort(),
    ).toEqual(ids);
  });

  it("deletes a session with its nested tasks and everything recorded for them, and nothing else", () => {
    record("a", "Parent");
    record("t1", "child", { parent: "a" });
    record("t2", "grandchild", { parent: "t1" });
    record("keep", "Unrelated");
    conversations.linkChild("a", "t1", { description: "child" });
    conversations.linkChild("t1", "t2", { description: "grandchild" });
    catalog.rename("a", "Named");
    const todos = new TodoStore({ database: () => db });
    todos.replace("a", [{ content: "step", status: "pending" }]);
    db.prepare(
      "INSERT INTO approvals (session_id, tool, approval_key, created_at) VALUES ('a', 'bash', 'ls', 0)",
    ).run();

    expect(catalog.delete("a")).toEqual(["a", "t1", "t2"]);
    expect(catalog.list({ root: "/w" }).map((s) => s.id)).toEqual(["keep"]);
    for (const table of ["sessions", "conversations", "run_events", "session_titles", "todos", "approvals"]) {
      const left = db
        .prepare(
          `SELECT COUNT(*) AS n FROM ${table} WHERE session_id IN ('a','t1','t2')`.replace(
            "session_id",
            table === "sessions" ? "id" : "session_id",
          ),
        )
        .get() as { n: number };
      expect(left.n, table).toBe(0);
    }
    expect((db.prepare("SELECT COUNT(*) AS n FROM messages").get() as { n: number }).n).toBe(1);
    expect((db.prepare("SELECT COUNT(*) AS n FROM message_parts").get() as { n: number }).n).toBe(1);
    expect((db.prepare("SELECT COUNT(*) AS n FROM child_tasks").get() as { n: number }).n).toBe(0);
    expect(catalog.delete("a")).toEqual([]);
  });

  it("deleting a task alone leaves its parent, unlinked", () => {
    record("a", "Parent");
    record("t1", "child", { parent: "a" });
    conversations.linkChild("a", "t1", { description: "child" });
    expect(catalog.delete("t1")).toEqual(["t1"]);
    expect(catalog.list({ root: "/w" }).map((s) => s.id)).toEqual(["a"]);
    expect(conversations.children("a")).toEqual([]);
  });
});

describe("the sessions of `lathe call --session` (no conversation)", () => {
  /** A session opened by `lathe call --session id` in `root`, with calls made at these times. */
  function callSession(id: string, root: string, callTimes: number[], closedAt?: number): void {
    db.prepare("INSERT INTO sessions (id, root, created_at, closed_at) VALUES (?, ?, ?, ?)").run(
      id,
      root,
      100,
      closedAt ?? null,
    );
    for (const at of callTimes) {
      db.prepare(
        `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
         VALUES (?, ?, ?, 'read', '{}', '[]', 'output', '', 1, ?)`,
      ).run(`${id}-${at}`, id, root, at);
    }
  }
  const checkpoint = (id: string, root: string) =>
    db
      .prepare(
        "INSERT INTO checkpoints (session_id, root, kind, tool, created_at) VALUES (?, ?, 'tool', 'write', 1)",
      )
      .run(id, root);

  it("lists a folder's open ones and the closed ones that keep checkpoints, by their latest call", () => {
    record("conv", "A conversation");
    callSession("quiet", "/w", []);
    callSession("busy", "/w", [5_000, 9_000]);
    callSession("kept", "/w", [7_000], 8_000);
    checkpoint("kept", "/w");
    callSession("gone", "/w", [6_000], 8_000);
    callSession("theirs", "/elsewhere", [9_500]);
    // The same id's calls in another folder (before it was closed and opened here) are not its own here.
    db.prepare(
      `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES ('x', 'quiet', '/elsewhere', 'read', '{}', '[]', 'output', '', 1, 99000)`,
    ).run();

    const listed = catalog.listCallSessions({ root: "/w" });
    expect(listed).toEqual([
      {
        id: "busy",
        title: "",
        titleSource: "none",
        createdAt: 100,
        updatedAt: 9_000,
        closedAt: undefined,
        calls: 2,
        checkpoints: 0,
      },
      expect.objectContaining({ id: "kept", updatedAt: 7_000, closedAt: 8_000, calls: 1, checkpoints: 1 }),
      expect.objectContaining({ id: "quiet", updatedAt: 100, calls: 0 }),
    ]);
    // The conversations' list is as it was: the app's sidebar shows conversations only.
    expect(catalog.list({ root: "/w" }).map((s) => s.id)).toEqual(["conv"]);
    expect(catalog.listCallSessions({ root: "/w", limit: 1 }).map((s) => s.id)).toEqual(["busy"]);
  });

  it("is named and found by the name a person gives it", () => {
    callSession("s1", "/w", [1]);
    callSession("s2", "/w", [2]);
    expect(catalog.rename("s1", "  Nightly   lint ")).toBe("Nightly lint");
    expect(catalog.listCallSessions({ root: "/w", query: "nightly" })).toEqual([
      expect.objectContaining({ id: "s1", title: "Nightly lint", titleSource: "custom" }),
    ]);
    expect(catalog.listCallSessions({ root: "/w", query: "100%" })).toEqual([]);
    expect(catalog.rename("s1", "")).toBe("");
    expect(catalog.listCallSessions({ root: "/w", query: "nightly" })).toEqual([]);
  });
});
