import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConversationStore } from "./conversation-store.ts";
import { openDatabase, type Db } from "./database.ts";
import { MIGRATIONS } from "./migrations.ts";
import { BACKLOG_CHUNK, indexBacklog, indexBacklogChunk, unindexedBelow } from "./text-index-backlog.ts";
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

  // What a person types into the search box, matched as "contains it, any case": through the
  // trigram index from three characters on, by LIKE below that; either way nothing in the text
  // is query syntax, and the results are the same as a plain substring search would give.
  it.each([
    ["a substring inside a word", "ailin", ["a"]],
    ["a two-character substring (too short for trigrams)", "ix", ["a"]],
    ["one character", "ü", ["e"]],
    ["words across a space", "the failing", ["a"]],
    ["a double quote", '"quoted"', ["b"]],
    ["an unbalanced double quote", 'say "hi', ["b"]],
    ["a leading -", "-rf", ["c"]],
    ["a *", "x*y", ["c"]],
    ["a lone *", "*", ["c"]],
    ["FTS5 operators taken as text", "NOT AND", ["d"]],
    ["a column filter taken as text", "text:", ["d"]],
    ["parentheses and NEAR", "NEAR(", ["d"]],
    ["Cyrillic, any case", "ПРИВЕТ", ["e"]],
    ["Greek, any case", "ΚΑΛΗΜΈΡΑ", ["e"]],
    ["accented Latin, any case", "ÜBER", ["e"]],
    ["accents are not ignored", "uber", []],
    ["Chinese, three characters", "测试用", ["f"]],
    ["Chinese, two characters", "用例", ["f"]],
    ["an emoji", "🚀 launch", ["f"]],
    ["a Cyrillic custom title, any case", "ЗАМЕТКИ", ["g"]],
    ["nothing", "zebra crossing", []],
  ])("searches by %s", (_what, query, ids) => {
    record("a", "Fix the failing test");
    record("b", 'He will say "hi" and "quoted" things');
    record("c", "Never run rm -rf / or x*y globs *");
    record("d", "Literal NOT AND text: NEAR(a b)");
    record("e", "Sag привет und καλημέρα, über alles");
    record("f", "Write 测试用例 for the 🚀 launch");
    record("g", "Something");
    catalog.rename("g", "Мои заметки");
    expect(
      catalog
        .list({ root: "/w", query })
        .map((s) => s.id)
        .sort(),
    ).toEqual(ids);
  });

  it("takes a NUL character in the search text without failing (FTS5's parser cannot be given one)", () => {
    record("a", "Fix the failing test");
    expect(() => catalog.list({ root: "/w", query: "fai\u0000ling" })).not.toThrow();
  });

  it("finds a conversation by what it says now: a rewound message is no longer found, a deleted session neither", () => {
    record("a", "First prompt", { answer: "An answer about kangaroos." });
    record("b", "Also about kangaroos");
    expect(catalog.list({ root: "/w", query: "kangaroo" }).map((s) => s.id)).toEqual(["b", "a"]);
    // A rewind removes the messages from a point on (conversation-store.ts).
    db.prepare("DELETE FROM messages WHERE session_id = 'a' AND seq >= 1").run();
    expect(catalog.list({ root: "/w", query: "kangaroo" }).map((s) => s.id)).toEqual(["b"]);
    catalog.delete("b");
    expect(catalog.list({ root: "/w", query: "kangaroo" })).toEqual([]);
    // The index keeps nothing of what is gone.
    expect(db.prepare("SELECT COUNT(*) AS n FROM message_text_index").get()).toEqual({ n: 1 });
    // A part changed in place is found by its new text only.
    db.prepare("UPDATE message_parts SET text = 'Now about wombats' WHERE text = 'First prompt'").run();
    expect(catalog.list({ root: "/w", query: "First" })).toEqual([]);
    expect(catalog.list({ root: "/w", query: "wombat" }).map((s) => s.id)).toEqual(["a"]);
  });

  it("does not index tool calls and results: only what was said is searched, as before", () => {
    record("a", "Read it");
    conversations.write("a", {
      messages: [
        {
          seq: 1,
          runId: "r1",
          role: "assistant",
          parts: [
            { type: "tool-call", toolCallId: "t1", toolName: "read", input: { path: "secret-plans.md" } },
          ],
        },
      ],
      events: [],
    });
    expect(catalog.list({ root: "/w", query: "secret-plans" })).toEqual([]);
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

describe("a store recorded before the text index", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-text-index-"));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("is found as before at once, and indexed in the background, newest first, a chunk at a time", async () => {
    const file = path.join(dir, "old.db");
    const before = MIGRATIONS.findIndex((m) => m.includes("message_text_index"));
    expect(before).toBeGreaterThan(0);
    // As the Lathe before the index left it: two conversations, a tool call among their parts.
    const old = new Database(file);
    for (const migration of MIGRATIONS.slice(0, before)) old.exec(migration);
    old.pragma(`user_version = ${before}`);
    old.exec(`
      INSERT INTO sessions (id, root, created_at) VALUES ('old-a', '/w', 1), ('old-b', '/w', 2);
      INSERT INTO conversations (session_id, agent, model, created_at, updated_at)
        VALUES ('old-a', 'default', 'ollama:m', 1, 1), ('old-b', 'default', 'ollama:m', 2, 2);
      INSERT INTO messages (id, session_id, seq, run_id, role, created_at)
        VALUES (1, 'old-a', 0, 'r', 'user', 1), (2, 'old-a', 1, 'r', 'assistant', 1), (3, 'old-b', 0, 'r', 'user', 2);
      INSERT INTO message_parts (message_id, position, type, text, tool_call_id, tool_name, json) VALUES
        (1, 0, 'text', 'Plan the migration', NULL, NULL, NULL),
        (2, 0, 'text', 'Reading the schema first.', NULL, NULL, NULL),
        (2, 1, 'tool-call', NULL, 'c1', 'read', '{"path":"schema.sql"}'),
        (3, 0, 'text', 'Something else entirely', NULL, NULL, NULL);
    `);
    old.close();

    db.close();
    db = openDatabase(file);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    catalog = new SessionCatalog(db);
    conversations = new ConversationStore(db);
    record("new", "A new schema question");
    const searches = (): string[][] =>
      ["SCHEMA", "else", "schema.sql", "migration"].map((query) =>
        catalog
          .list({ root: "/w", query })
          .map((s) => s.id)
          .sort(),
      );
    const found = [["new", "old-a"], ["old-b"], [], ["old-a"]];
    const indexed = (): unknown => db.prepare("SELECT COUNT(*) AS n FROM message_text_index").pluck().get();
    // Opening indexed nothing old (that is the background's work), yet every search finds it.
    expect(unindexedBelow(db)).toBe(4);
    expect(indexed()).toBe(1);
    expect(searches()).toEqual(found);
    // The backlog shrinks from its newest message down; a search finds the same at every stage.
    const chunk = BACKLOG_CHUNK;
    expect(chunk).toBeGreaterThan(3);
    expect(indexBacklogChunk(db)).toBe(false);
    expect(unindexedBelow(db)).toBeUndefined();
    // The tool call's arguments were not text said: not indexed, as not searched before.
    expect(indexed()).toBe(4);
    expect(searches()).toEqual(found);
    await indexBacklog(db, new AbortController().signal);
    expect(indexed()).toBe(4);
  });

  it("a large backlog: indexed a chunk per transaction, newest first, searches agree at every stage", () => {
    const messages = BACKLOG_CHUNK * 2 + 10;
    const file = path.join(dir, "big.db");
    const before = MIGRATIONS.findIndex((m) => m.includes("message_text_index"));
    const old = new Database(file);
    for (const migration of MIGRATIONS.slice(0, before)) old.exec(migration);
    old.pragma(`user_version = ${before}`);
    old.exec(`
      INSERT INTO sessions (id, root, created_at) VALUES ('old', '/w', 1);
      INSERT INTO conversations (session_id, agent, model, created_at, updated_at) VALUES ('old', 'default', 'm', 1, 1);`);
    const message = old.prepare(
      "INSERT INTO messages (id, session_id, seq, run_id, role, created_at) VALUES (?, 'old', ?, 'r', 'user', 1)",
    );
    const part = old.prepare(
      "INSERT INTO message_parts (message_id, position, type, text) VALUES (?, 0, 'text', ?)",
    );
    old.transaction(() => {
      for (let id = 1; id <= messages; id++) {
        message.run(id, id);
        part.run(id, id === 1 ? "the oldest word: wombat" : `message ${id}`);
      }
    })();
    old.close();
    db.close();
    db = openDatabase(file);
    catalog = new SessionCatalog(db);
    const stages: Array<[number | undefined, string[]]> = [];
    do stages.push([unindexedBelow(db), catalog.list({ root: "/w", query: "wombat" }).map((s) => s.id)]);
    while (indexBacklogChunk(db));
    stages.push([unindexedBelow(db), catalog.list({ root: "/w", query: "wombat" }).map((s) => s.id)]);
    expect(stages).toEqual([
      [messages + 1, ["old"]],
      [messages + 1 - BACKLOG_CHUNK, ["old"]],
      [messages + 1 - 2 * BACKLOG_CHUNK, ["old"]],
      [undefined, ["old"]],
    ]);
    expect(db.prepare("SELECT COUNT(*) FROM message_text_index").pluck().get()).toBe(messages);
    // FTS5's own check: the index agrees with itself after the deletes and replaces.
    db.prepare(
      "INSERT INTO message_text_index (message_text_index, rank) VALUES ('integrity-check', 0)",
    ).run();
  });
});
