import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConversationStore, type NewMessage } from "./conversation-store.ts";
import { openDatabase, type Db } from "./database.ts";
import { MIGRATIONS } from "./migrations.ts";

let db: Db;
let store: ConversationStore;
beforeEach(() => {
  db = openDatabase(":memory:");
  for (const id of ["parent", "child"])
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, '/w', 0)").run(id);
  store = new ConversationStore(db);
});
afterEach(() => db.close());

const turn: Array<NewMessage & { seq: number }> = [
  { seq: 0, runId: "r1", role: "user", parts: [{ type: "text", text: "Read a.txt" }] },
  {
    seq: 1,
    runId: "r1",
    role: "assistant",
    parts: [
      { type: "reasoning", text: "Use read." },
      { type: "text", text: "Reading." },
      { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.txt" } },
    ],
  },
  {
    seq: 2,
    runId: "r1",
    role: "tool",
    parts: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "read",
        envelope: { type: "output", data: { content: "alpha" }, metadata: { duration_ms: 3 } },
      },
    ],
  },
];

describe("the conversation store", () => {
  it("is created by a versioned migration", () => {
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
  });

  it("keeps messages with every kind of part, in order", () => {
    store.begin("parent", { agent: "default", model: "ollama:m" });
    store.write("parent", { messages: turn, events: [] });
    expect(store.messages("parent").map(({ createdAt: _c, ...m }) => m)).toEqual(turn);
    expect(store.nextSeq("parent")).toEqual({ message: 3, event: 0 });
  });

  it("writes a batch atomically: a failing event leaves no message behind", () => {
    store.begin("parent", { agent: "default", model: "ollama:m" });
    const duplicate = { seq: 0, runId: "r1", type: "notice", json: "{}" };
    expect(() => store.write("parent", { messages: turn, events: [duplicate, duplicate] })).toThrow();
    expect(store.messages("parent")).toEqual([]);
  });

  it("records events by sequence, per run", () => {
    store.begin("parent", { agent: "default", model: "ollama:m" });
    store.write("parent", {
      messages: [],
      events: [
        { seq: 0, runId: "r1", type: "start", json: '{"type":"start"}' },
        { seq: 1, runId: "r2", type: "finish", json: '{"type":"finish"}' },
      ],
    });
    expect(store.events("parent").map((e) => e.data)).toEqual([{ type: "start" }, { type: "finish" }]);
    expect(store.events("parent", "r2")).toEqual([
      { seq: 1, runId: "r2", type: "finish", data: { type: "finish" } },
    ]);
  });

  it("notes the agent and model of the latest turn and links child tasks to their parent", () => {
    store.begin("parent", { agent: "default", model: "ollama:a" });
    store.begin("parent", { agent: "reviewer", model: "ollama:b" });
    store.begin("child", { agent: "reviewer", model: "ollama:b", parentSessionId: "parent" });
    store.linkChild("parent", "child", { toolCallId: "t1", description: "review the diff" });
    store.linkChild("parent", "child", { toolCallId: "t1", description: "review the diff" });
    expect(store.get("parent")).toMatchObject({
      agent: "reviewer",
      model: "ollama:b",
      parentSessionId: null,
    });
    expect(store.get("child")).toMatchObject({ parentSessionId: "parent" });
    expect(store.children("parent")).toMatchObject([
      { childSessionId: "child", toolCallId: "t1", description: "review the diff" },
    ]);
  });
});

describe("prompts and cut", () => {
  it("lists the prompts and cuts a conversation before one: its messages, its runs' events and task links", () => {
    const second: Array<NewMessage & { seq: number }> = [
      { seq: 3, runId: "r2", role: "user", parts: [{ type: "text", text: "Now the task" }] },
      {
        seq: 4,
        runId: "r2",
        role: "assistant",
        parts: [{ type: "tool-call", toolCallId: "t9", toolName: "task", input: {} }],
      },
    ];
    store.begin("parent", { agent: "default", model: "m" });
    store.write("parent", {
      messages: [...turn, ...second],
      events: [
        { seq: 0, runId: "r1", type: "start", json: "{}" },
        { seq: 1, runId: "r2", type: "start", json: "{}" },
        { seq: 2, runId: "r2", type: "finish", json: "{}" },
      ],
    });
    store.linkChild("parent", "child", { toolCallId: "t9", description: "task" });
    expect(store.prompts("parent").map((p) => [p.seq, p.runId, p.text])).toEqual([
      [0, "r1", "Read a.txt"],
      [3, "r2", "Now the task"],
    ]);
    expect(store.cut("parent", 3)).toEqual({ messages: 2, runIds: ["r2"], toolCallIds: ["t9"] });
    expect(store.messages("parent").map((m) => m.seq)).toEqual([0, 1, 2]);
    expect(store.events("parent").map((e) => e.runId)).toEqual(["r1"]);
    expect(store.children("parent")).toEqual([]);
    expect(store.nextSeq("parent").message).toBe(3);
  });

  it.each([
    // [cut before message, compaction kept?]
    [7, true],
    [6, true],
    [5, false],
    [3, false],
    [0, false],
  ])(
    "a cut before message %i keeps the compaction made at message 6 of messages 0-2: %s",
    (fromSeq, kept) => {
      store.begin("parent", { agent: "default", model: "ollama:m" });
      const more = [3, 4, 5, 6, 7].map((seq) => ({
        seq,
        runId: `r${seq}`,
        role: "user" as const,
        parts: [{ type: "text" as const, text: `p${seq}` }],
      }));
      store.write("parent", { messages: [...turn, ...more], events: [] });
      store.addCompaction("parent", {
        runId: "r5",
        throughSeq: 2,
        madeAtSeq: 6,
        summary: "S",
        tokensBefore: 10,
        tokensAfter: 5,
      });
      store.cut("parent", fromSeq);
      expect(store.compactions("parent").length).toBe(kept ? 1 : 0);
      // The messages before the cut stay, compacted or not.
      expect(store.messages("parent").length).toBe(fromSeq);
    },
  );

  it("drops a session's compactions with the session", () => {
    store.begin("parent", { agent: "default", model: "ollama:m" });
    store.write("parent", { messages: turn, events: [] });
    store.addCompaction("parent", {
      runId: null,
      throughSeq: 1,
      madeAtSeq: 3,
      summary: "S",
      tokensBefore: 2,
      tokensAfter: 1,
    });
    db.prepare("DELETE FROM sessions WHERE id = 'parent'").run();
    expect(store.compactions("parent")).toEqual([]);
  });
});
