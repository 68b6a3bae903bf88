// The chat channels end to end in one process: a UI connection over a real engine, the real
// OpenAI-compatible provider client streaming from the loopback fixture server, approvals and
// questions answered through the router as the renderer answers them.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type FixtureOptions,
  type FixtureReply,
  type FixtureServer,
} from "../../../test/fixtures/openai-compatible-server.ts";
import { closedPort, localProvidersAt } from "../../../test/support/closed-port.ts";
import type { ApiResult, Channel } from "../../shared/api-contract.ts";
import { parsePushFrame, type PushEvent, type PushFrame, type PushOf } from "../../shared/push-events.ts";
import type { ChatHistory } from "../../shared/chat-schemas.ts";
import type { RunEvent } from "../../shared/run-event-schema.ts";
import { Engine } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { HOST_CLOSED, TAB_CLOSED } from "./run-owners.ts";
import { UiConnection } from "./ui-connection.ts";

const MODEL = "openai-compatible:fixture-model";
/** How long a run outlives the UI that started it here (the host's default is seconds). */
const GRACE_MS = 300;

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
let server: FixtureServer | undefined;
const opened: UiConnection[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-chat-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(root, { recursive: true });
  await mkdir(latheHome, { recursive: true });
  engine = await Engine.create({ root, latheHome, extensions: false });
  host = new EngineHost({ engine, watchIntervalMs: 0, runGraceMs: GRACE_MS });
});

afterEach(async () => {
  for (const connection of opened.splice(0)) await connection.close();
  await host.close();
  await engine.close();
  await server?.close();
  server = undefined;
  await rm(base, { recursive: true, force: true });
});

/** Start the fixture and point the openai-compatible provider at it in the user's settings. */
async function model(replies: FixtureOptions["replies"], settings: Record<string, unknown> = {}) {
  server = await startOpenAICompatibleServer({ models: ["fixture-model"], replies });
  await writeFile(
    path.join(latheHome, "settings.json"),
    JSON.stringify({ providers: { "openai-compatible": { baseURL: server.baseURL } }, ...settings }),
  );
  return server;
}

/** A UI connection; `tab`: the tab id its page presents, and whether its page is still there when asked. */
function connect(tab: { id?: string; alive?: () => Promise<boolean> } = {}) {
  const frames: PushFrame[] = [];
  const connection = new UiConnection({
    host,
    ...(tab.id !== undefined ? { tabId: tab.id } : {}),
    ...(tab.alive ? { alive: tab.alive } : {}),
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
  opened.push(connection);
  const of = <E extends PushEvent>(event: E): PushOf<E>[] =>
    frames.flatMap((f) => (f.event === event ? [f.payload as PushOf<E>] : []));
  const dispatch = (channel: Channel, request: unknown): Promise<ApiResult<unknown>> =>
    connection.router.dispatch(channel, request);
  const events = (sessionId?: string): RunEvent[] =>
    of("run.event").flatMap((p) => (sessionId === undefined || p.sessionId === sessionId ? [p.event] : []));
  const finished = async (count = 1): Promise<RunEvent[]> => {
    await expect
      .poll(() => events().filter((e) => e.type === "finish").length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(count);
    return events().filter((e) => e.type === "finish");
  };
  return { connection, frames, of, dispatch, events, finished };
}

function data<T>(answer: ApiResult<unknown>): T {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data as T;
}

function failure(answer: ApiResult<unknown>): string {
  if (answer.ok) throw new Error(`expected a refusal, got ${JSON.stringify(answer.data)}`);
  return answer.error.message;
}

describe("chat channels: bad requests", () => {
  it.each([
    { channel: "chat.send", request: {}, message: /prompt/ },
    { channel: "chat.send", request: { prompt: "" }, message: /the prompt is empty/ },
    { channel: "chat.send", request: { prompt: " \n\t" }, message: /the prompt is empty/ },
    { channel: "chat.send", request: { prompt: 42 }, message: /prompt/ },
    { channel: "chat.send", request: { prompt: "hi", sessionId: "../escape" }, message: /sessionId/ },
    { channel: "chat.send", request: { prompt: "hi", sessionId: "a".repeat(65) }, message: /sessionId/ },
    { channel: "chat.send", request: { prompt: "hi", runAs: "root" }, message: /runAs/ },
    { channel: "chat.send", request: { prompt: "hi", model: "" }, message: /model/ },
    { channel: "chat.abort", request: {}, message: /runId/ },
    { channel: "chat.abort", request: { runId: 7 }, message: /runId/ },
    { channel: "chat.history", request: { sessionId: "has space" }, message: /sessionId/ },
    { channel: "question.respond", request: { id: "question-1" }, message: /question\.respond/ },
    { channel: "question.respond", request: { id: "q", answers: "Blue" }, message: /question\.respond/ },
    { channel: "question.respond", request: { id: "q", answers: [[1]] }, message: /question\.respond/ },
    { channel: "question.respond", request: { id: "q", dismissed: false }, message: /question\.respond/ },
    { channel: "models.list", request: { refresh: true }, message: /refresh/ },
  ] as const)("refuses $channel with $request", async ({ channel, request, message }) => {
    const ui = connect();
    expect(failure(await ui.dispatch(channel, request))).toMatch(message);
    expect(ui.events()).toEqual([]);
  });

  it("refuses to stop a run that does not exist, and to answer a question nobody asked", async () => {
    const ui = connect();
    expect(failure(await ui.dispatch("chat.abort", { runId: "r-made-up" }))).toMatch(
      /no run "r-made-up" going on/,
    );
    expect(failure(await ui.dispatch("question.respond", { id: "question-x", answers: [["a"]] }))).toMatch(
      /no question "question-x" waiting/,
    );
    expect(failure(await ui.dispatch("chat.history", { sessionId: "s-never" }))).toMatch(
      /no conversation "s-never"/,
    );
  });

  it("says how to choose a model when none is chosen anywhere", async () => {
    const ui = connect();
    const message = failure(await ui.dispatch("chat.send", { prompt: "hello" }));
    expect(message).toMatch(/No model chosen: pick one in the model picker/);
    expect(message).toContain(path.join(latheHome, "settings.json"));
    expect(failure(await ui.dispatch("chat.send", { prompt: "hi", model: "nosuch:x" }))).toMatch(
      /no model provider "nosuch"/,
    );
    expect(failure(await ui.dispatch("chat.send", { prompt: "hi", model: MODEL, agent: "ghost" }))).toMatch(
      /There is no agent "ghost"/,
    );
  });
});

describe("a chat run", () => {
  it("streams text, asks before writing, keeps the todo list live, and can be redrawn", async () => {
    const fixture = await model((_request, index) => {
      if (index === 0) {
        return {
          text: "I will write the file now.",
          toolCalls: [{ name: "write", arguments: { path: "notes/hello.txt", content: "hello\n" } }],
        };
      }
      if (index === 1) {
        return {
          toolCalls: [
            {
              name: "todo",
              arguments: {
                todos: [
                  { content: "Write hello.txt", status: "completed" },
                  { content: "Tell the person", status: "in_progress" },
                ],
              },
            },
          ],
        };
      }
      return { text: "Done: notes/hello.txt holds hello." };
    });
    const ui = connect();
    const started = data<{ sessionId: string; runId: string }>(
      await ui.dispatch("chat.send", { prompt: "Write hello", model: MODEL }),
    );
    expect(started.runId).toMatch(/^r-/);

    await expect.poll(() => ui.of("approval.requested").length, { timeout: 10_000 }).toBe(1);
    const prompt = ui.of("approval.requested")[0]!;
    expect(prompt).toMatchObject({ toolId: "write", sessionId: started.sessionId });
    data(await ui.dispatch("approval.respond", { id: prompt.id, answer: "once" }));
    const [finish] = await ui.finished();
    expect(finish).toMatchObject({ status: "completed", steps: 3 });

    const events = ui.events(started.sessionId);
    expect(events[0]).toEqual({
      type: "start",
      sessionId: started.sessionId,
      runId: started.runId,
      agent: "default",
      model: MODEL,
      resumed: false,
    });
    // The text arrived in several deltas, and every push names this run.
    const deltas = events.filter((e) => e.type === "text");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((e) => (e.type === "text" ? e.text : "")).join("")).toBe(
      "I will write the file now.Done: notes/hello.txt holds hello.",
    );
    expect(new Set(ui.of("run.event").map((p) => p.runId))).toEqual(new Set([started.runId]));
    expect(
      events.filter((e) => e.type === "tool-call").map((e) => e.type === "tool-call" && e.toolName),
    ).toEqual(["write", "todo"]);
    expect(events.find((e) => e.type === "approval")).toMatchObject({ toolName: "write", decision: "allow" });
    expect(events.find((e) => e.type === "tool-result" && e.toolName === "write")).toMatchObject({
      envelope: { type: "output", data: { path: "notes/hello.txt", bytes: 6 } },
    });
    expect(await readFile(path.join(root, "notes/hello.txt"), "utf8")).toBe("hello\n");
    expect(ui.of("todos.changed")).toEqual([
      {
        sessionId: started.sessionId,
        todos: [
          { content: "Write hello.txt", status: "completed" },
          { content: "Tell the person", status: "in_progress" },
        ],
      },
    ]);
    expect(fixture.requests).toHaveLength(3);

    // Another window (a reload) redraws the session from the record.
    const other = connect();
    const history = data<{
      turns: Array<{ runId: string; prompt: string; events: RunEvent[] }>;
      todos: unknown[];
      model: string;
    }>(await other.dispatch("chat.history", { sessionId: started.sessionId }));
    expect(history.model).toBe(MODEL);
    expect(history.turns).toHaveLength(1);
    expect(history.turns[0]).toMatchObject({ runId: started.runId, prompt: "Write hello" });
    expect(history.turns[0]!.events.at(-1)).toMatchObject({ type: "finish", status: "completed" });
    expect(history.todos).toHaveLength(2);

    // The session continues with the model it used; the model sees the earlier turn.
    const again = data<{ sessionId: string }>(
      await other.dispatch("chat.send", { prompt: "And now?", sessionId: started.sessionId }),
    );
    expect(again.sessionId).toBe(started.sessionId);
    await other.finished();
    const last = fixture.requests.at(-1)!;
    expect(last.messages.some((m) => m.role === "user" && m.content === "Write hello")).toBe(true);
    expect(last.messages.at(-1)).toEqual({ role: "user", content: "And now?" });
  });

  it("refuses a second send to a session while its run goes on, and stops a run on request", async () => {
    const fixture = await model([{ text: "Thinking", hang: true }]);
    const ui = connect();
    const started = data<{ sessionId: string; runId: string }>(
      await ui.dispatch("chat.send", { prompt: "Go", model: MODEL }),
    );
    await fixture.requestArrived(1);
    const second = failure(
      await ui.dispatch("chat.send", { prompt: "Again", model: MODEL, sessionId: started.sessionId }),
    );
    expect(second).toMatch(/already has a run going on: wait for it to finish, or press Stop/);
    // Not from another window either.
    const other = connect();
    expect(
      failure(
        await other.dispatch("chat.send", { prompt: "Too", model: MODEL, sessionId: started.sessionId }),
      ),
    ).toMatch(/already has a run going on/);
    expect(ui.connection.activeRuns).toBe(1);

    expect(data(await ui.dispatch("chat.abort", { runId: started.runId }))).toEqual({
      runId: started.runId,
      aborted: true,
    });
    const [finish] = await ui.finished();
    expect(finish).toMatchObject({ status: "aborted" });
    await expect.poll(() => ui.connection.activeRuns).toBe(0);
    expect(failure(await ui.dispatch("chat.abort", { runId: started.runId }))).toMatch(/no run/);
    // The session is free again.
    expect((await ui.dispatch("chat.send", { prompt: "Now", sessionId: started.sessionId })).ok).toBe(true);
  });

  it("lets another window follow a run it did not start, redraw it mid-run, and stop it", async () => {
    const fixture = await model([{ text: "Reading every file", hang: true }]);
    const ui = connect();
    const other = connect();
    const started = data<{ sessionId: string; runId: string }>(
      await ui.dispatch("chat.send", { prompt: "Look around", model: MODEL }),
    );
    await fixture.requestArrived(1);
    await expect.poll(() => other.events(started.sessionId).some((e) => e.type === "text")).toBe(true);
    // The same pushes, numbered in order, the prompt on the start.
    expect(other.of("run.event")).toEqual(ui.of("run.event"));
    expect(other.of("run.event").map((p) => p.index)).toEqual(other.of("run.event").map((_, i) => i));
    expect(other.of("run.event")[0]).toMatchObject({ prompt: "Look around", event: { type: "start" } });

    // Redrawn in the other window as it stands now, not as the store has it so far.
    const history = data<ChatHistory>(await other.dispatch("chat.history", { sessionId: started.sessionId }));
    expect(history.runningRunId).toBe(started.runId);
    expect(history.runningNextIndex).toBe(other.of("run.event").length);
    expect(history.turns.at(-1)).toMatchObject({ runId: started.runId, prompt: "Look around" });
    const text = history.turns
      .at(-1)!
      .events.flatMap((e) => (e.type === "text" ? [e.text] : []))
      .join("");
    expect(text).toBe("Reading every file");

    expect(data(await other.dispatch("chat.abort", { runId: started.runId }))).toEqual({
      runId: started.runId,
      aborted: true,
    });
    const [finish] = await ui.finished();
    expect(finish).toMatchObject({ status: "aborted" });
    await other.finished();
    await expect.poll(() => ui.connection.activeRuns).toBe(0);
    const after = data<ChatHistory>(await other.dispatch("chat.history", { sessionId: started.sessionId }));
    expect(after.runningRunId).toBeUndefined();
    expect(after.turns.at(-1)?.events.at(-1)).toMatchObject({ type: "finish", status: "aborted" });
  });

  it("refuses a send to a session whose run goes on in another Lathe process, naming that process", async () => {
    await model([{ text: "Done." }]);
    const ui = connect();
    const { sessionId } = data<{ sessionId: string }>(
      await ui.dispatch("chat.send", { prompt: "Go", model: MODEL }),
    );
    await ui.finished();
    // A `lathe run --resume` elsewhere holds the session (a live process: the one running this test).
    const db = new Database(path.join(latheHome, "lathe.db"));
    db.prepare(
      "INSERT INTO run_leases (session_id, token, pid, host, started_at, heartbeat_at) VALUES (?, 'cli', ?, ?, ?, ?)",
    ).run(sessionId, process.ppid, os.hostname(), Date.now(), Date.now());
    const refused = failure(await ui.dispatch("chat.send", { prompt: "Again", model: MODEL, sessionId }));
    expect(refused).toMatch(
      new RegExp(
        `^Session ${sessionId} is in use by another Lathe process \\(pid ${process.ppid} on .+\\): wait for that run to end`,
      ),
    );
    // Once that run has ended, the session takes the next prompt.
    db.prepare("DELETE FROM run_leases WHERE session_id = ?").run(sessionId);
    db.close();
    expect((await ui.dispatch("chat.send", { prompt: "Now", sessionId })).ok).toBe(true);
    await ui.finished(2);
  });

  it("puts the model's question to the person, refuses answers that do not fit, and hands over the answer", async () => {
    const fixture = await model((_request, index) =>
      index === 0
        ? {
            toolCalls: [
              {
                name: "question",
                arguments: {
                  questions: [
                    {
                      question: "Which colour?",
                      header: "Colour",
                      options: [{ label: "Red" }, { label: "Blue" }],
                    },
                  ],
                },
              },
            ],
          }
        : { text: "Blue it is." },
    );
    const ui = connect();
    const { sessionId } = data<{ sessionId: string }>(
      await ui.dispatch("chat.send", { prompt: "Pick a colour", model: MODEL }),
    );
    await expect.poll(() => ui.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    const question = ui.of("question.requested")[0]!;
    expect(question.questions).toEqual([
      { question: "Which colour?", header: "Colour", options: [{ label: "Red" }, { label: "Blue" }] },
    ]);
    expect(failure(await ui.dispatch("question.respond", { id: question.id, answers: [["Green"]] }))).toMatch(
      /"Green" is not among its options/,
    );
    expect(host.chatPrompts.pending(sessionId).questions).toEqual([question]);
    expect(data(await ui.dispatch("question.respond", { id: question.id, answers: [["Blue"]] }))).toEqual({
      id: question.id,
      outcome: "answered",
    });
    await ui.finished();
    expect(ui.of("question.settled")).toEqual([{ id: question.id, cause: "answered" }]);
    const tool = fixture.requests[1]!.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content))).toMatchObject({
      type: "output",
      data: { answers: [["Blue"]] },
    });
  });

  it("tells the model when the person dismisses the question", async () => {
    const fixture = await model((_request, index) =>
      index === 0
        ? { toolCalls: [{ name: "question", arguments: { questions: [{ question: "Name?" }] } }] }
        : { text: "I will pick one myself." },
    );
    const ui = connect();
    data(await ui.dispatch("chat.send", { prompt: "Name it", model: MODEL }));
    await expect.poll(() => ui.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    const { id } = ui.of("question.requested")[0]!;
    expect(data(await ui.dispatch("question.respond", { id, dismissed: true }))).toEqual({
      id,
      outcome: "dismissed",
    });
    await ui.finished();
    const tool = fixture.requests[1]!.messages.find((m) => m.role === "tool");
    expect(String(tool?.content)).toMatch(/dismissed the questions without answering/);
  });

  it("stops the run and dismisses its question a grace after the UI goes away", async () => {
    const fixture = await model([
      { toolCalls: [{ name: "question", arguments: { questions: [{ question: "Name?" }] } }] },
      { text: "never asked for" },
    ]);
    const ui = connect();
    const { sessionId } = data<{ sessionId: string }>(
      await ui.dispatch("chat.send", { prompt: "Name it", model: MODEL }),
    );
    await expect.poll(() => ui.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    await ui.connection.close();
    // A reload would come back within the grace: until then the question waits.
    expect(host.chatPrompts.pending(sessionId).questions).toHaveLength(1);
    await expect.poll(() => host.chatPrompts.pending(sessionId).questions, { timeout: 5_000 }).toEqual([]);
    await expect.poll(() => ui.connection.activeRuns).toBe(0);
    expect(fixture.requests).toHaveLength(1);
    // The record shows a stopped run, and the session takes a new run.
    const other = connect();
    await expect
      .poll(
        async () => {
          const history = data<{ turns: Array<{ events: RunEvent[] }> }>(
            await other.dispatch("chat.history", { sessionId }),
          );
          return history.turns[0]?.events.at(-1);
        },
        { timeout: 5_000 },
      )
      .toMatchObject({ type: "finish", status: "aborted", stoppedBecause: TAB_CLOSED });
    expect((await other.dispatch("chat.send", { prompt: "Again", sessionId })).ok).toBe(true);
  });

  it("runs an agent with its own deny rules: its writes are refused without asking", async () => {
    await model([
      { toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "x" } }] },
      { text: "I may not write." },
    ]);
    await mkdir(path.join(latheHome, "agents"), { recursive: true });
    await writeFile(
      path.join(latheHome, "agents", "careful.md"),
      "---\ndescription: Never writes.\npermissions:\n  - { permission: write, action: deny }\n---\nBe careful.\n",
    );
    const ui = connect();
    data(await ui.dispatch("chat.send", { prompt: "Write x", model: MODEL, agent: "careful" }));
    await ui.finished();
    expect(ui.events()[0]).toMatchObject({ type: "start", agent: "careful" });
    expect(ui.of("approval.requested")).toEqual([]);
    expect(ui.events().find((e) => e.type === "tool-result")).toMatchObject({
      envelope: { type: "error", error_text: expect.stringMatching(/denied/i) },
    });
    expect(existsSync(path.join(root, "x.txt"))).toBe(false);
  });
});

describe("a run whose model server is down", () => {
  it("starts, then ends failed with an error that says what to do", async () => {
    const closed = await startOpenAICompatibleServer({ replies: [] });
    const baseURL = closed.baseURL;
    await closed.close();
    await writeFile(
      path.join(latheHome, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const ui = connect();
    data(await ui.dispatch("chat.send", { prompt: "Hello", model: MODEL }));
    const [finish] = await ui.finished();
    expect(finish).toMatchObject({ status: "failed" });
    expect(ui.events().find((e) => e.type === "error")).toMatchObject({
      message: expect.stringMatching(
        /The OpenAI-compatible server is not running on http:\/\/127\.0\.0\.1:\d+/,
      ),
    });
  });
});

describe("the pickers", () => {
  it("lists the models of the configured endpoint, and the settings' default", async () => {
    await model([{ text: "" }], { defaultModel: MODEL });
    const ui = connect();
    const list = data<{ models: unknown[]; defaultModel: string; providers: Array<{ name: string }> }>(
      await ui.dispatch("models.list", undefined),
    );
    expect(list.models).toContainEqual({ id: MODEL, provider: "openai-compatible" });
    expect(list.defaultModel).toBe(MODEL);
    expect(list.providers.map((p) => p.name)).toEqual(
      expect.arrayContaining(["ollama", "gguf", "openai-compatible"]),
    );
  });

  it("turns an endpoint that does not answer into a notice, never a failure", async () => {
    const closed = await startOpenAICompatibleServer({ replies: [] });
    const baseURL = closed.baseURL;
    await closed.close();
    // The local servers' default ports too: whatever runs on this machine (Ollama…) is not asked.
    await writeFile(
      path.join(latheHome, "settings.json"),
      JSON.stringify({
        providers: { ...localProvidersAt(await closedPort()), "openai-compatible": { baseURL } },
      }),
    );
    const ui = connect();
    const list = data<{ models: unknown[]; notices: string[] }>(await ui.dispatch("models.list", undefined));
    expect(list.notices.join("\n")).toMatch(
      /The OpenAI-compatible server is not running on http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(list.notices.join("\n")).toMatch(/No model server answered/);
  });

  it("lists the agents, and the manifests that could not be read with their fix", async () => {
    await mkdir(path.join(latheHome, "agents"), { recursive: true });
    await writeFile(
      path.join(latheHome, "agents", "reviewer.md"),
      "---\ndescription: Reviews.\nmodel: ollama:x\n---\nReview.\n",
    );
    await writeFile(path.join(latheHome, "agents", "broken.md"), "no front matter");
    const ui = connect();
    const list = data<{ agents: unknown[]; problems: string[] }>(await ui.dispatch("agents.list", undefined));
    expect(list.agents).toEqual([
      expect.objectContaining({ id: "default", layer: "builtin" }),
      { id: "reviewer", description: "Reviews.", model: "ollama:x", layer: "global" },
    ]);
    expect(list.problems).toEqual([expect.stringMatching(/broken\.md[\s\S]*front matter/)]);
  });
});

describe("a chat run's approvals and questions in several UIs", () => {
  /** The model's script, by the prompt of the turn and how many tool results follow it. */
  function byPrompt(script: Record<string, FixtureReply[]>): FixtureOptions["replies"] {
    return (request) => {
      const lastUser = request.messages.findLastIndex((m) => m.role === "user");
      const prompt = String(request.messages[lastUser]?.content ?? "");
      const step = request.messages.slice(lastUser).filter((m) => m.role === "tool").length;
      return script[prompt]?.[step] ?? { text: "Nothing more." };
    };
  }
  const writes = (file: string, content: string): FixtureReply => ({
    toolCalls: [{ name: "write", arguments: { path: file, content } }],
  });
  const history = async (ui: ReturnType<typeof connect>, sessionId: string) =>
    data<ChatHistory>(await ui.dispatch("chat.history", { sessionId }));

  it("shows a prompt in every UI (one opened later from the history), answered once from any of them", async () => {
    await model(byPrompt({ "Write a": [writes("a.txt", "a\n"), { text: "Wrote a." }] }));
    const [a, b] = [connect(), connect()];
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Write a", model: MODEL }),
    );
    await expect.poll(() => b.of("approval.requested").length, { timeout: 10_000 }).toBe(1);
    const prompt = b.of("approval.requested")[0]!;
    expect(a.of("approval.requested")).toEqual([prompt]);
    expect(prompt).toMatchObject({ toolId: "write", sessionId, runSessionId: sessionId });
    // A UI that connects now finds it in the session's history.
    const c = connect();
    expect((await history(c, sessionId)).approvals).toEqual([prompt]);
    // Its session list says the session waits for the person, in every UI.
    const row = async () =>
      data<{ sessions: Array<{ id: string; waiting: boolean }> }>(
        await c.dispatch("sessions.list", {}),
      ).sessions.find((s) => s.id === sessionId);
    expect(await row()).toMatchObject({ waiting: true });

    expect(data(await b.dispatch("approval.respond", { id: prompt.id, answer: "once" }))).toEqual({
      id: prompt.id,
      answer: "once",
    });
    // The second answer is refused, saying what became of the prompt; nothing runs twice.
    expect(failure(await a.dispatch("approval.respond", { id: prompt.id, answer: "once" }))).toMatch(
      /is over: it was already answered \("once"\)/,
    );
    await a.finished();
    for (const ui of [a, b, c])
      expect(ui.of("approval.settled")).toEqual([{ id: prompt.id, answer: "once", cause: "answered" }]);
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("a\n");
    // One call, one result: the answer given twice ran nothing twice.
    expect(a.events(sessionId).filter((e) => e.type === "tool-result")).toHaveLength(1);
    expect((await history(c, sessionId)).approvals).toEqual([]);
    expect(await row()).toMatchObject({ waiting: false });
    expect(b.of("sessions.changed").length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    { first: "once", second: "reject" },
    { first: "reject", second: "once" },
  ] as const)(
    "takes the first of two answers sent at once ($first, then $second)",
    async ({ first, second }) => {
      await model(byPrompt({ "Write b": [writes("b.txt", "b\n"), { text: "Done." }] }));
      const [a, b] = [connect(), connect()];
      data(await a.dispatch("chat.send", { prompt: "Write b", model: MODEL }));
      await expect.poll(() => b.of("approval.requested").length, { timeout: 10_000 }).toBe(1);
      const { id } = b.of("approval.requested")[0]!;
      const answers = await Promise.all([
        a.dispatch("approval.respond", { id, answer: first }),
        b.dispatch("approval.respond", { id, answer: second }),
      ]);
      expect(answers.map((answer) => answer.ok)).toEqual([true, false]);
      await a.finished();
      expect(existsSync(path.join(root, "b.txt"))).toBe(first === "once");
      expect(b.of("approval.settled")).toEqual([{ id, answer: first, cause: "answered" }]);
    },
  );

  it("applies an 'always' given in another UI to the run's later calls with the same key", async () => {
    await model(
      byPrompt({ "Write c twice": [writes("c.txt", "one\n"), writes("c.txt", "two\n"), { text: "Twice." }] }),
    );
    const [a, b] = [connect(), connect()];
    data(await a.dispatch("chat.send", { prompt: "Write c twice", model: MODEL }));
    await expect.poll(() => b.of("approval.requested").length, { timeout: 10_000 }).toBe(1);
    data(await b.dispatch("approval.respond", { id: b.of("approval.requested")[0]!.id, answer: "always" }));
    const [finish] = await a.finished();
    expect(finish).toMatchObject({ status: "completed" });
    expect(a.of("approval.requested")).toHaveLength(1);
    expect(await readFile(path.join(root, "c.txt"), "utf8")).toBe("two\n");
  });

  it("puts a question to every UI; a bad answer from one is refused and the dialog stays for all", async () => {
    const fixture = await model(
      byPrompt({
        "Pick one": [
          {
            toolCalls: [
              {
                name: "question",
                arguments: { questions: [{ question: "Which?", options: [{ label: "X" }, { label: "Y" }] }] },
              },
            ],
          },
          { text: "Picked." },
        ],
      }),
    );
    const [a, b] = [connect(), connect()];
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Pick one", model: MODEL }),
    );
    await expect.poll(() => b.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    const question = b.of("question.requested")[0]!;
    expect(question.runSessionId).toBe(sessionId);
    expect(failure(await b.dispatch("question.respond", { id: question.id, answers: [["Z"]] }))).toMatch(
      /"Z" is not among its options/,
    );
    expect((await history(a, sessionId)).questions).toEqual([question]);
    data(await b.dispatch("question.respond", { id: question.id, answers: [["Y"]] }));
    expect(failure(await a.dispatch("question.respond", { id: question.id, dismissed: true }))).toMatch(
      /is over: it was already answered/,
    );
    await a.finished();
    expect(a.of("question.settled")).toEqual([{ id: question.id, cause: "answered" }]);
    const tool = fixture.requests.at(-1)!.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content))).toMatchObject({ data: { answers: [["Y"]] } });
  });

  it("stops the run a grace after the UI that started it goes away: the others see the prompt end and the run stopped, and why", async () => {
    await model(byPrompt({ "Write d": [writes("d.txt", "d\n"), { text: "never" }] }));
    const [a, b] = [connect(), connect()];
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Write d", model: MODEL }),
    );
    await expect.poll(() => b.of("approval.requested").length, { timeout: 10_000 }).toBe(1);
    const { id } = b.of("approval.requested")[0]!;
    // b shows the chat (it opened it) but did not start the run: it owns nothing.
    expect((await history(b, sessionId)).runOwned).toBeUndefined();
    await a.connection.close();
    const [finish] = await b.finished();
    expect(finish).toEqual(expect.objectContaining({ status: "aborted", stoppedBecause: TAB_CLOSED }));
    expect(b.of("approval.settled")).toEqual([{ id, answer: "reject", cause: "aborted" }]);
    expect(failure(await b.dispatch("approval.respond", { id, answer: "once" }))).toMatch(
      /its call was stopped/,
    );
    expect((await history(b, sessionId)).approvals).toEqual([]);
    expect(existsSync(path.join(root, "d.txt"))).toBe(false);
  });

  /** A run that asks the person a question and waits for the answer, however long it takes. */
  const asks = {
    "Ask me": [
      { toolCalls: [{ name: "question", arguments: { questions: [{ question: "Name?" }] } }] },
      { text: "Thanks." },
    ],
  } satisfies Record<string, FixtureReply[]>;
  const pastGrace = () => new Promise((resolve) => setTimeout(resolve, GRACE_MS * 3));
  /** The tab id one page keeps in its sessionStorage, across its reloads. */
  const TAB = "tab-of-the-page-that-sent";

  it("keeps a run going when its UI comes back within the grace (a reload): the page back on the chat owns it", async () => {
    await model(byPrompt(asks));
    const a = connect({ id: TAB });
    const { sessionId, runId } = data<{ sessionId: string; runId: string }>(
      await a.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect.poll(() => a.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    // The page reloads: its connection closes, a new one of the same tab opens the chat it had on screen.
    await a.connection.close();
    const reloaded = connect({ id: TAB });
    const shown = await history(reloaded, sessionId);
    expect(shown).toMatchObject({ runningRunId: runId, runOwned: true });
    expect(shown.questions).toHaveLength(1);
    expect(reloaded.connection.activeRuns).toBe(1);
    await pastGrace();
    // Still going on, still asking: nothing was stopped.
    expect(host.chatPrompts.pending(sessionId).questions).toHaveLength(1);
    expect(reloaded.events().filter((e) => e.type === "finish")).toEqual([]);
    data(await reloaded.dispatch("question.respond", { id: shown.questions[0]!.id, answers: [["Ada"]] }));
    const [finish] = await reloaded.finished();
    expect(finish).toMatchObject({ status: "completed" });
  });

  it("keeps a run for its tab when the reloaded page connects before the old connection's close arrives", async () => {
    await model(byPrompt(asks));
    // The old page is gone, but the host has not heard its close yet: asked, it does not answer.
    const a = connect({ id: TAB, alive: () => Promise.resolve(false) });
    const { sessionId, runId } = data<{ sessionId: string; runId: string }>(
      await a.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect.poll(() => a.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    const reloaded = connect({ id: TAB });
    const shown = await history(reloaded, sessionId);
    expect(shown).toMatchObject({ runningRunId: runId, runOwned: true });
    expect(reloaded.of("tab.assigned")).toEqual([{ tabId: TAB }]);
    await a.connection.close();
    await pastGrace();
    expect(host.chatPrompts.pending(sessionId).questions).toHaveLength(1);
    expect(reloaded.events().filter((e) => e.type === "finish")).toEqual([]);
    expect(reloaded.connection.activeRuns).toBe(1);
    data(
      await reloaded.dispatch("question.respond", {
        id: shown.questions[0]!.id,
        answers: [["Ada"]],
      }),
    );
    const [finish] = await reloaded.finished();
    expect(finish).toMatchObject({ status: "completed" });
  });

  it("lets no other tab take over the run of a tab that went away: it stops after the grace, whoever opened the chat", async () => {
    await model(byPrompt(asks));
    const a = connect({ id: TAB });
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect.poll(() => a.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    await a.connection.close();
    // Another tab (its own id), and a tab that presents none, open the chat during the grace.
    const [other, fresh] = [connect({ id: "another-tab-of-the-host" }), connect()];
    for (const ui of [other, fresh]) {
      expect((await history(ui, sessionId)).runOwned).toBeUndefined();
      expect(ui.connection.activeRuns).toBe(0);
    }
    const [finish] = await other.finished();
    expect(finish).toMatchObject({ status: "aborted", stoppedBecause: TAB_CLOSED });
  });

  it("gives a duplicated tab (its original still open) a fresh id: the run stays the original's", async () => {
    await model(byPrompt(asks));
    const a = connect({ id: TAB });
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect.poll(() => a.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    const duplicate = connect({ id: TAB });
    expect((await history(duplicate, sessionId)).runOwned).toBeUndefined();
    const [assigned] = duplicate.of("tab.assigned");
    expect(assigned?.tabId).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(assigned?.tabId).not.toBe(TAB);
    await duplicate.connection.close();
    await pastGrace();
    expect((await history(a, sessionId)).runOwned).toBe(true);
    expect(host.chatPrompts.pending(sessionId).questions).toHaveLength(1);
  });

  it("gives the run the same grace when the reloaded page closes for good", async () => {
    await model(byPrompt(asks));
    const [a, watcher] = [connect({ id: TAB }), connect()];
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect.poll(() => a.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    await a.connection.close();
    const reloaded = connect({ id: TAB });
    expect((await history(reloaded, sessionId)).runOwned).toBe(true);
    await reloaded.connection.close();
    const [finish] = await watcher.finished();
    expect(finish).toMatchObject({ status: "aborted", stoppedBecause: TAB_CLOSED });
    expect((await history(watcher, sessionId)).turns.at(-1)?.events.at(-1)).toEqual(finish);
  });

  it("lets a UI that only watches a run go away: the run goes on for the UI that started it", async () => {
    await model(byPrompt(asks));
    const [a, watcher] = [connect(), connect()];
    const { sessionId } = data<{ sessionId: string }>(
      await a.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect.poll(() => watcher.of("question.requested").length, { timeout: 10_000 }).toBe(1);
    expect((await history(watcher, sessionId)).runOwned).toBeUndefined();
    expect(watcher.connection.activeRuns).toBe(0);
    await watcher.connection.close();
    await pastGrace();
    expect(host.chatPrompts.pending(sessionId).questions).toHaveLength(1);
    // The UI that started it still has it as its own, and answers it.
    expect((await history(a, sessionId)).runOwned).toBe(true);
    data(await a.dispatch("question.respond", { id: a.of("question.requested")[0]!.id, answers: [["Ada"]] }));
    const [finish] = await a.finished();
    expect(finish).toMatchObject({ status: "completed" });
  });

  it("stops a run waiting for its UI at once when the host closes, saying so in its record", async () => {
    await model(byPrompt(asks));
    // A grace far longer than the test: closing the host must not wait for it.
    const patient = new EngineHost({ engine, watchIntervalMs: 0, runGraceMs: 600_000 });
    const frames: PushFrame[] = [];
    const ui = new UiConnection({ host: patient, send: (frame) => frames.push(frame) });
    const { sessionId } = data<{ sessionId: string }>(
      await ui.router.dispatch("chat.send", { prompt: "Ask me", model: MODEL }),
    );
    await expect
      .poll(() => patient.chatPrompts.pending(sessionId).questions.length, { timeout: 10_000 })
      .toBe(1);
    await ui.close();
    const started = performance.now();
    await patient.close();
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(patient.chatSessions.has(sessionId)).toBe(false);
    const last = engine.conversations().events(sessionId).at(-1)?.data;
    expect(last).toMatchObject({ type: "finish", status: "aborted", stoppedBecause: HOST_CLOSED });
  });

  it("keeps two sessions' prompts apart: neither waits behind the other", async () => {
    await model(
      byPrompt({
        "Write e": [writes("e.txt", "e\n"), { text: "e" }],
        "Write f": [writes("f.txt", "f\n"), { text: "f" }],
      }),
    );
    const [a, b] = [connect(), connect()];
    const e = data<{ sessionId: string }>(await a.dispatch("chat.send", { prompt: "Write e", model: MODEL }));
    const f = data<{ sessionId: string }>(await b.dispatch("chat.send", { prompt: "Write f", model: MODEL }));
    await expect.poll(() => a.of("approval.requested").length, { timeout: 10_000 }).toBe(2);
    const bySession = new Map(a.of("approval.requested").map((p) => [p.runSessionId, p.id]));
    data(await a.dispatch("approval.respond", { id: bySession.get(f.sessionId)!, answer: "once" }));
    data(await b.dispatch("approval.respond", { id: bySession.get(e.sessionId)!, answer: "reject" }));
    await a.finished(2);
    expect(existsSync(path.join(root, "f.txt"))).toBe(true);
    expect(existsSync(path.join(root, "e.txt"))).toBe(false);
  });

  it("keeps a prompt of one UI's own tool call (its Tools view) to that UI", async () => {
    const [a, b] = [connect(), connect()];
    const call = a.dispatch("tools.call", { toolId: "write", args: { path: "g.txt", content: "g\n" } });
    await expect.poll(() => a.of("approval.requested").length, { timeout: 10_000 }).toBe(1);
    const prompt = a.of("approval.requested")[0]!;
    expect(prompt.runSessionId).toBeUndefined();
    expect(b.of("approval.requested")).toEqual([]);
    expect(failure(await b.dispatch("approval.respond", { id: prompt.id, answer: "once" }))).toMatch(
      /no approval prompt .* waiting/,
    );
    expect(existsSync(path.join(root, "g.txt"))).toBe(false);
    data(await a.dispatch("approval.respond", { id: prompt.id, answer: "reject" }));
    expect(data<{ type: string }>(await call).type).toBe("error");
    expect(existsSync(path.join(root, "g.txt"))).toBe(false);
  });
});
