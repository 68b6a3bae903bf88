import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import type { TodoStore } from "../store/todo-store.ts";
import type { TodoItem } from "../tools/todo-list.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import type { TodoData } from "./todo.ts";

let base: string;
let root: string;
let home: string;
const opened: Engine[] = [];

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-todo-"));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
});

afterEach(async () => {
  for (const engine of opened.splice(0)) await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** A real engine; its todo store is the one the todo tool writes to. */
async function engineWithTodos(): Promise<{ engine: Engine; store: TodoStore }> {
  const engine = await Engine.create({ root, latheHome: home });
  opened.push(engine);
  return { engine, store: engine.todos };
}

const plan: TodoItem[] = [
  { content: "Read the parser", status: "completed" },
  { content: "Fix the off-by-one", status: "in_progress" },
  { content: "Add a regression test", status: "pending" },
];

describe("todo", () => {
  it("replaces the session's whole list on each call, and an empty list clears it", async () => {
    const { engine, store } = await engineWithTodos();
    // Ask mode without an approver: todo is session-internal, so nothing is gated or denied.
    const session = await engine.openSession({ mode: "ask" });
    expect(outputOf<TodoData>(await session.call("todo", { todos: plan }))).toEqual({ todos: plan });
    expect(store.get(session.id)).toEqual(plan);

    const next: TodoItem[] = [{ content: "Add a regression test", status: "in_progress" }];
    expect(outputOf<TodoData>(await session.call("todo", { todos: next })).todos).toEqual(next);
    expect(store.get(session.id)).toEqual(next);

    outputOf(await session.call("todo", { todos: [] }));
    expect(store.get(session.id)).toEqual([]);
  });

  it("keeps each session's list apart", async () => {
    const { engine, store } = await engineWithTodos();
    const a = await engine.openSession();
    const b = await engine.openSession();
    outputOf(await a.call("todo", { todos: plan }));
    outputOf(await b.call("todo", { todos: [{ content: "Other work", status: "pending" }] }));
    expect(store.get(a.id)).toEqual(plan);
    expect(store.get(b.id)).toEqual([{ content: "Other work", status: "pending" }]);
  });

  it.each([
    {
      name: "two items in progress",
      todos: [
        { content: "a", status: "in_progress" },
        { content: "b", status: "in_progress" },
      ],
      error: /2 items are in_progress \(todos\[0\], todos\[1\]\); at most one may be/,
    },
    {
      name: "a blank step",
      todos: [{ content: "   ", status: "pending" }],
      error: /todos\[0\] has blank content/,
    },
    {
      name: "an unknown status",
      todos: [{ content: "a", status: "done" }],
      error: /"pending", "in_progress", "completed"/,
    },
    { name: "a missing status", todos: [{ content: "a" }], error: /missing required property "status"/ },
    {
      name: "an extra property",
      todos: [{ content: "a", status: "pending", id: 1 }],
      error: /unknown property "id"/,
    },
    {
      name: "too many items",
      todos: Array.from({ length: 101 }, (_, i) => ({ content: `step ${i}`, status: "pending" })),
      error: /"todos" must have at most 100 items/,
    },
    { name: "not a list", todos: "write tests", error: /"todos" must be array/ },
  ])("refuses $name and leaves the stored list as it was", async ({ todos, error }) => {
    const { engine, store } = await engineWithTodos();
    const session = await engine.openSession();
    outputOf(await session.call("todo", { todos: plan }));
    expect(errorOf(await session.call("todo", { todos }))).toMatch(error);
    expect(store.get(session.id)).toEqual(plan);
  });

  it("trims each step's text", async () => {
    const { engine } = await engineWithTodos();
    const session = await engine.openSession();
    const data = outputOf<TodoData>(
      await session.call("todo", { todos: [{ content: "  Ship it \n", status: "pending" }] }),
    );
    expect(data.todos).toEqual([{ content: "Ship it", status: "pending" }]);
  });

  it("emits TodosChanged with the whole new list, so the app can show it live", async () => {
    const { engine } = await engineWithTodos();
    const session = await engine.openSession();
    const seen: Array<{ sessionId: string; todos: TodoItem[] }> = [];
    engine.events.on("TodosChanged", (event) => seen.push(event));
    outputOf(await session.call("todo", { todos: plan }));
    expect(
      errorOf(await session.call("todo", { todos: [{ content: " ", status: "pending" }] })),
    ).toBeTruthy();
    outputOf(await session.call("todo", { todos: [] }));
    expect(seen).toEqual([
      { sessionId: session.id, todos: plan },
      { sessionId: session.id, todos: [] },
    ]);
  });

  it("keeps a persistent session's list across engines, and forgets an ephemeral one's", async () => {
    const first = await engineWithTodos();
    const persistent = await first.engine.openSession({ id: "work-1" });
    const ephemeral = await first.engine.openSession();
    outputOf(await persistent.call("todo", { todos: plan }));
    outputOf(await ephemeral.call("todo", { todos: plan }));
    await first.engine.close();

    const second = await engineWithTodos();
    expect(second.store.get("work-1")).toEqual(plan);
    expect(second.store.get(ephemeral.id)).toEqual([]);
    const resumed = await second.engine.openSession({ id: "work-1" });
    const done = plan.map((t) => ({ ...t, status: "completed" as const }));
    outputOf(await resumed.call("todo", { todos: done }));
    expect(second.store.get("work-1")).toEqual(done);
  });

  it("drops a session's list when the session ends", async () => {
    const { engine, store } = await engineWithTodos();
    const persistent = await engine.openSession({ id: "work-2" });
    const ephemeral = await engine.openSession();
    outputOf(await persistent.call("todo", { todos: plan }));
    outputOf(await ephemeral.call("todo", { todos: plan }));
    store.drop("work-2");
    store.drop(ephemeral.id);
    expect(store.get("work-2")).toEqual([]);
    expect(store.get(ephemeral.id)).toEqual([]);
  });
});
