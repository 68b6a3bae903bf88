import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../store/database.ts";
import { ConversationStore } from "../store/conversation-store.ts";
import { ConversationWriter } from "./conversation-writer.ts";

let db: Db;
let store: ConversationStore;
beforeEach(() => {
  db = openDatabase(":memory:");
  db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s1', '/w', 0)").run();
  store = new ConversationStore(db);
  store.begin("s1", { agent: "default", model: "ollama:m" });
});
afterEach(() => db.close());

describe("the conversation writer", () => {
  it("keeps events in memory until its timer fires, merging a step's text deltas into one", async () => {
    const writer = new ConversationWriter(store, "s1", "r1", { flushIntervalMs: 20 });
    writer.event({ type: "step-start", step: 0 });
    for (const t of ["Hel", "lo", ", world"]) writer.event({ type: "text", step: 0, text: t });
    writer.event({ type: "reasoning", step: 0, text: "hm" });
    writer.event({ type: "text", step: 0, text: "!" });
    expect(store.events("s1")).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(store.events("s1").map((e) => e.data)).toEqual([
      { type: "step-start", step: 0 },
      { type: "text", step: 0, text: "Hello, world" },
      { type: "reasoning", step: 0, text: "hm" },
      { type: "text", step: 0, text: "!" },
    ]);
    writer.close();
  });

  it("keeps a cut-off mark on the text it joins", () => {
    const writer = new ConversationWriter(store, "s1", "r1", { flushIntervalMs: 60_000 });
    writer.event({ type: "text", step: 0, text: "Half an " });
    writer.event({ type: "text", step: 0, text: "answ" });
    writer.event({ type: "text", step: 0, text: "", cutOff: true });
    writer.close();
    expect(store.events("s1").map((e) => e.data)).toEqual([
      { type: "text", step: 0, text: "Half an answ", cutOff: true },
    ]);
  });

  it("writes a completed message at the next tick, not later", async () => {
    const writer = new ConversationWriter(store, "s1", "r1", { flushIntervalMs: 60_000 });
    writer.message({ role: "user", parts: [{ type: "text", text: "hi" }] });
    expect(store.messages("s1")).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(store.messages("s1")).toMatchObject([
      { seq: 0, role: "user", runId: "r1", parts: [{ type: "text", text: "hi" }] },
    ]);
    writer.close();
  });

  it("continues the sequence of an existing conversation and flushes everything on close", () => {
    const first = new ConversationWriter(store, "s1", "r1");
    first.message({ role: "user", parts: [{ type: "text", text: "one" }] });
    first.event({ type: "notice", message: "n" });
    first.close();
    const second = new ConversationWriter(store, "s1", "r2");
    second.message({ role: "user", parts: [{ type: "text", text: "two" }] });
    second.event({ type: "notice", message: "m" });
    second.close();
    expect(store.messages("s1").map((m) => [m.seq, m.runId])).toEqual([
      [0, "r1"],
      [1, "r2"],
    ]);
    expect(store.events("s1").map((e) => [e.seq, e.runId])).toEqual([
      [0, "r1"],
      [1, "r2"],
    ]);
  });

  it("reports a failed write instead of throwing into the stream", () => {
    const errors: unknown[] = [];
    const writer = new ConversationWriter(store, "s1", "r1", { onError: (e) => errors.push(e) });
    db.exec("DROP TABLE run_events");
    writer.event({ type: "notice", message: "lost" });
    expect(() => writer.close()).not.toThrow();
    expect(String(errors[0])).toMatch(/run_events/);
  });
});
