import { describe, expect, it, vi } from "vitest";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { CheckpointSummary } from "../../shared/checkpoint-schemas.ts";
import type { ChatHistory } from "../../shared/chat-schemas.ts";
import type { ModelCatalog } from "../../shared/model-catalog-schemas.ts";
import type { PushEvent, PushOf } from "../../shared/push-events.ts";
import { PushListeners } from "../../shared/push-listeners.ts";
import type { RunEvent } from "../../shared/run-event-schema.ts";
import {
  CONTINUE_PROMPT,
  createChatStore,
  randomSessionId,
  SESSION_KEY,
  shownQuestions,
} from "./chat-store.ts";
import { newTurn } from "./transcript.ts";
import { unusedApi } from "../../../test/support/unused-api.ts";

const models: ModelCatalog = {
  local: [
    {
      provider: "ollama",
      label: "Ollama",
      baseURL: "http://127.0.0.1:11434/v1",
      configured: false,
      state: "running",
      models: [{ id: "ollama:llama3.2", name: "llama3.2" }],
    },
    {
      provider: "lmstudio",
      label: "LM Studio",
      baseURL: "http://127.0.0.1:1234/v1",
      configured: false,
      state: "stopped",
      models: [],
      message: "LM Studio is not running on http://127.0.0.1:1234",
    },
  ],
  gguf: { folder: "/h/models", files: [] },
  cloud: [],
  notices: [],
};

interface Script {
  send?: ApiResult<{ sessionId: string; runId: string }>;
  history?: ApiResult<ChatHistory>;
  respond?: ApiResult<{ id: string; outcome: "answered" | "dismissed" }>;
  /** Runs while an answer travels (another tab's answer settling the question first). */
  onRespond?: () => void;
  models?: ApiResult<ModelCatalog>;
  stopTool?: ApiResult<{ runId: string; toolCallId: string; stopped: true }>;
  stopTask?: ApiResult<{ taskId: string; stopped: true }>;
  checkpoints?: ApiResult<CheckpointSummary[]>;
}

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    removeItem: (key: string) => void data.delete(key),
  };
}

function fakeApi(script: Script = {}) {
  const calls: Array<[string, unknown]> = [];
  const listeners = new PushListeners((message) => {
    throw new Error(message);
  });
  const api: LatheApi = {
    ...unusedApi(),
    chat: {
      send: (request) => {
        calls.push(["send", request]);
        return Promise.resolve(script.send ?? { ok: true, data: { sessionId: "s-1", runId: "r-1" } });
      },
      abort: (request) => {
        calls.push(["abort", request]);
        return Promise.resolve({ ok: true, data: { runId: request.runId, aborted: true as const } });
      },
      history: (request) => {
        calls.push(["history", request]);
        return Promise.resolve(script.history ?? { ok: false, error: { message: "no conversation" } });
      },
      stopTool: (request) => {
        calls.push(["stopTool", request]);
        return Promise.resolve(script.stopTool ?? { ok: true, data: { ...request, stopped: true as const } });
      },
      stopTask: (request) => {
        calls.push(["stopTask", request]);
        return Promise.resolve(script.stopTask ?? { ok: true, data: { ...request, stopped: true as const } });
      },
    },
    models: {
      ...unusedApi().models,
      catalog: () => Promise.resolve(script.models ?? { ok: true, data: models }),
      setProjectModel: (request) => {
        calls.push(["setProjectModel", request]);
        const model = request.model ?? undefined;
        return Promise.resolve({ ok: true, data: { ...models, ...(model ? { projectModel: model } : {}) } });
      },
    },
    checkpoints: {
      ...unusedApi().checkpoints,
      list: (request) => {
        calls.push(["checkpoints.list", request]);
        return Promise.resolve(script.checkpoints ?? { ok: true, data: [] });
      },
    },
    agents: {
      list: () =>
        Promise.resolve({
          ok: true,
          data: {
            agents: [{ id: "default", description: "General", layer: "builtin" }],
            problems: ["broken.md: no front matter"],
            notices: [],
          },
        }),
    },
    questions: {
      respond: (request) => {
        calls.push(["respond", request]);
        script.onRespond?.();
        const outcome = "answers" in request ? ("answered" as const) : ("dismissed" as const);
        return Promise.resolve(script.respond ?? { ok: true, data: { id: request.id, outcome } });
      },
    },
    on: (event, listener) => listeners.add(event, listener),
  };
  const push = <E extends PushEvent>(event: E, payload: PushOf<E>) => listeners.deliver({ event, payload });
  return { api, calls, push };
}

function setup(
  script: Script = {},
  stored: Record<string, string> = {},
  options: Pick<Parameters<typeof createChatStore>[1] & object, "onApprovalsWaiting"> = {},
) {
  const fake = fakeApi(script);
  const storage = memoryStorage(stored);
  let n = 0;
  const store = createChatStore(fake.api, { storage, newSessionId: () => `s-new-${++n}`, ...options });
  store.getState().connect();
  let index = 0;
  const event = (e: RunEvent, sessionId = store.getState().sessionId) =>
    fake.push("run.event", { sessionId, runId: "r-1", index: index++, event: e });
  return { ...fake, store, storage, event };
}

const start = (sessionId: string, runId = "r-1"): RunEvent => ({
  type: "start",
  sessionId,
  runId,
  agent: "default",
  model: "ollama:llama3.2",
  resumed: false,
});
const finish = (status: "completed" | "aborted" = "completed"): RunEvent => ({
  type: "finish",
  status,
  finishReason: "stop",
  steps: 1,
  usage: {},
});

describe("the chat store", () => {
  it("fills the pickers: what was detected, the first running model as default, and the agents' notices", async () => {
    const { store } = setup();
    await store.getState().loadPickers();
    expect(store.getState()).toMatchObject({
      model: "ollama:llama3.2",
      agent: "default",
      agentNotices: ["broken.md: no front matter"],
    });
    expect(store.getState().catalog?.local[1]?.message).toBe(
      "LM Studio is not running on http://127.0.0.1:1234",
    );
  });

  it("prefers the folder's pick, then the settings' default, and says so when models cannot be listed", async () => {
    const withDefault = setup({ models: { ok: true, data: { ...models, defaultModel: "gguf:/m.gguf" } } });
    await withDefault.store.getState().loadPickers();
    expect(withDefault.store.getState().model).toBe("gguf:/m.gguf");
    const remembered = setup({
      models: { ok: true, data: { ...models, defaultModel: "gguf:/m.gguf", projectModel: "ollama:qwen3" } },
    });
    await remembered.store.getState().loadPickers();
    expect(remembered.store.getState().model).toBe("ollama:qwen3");
    const failing = setup({ models: { ok: false, error: { message: "settings.json is broken" } } });
    await failing.store.getState().loadPickers();
    expect(failing.store.getState().catalogError).toBe(
      "The models could not be listed: settings.json is broken",
    );
  });

  it("remembers a picked model for the folder", async () => {
    const { store, calls } = setup();
    await store.getState().pickModel("ollama:llama3.2");
    expect(store.getState().model).toBe("ollama:llama3.2");
    expect(calls).toContainEqual(["setProjectModel", { model: "ollama:llama3.2" }]);
    expect(store.getState().catalog?.projectModel).toBe("ollama:llama3.2");
  });

  it("sends the draft with the session, model and agent, and streams the run's events into the turn", async () => {
    const { store, calls, event, storage } = setup();
    const sessionId = store.getState().sessionId;
    store.getState().setModel("ollama:llama3.2");
    store.getState().setDraft("Fix the test\nplease");
    await store.getState().send();
    expect(calls).toEqual([
      ["send", { prompt: "Fix the test\nplease", sessionId, model: "ollama:llama3.2", agent: "default" }],
    ]);
    expect(storage.data.get(SESSION_KEY)).toBe(sessionId);
    expect(store.getState()).toMatchObject({ draft: "", running: true, runId: "r-1" });
    event(start(sessionId));
    event({ type: "text", step: 0, text: "On " });
    event({ type: "text", step: 0, text: "it" });
    event({ type: "text", step: 0, text: "." }, "s-someone-else");
    expect(store.getState().turns).toHaveLength(1);
    expect(store.getState().turns[0]).toMatchObject({
      prompt: "Fix the test\nplease",
      status: "running",
      items: [{ kind: "text", text: "On it" }],
    });
    event(finish());
    expect(store.getState()).toMatchObject({ running: false, runId: undefined });
    expect(store.getState().turns[0]?.status).toBe("completed");
  });

  it("fetches the session's checkpoints when a turn ends, so the turn can offer Undo", async () => {
    const checkpoint: CheckpointSummary = {
      id: 7,
      sessionId: "s-1",
      kind: "tool",
      tool: "write",
      callId: "c-1",
      toolCallId: "t-1",
      messageSeq: 2,
      runId: "r-1",
      createdAt: 1,
      restoredBy: null,
      undoes: [],
      files: [{ path: "a.txt", type: "file", change: "created" }],
    };
    const { store, event, calls } = setup(
      { checkpoints: { ok: true, data: [checkpoint] } },
      { [SESSION_KEY]: "s-1" },
    );
    store.getState().setDraft("Write a.txt");
    await store.getState().send();
    event(start("s-1"));
    event(finish());
    await vi.waitFor(() => expect(store.getState().checkpoints).toEqual([checkpoint]));
    expect(calls).toContainEqual(["checkpoints.list", { sessionId: "s-1" }]);
  });

  it("refuses to send while a run goes on, and ignores a blank draft", async () => {
    const { store, calls } = setup();
    store.getState().setDraft("   ");
    await store.getState().send();
    expect(calls).toEqual([]);
    store.getState().setDraft("one");
    await store.getState().send();
    store.getState().setDraft("two");
    await store.getState().send();
    expect(calls).toHaveLength(1);
    expect(store.getState().sendError).toMatch(/A run is going on in this chat/);
    expect(store.getState().draft).toBe("two");
  });

  it("forgets that a run was going on once it ends, but keeps other errors", async () => {
    const { store, event } = setup();
    store.getState().setDraft("one");
    await store.getState().send();
    event(start(store.getState().sessionId));
    // A second prompt, a new chat and another session are all refused while this tab's run goes on.
    store.getState().setDraft("two");
    await store.getState().send();
    expect(store.getState().sendError).toMatch(/A run is going on in this chat/);
    store.getState().newChat();
    expect(await store.getState().openSession("s-other")).toBe(false);
    expect(store.getState().sendError).toMatch(/This tab started the run going on here/);
    event(finish());
    expect(store.getState()).toMatchObject({ running: false, sendError: undefined, draft: "two" });

    // An error that is not about the run going on stays after it ends.
    store.getState().setDraft("three");
    await store.getState().send();
    event(start(store.getState().sessionId));
    store.setState({ sendError: "Could not stop the run: gone" });
    event(finish("aborted"));
    expect(store.getState().sendError).toBe("Could not stop the run: gone");
  });

  it("shows why a send was refused once, and gives the prompt back instead of leaving it in the conversation", async () => {
    const { store } = setup({ send: { ok: false, error: { message: "No model chosen: pick one" } } });
    store.getState().setDraft("Hello");
    await store.getState().send();
    expect(store.getState()).toMatchObject({
      running: false,
      sendError: "No model chosen: pick one",
      draft: "Hello",
    });
    // The conversation has no turn for a prompt that never ran (nor its error a second time).
    expect(store.getState().turns).toEqual([]);
  });

  it("after a dropped connection, sends the way on in the same session and keeps what the person was typing", async () => {
    const { store, calls, event } = setup();
    const sessionId = store.getState().sessionId;
    store.getState().setDraft("Tell me a story");
    await store.getState().send();
    event(start(sessionId));
    event({ type: "text", step: 0, text: "Once upon a ti" });
    event({ type: "error", message: "The server closed the connection.", cause: "connection-dropped" });
    event({ type: "finish", status: "failed", finishReason: "error", steps: 0, usage: {} });
    expect(store.getState().turns[0]).toMatchObject({ status: "failed", errorCause: "connection-dropped" });
    store.getState().setDraft("half-typed");
    await store.getState().send(CONTINUE_PROMPT);
    expect(calls.at(-1)).toEqual(["send", { prompt: CONTINUE_PROMPT, sessionId, agent: "default" }]);
    expect(store.getState().turns.map((t) => t.prompt)).toEqual(["Tell me a story", CONTINUE_PROMPT]);
    expect(store.getState().draft).toBe("half-typed");
  });

  it("stops the run it started", async () => {
    const { store, calls, event } = setup();
    store.getState().setDraft("Go");
    await store.getState().send();
    await store.getState().stop();
    expect(calls.at(-1)).toEqual(["abort", { runId: "r-1" }]);
    expect(store.getState().stopping).toBe(true);
    event(finish("aborted"));
    expect(store.getState()).toMatchObject({ running: false, stopping: false });
    expect(store.getState().turns[0]?.status).toBe("aborted");
  });

  it("keeps the todo list of its own session only", () => {
    const { store, push } = setup();
    const sessionId = store.getState().sessionId;
    push("todos.changed", { sessionId: "s-other", todos: [{ content: "x", status: "pending" }] });
    expect(store.getState().todos).toEqual([]);
    push("todos.changed", { sessionId, todos: [{ content: "Plan", status: "in_progress" }] });
    expect(store.getState().todos).toEqual([{ content: "Plan", status: "in_progress" }]);
  });

  it("puts a background task's events after its run finished under that run's card, and stays idle", async () => {
    const { store, event } = setup();
    const sessionId = store.getState().sessionId;
    store.getState().setDraft("Start it in the background");
    await store.getState().send();
    event(start(sessionId));
    event({ type: "tool-call", step: 0, toolCallId: "c-1", toolName: "task", input: { background: true } });
    event({
      type: "tool-result",
      step: 0,
      toolCallId: "c-1",
      toolName: "task",
      envelope: { type: "output", data: { task_id: "t-1", status: "running" }, metadata: { duration_ms: 3 } },
    });
    event({ type: "text", step: 1, text: "Started." });
    event(finish());
    expect(store.getState()).toMatchObject({ running: false, runId: undefined });

    // The task goes on: its events arrive under the finished run's id.
    const child: RunEvent = { type: "text", step: 0, text: "Still working" };
    event({ type: "task", taskId: "t-1", toolCallId: "c-1", event: child });
    expect(store.getState()).toMatchObject({ running: false, runId: undefined });
    expect(store.getState().turns).toHaveLength(1);
    const card = store.getState().turns[0]!.items.find((item) => item.kind === "tool");
    expect(card).toMatchObject({
      toolCallId: "c-1",
      task: { taskId: "t-1", items: [{ text: "Still working" }] },
    });
    // A new prompt can be sent meanwhile.
    store.getState().setDraft("Next");
    await store.getState().send();
    expect(store.getState().sendError).toBeUndefined();
  });

  it("lists the open session's background tasks, and stops one", async () => {
    const { store, calls, push } = setup();
    const sessionId = store.getState().sessionId;
    const task = {
      taskId: "t-1",
      parentSessionId: sessionId,
      description: "sleepy work",
      agent: "default",
      startedAt: 1000,
      status: "running" as const,
    };
    push("tasks.changed", { sessionId: "s-other", tasks: [{ ...task, taskId: "t-other" }] });
    expect(store.getState().tasks).toEqual([]);
    push("tasks.changed", { sessionId, tasks: [task] });
    expect(store.getState().tasks).toEqual([task]);

    await store.getState().stopTask("t-1");
    expect(calls).toContainEqual(["stopTask", { taskId: "t-1" }]);
    expect(store.getState().stoppingTasks).toEqual(["t-1"]);
    push("tasks.changed", { sessionId, tasks: [{ ...task, status: "aborted", endedAt: 2000 }] });
    expect(store.getState().stoppingTasks).toEqual([]);
    store.getState().newChat();
    expect(store.getState().tasks).toEqual([]);
  });

  it("opens a background task's own session while it works as going on, and redraws it when it ends", async () => {
    const working = {
      taskId: "t-1",
      parentSessionId: "s-parent",
      description: "sleepy work",
      agent: "default",
      startedAt: 1000,
      status: "running" as const,
    };
    const recorded = (status: "running" | "aborted"): ChatHistory => ({
      sessionId: "t-1",
      agent: "default",
      model: "ollama:llama3.2",
      turns: [
        {
          runId: "r-t",
          prompt: "Sleep",
          events: [
            start("t-1", "r-t"),
            {
              type: "tool-call",
              step: 0,
              toolCallId: "c-b",
              toolName: "bash",
              input: { command: "sleep 9" },
            },
            ...(status === "aborted" ? [finish("aborted")] : []),
          ],
        },
      ],
      todos: [],
      tasks: [status === "running" ? working : { ...working, status, endedAt: 2000 }],
      approvals: [],
      questions: [],
    });
    const { store, calls, push, api } = setup({ history: { ok: true, data: recorded("running") } });
    expect(await store.getState().openSession("t-1")).toBe(true);
    // Not "interrupted": it works on (the Stop is in its task list; no run of this chat goes on).
    expect(store.getState().turns.map((t) => t.status)).toEqual(["running"]);
    expect(store.getState()).toMatchObject({ running: false, tasks: [working] });

    api.chat.history = () => Promise.resolve({ ok: true, data: recorded("aborted") });
    push("tasks.changed", { sessionId: "t-1", tasks: [{ ...working, status: "aborted", endedAt: 2000 }] });
    await expect.poll(() => store.getState().turns.map((t) => t.status)).toEqual(["aborted"]);
    expect(calls.filter(([name]) => name === "history")).toHaveLength(1);
  });

  it("says why a task could not be stopped", async () => {
    const { store } = setup({
      stopTask: { ok: false, error: { message: 'There is no background task "t-1" running' } },
    });
    await store.getState().stopTask("t-1");
    expect(store.getState()).toMatchObject({
      stoppingTasks: [],
      sendError: 'Could not stop the task: There is no background task "t-1" running',
    });
  });

  it("queues questions; a refused answer keeps the dialog and says why, a good one closes it", async () => {
    const { store, push, calls } = setup({
      respond: {
        ok: false,
        error: { message: 'Question 1 ("Colour?") allows one choice, but 0 were given.' },
      },
    });
    const ask = (id: string) =>
      push("question.requested", {
        id,
        sessionId: "s",
        questions: [{ question: "Colour?", options: [{ label: "Red" }, { label: "Blue" }] }],
      });
    ask("q1");
    ask("q2");
    ask("q1");
    expect(store.getState().questions.map((q) => q.id)).toEqual(["q1", "q2"]);
    await store.getState().answerQuestion([[]]);
    expect(calls.at(-1)).toEqual(["respond", { id: "q1", answers: [[]] }]);
    expect(store.getState().questions).toHaveLength(2);
    expect(store.getState().questionError).toMatch(/allows one choice/);
    push("question.settled", { id: "q1", cause: "aborted" });
    expect(store.getState().questions.map((q) => q.id)).toEqual(["q2"]);
    expect(store.getState().questionError).toBeUndefined();
    await store.getState().dismissQuestion();
    expect(calls.at(-1)).toEqual(["respond", { id: "q2", dismissed: true }]);
    expect(store.getState().questions).toEqual([]);
  });

  it("shows the questions of the chat on screen only; another chat's wait for it", async () => {
    const { store, push, calls } = setup();
    const open = store.getState().sessionId;
    const ask = (id: string, runSessionId: string, sessionId = runSessionId) =>
      push("question.requested", { id, sessionId, runSessionId, questions: [{ question: `${id}?` }] });
    ask("q-other", "s-other");
    ask("q-here", open);
    ask("q-task", "s-other", open);
    expect(shownQuestions(store.getState()).map((q) => q.id)).toEqual(["q-here", "q-task"]);
    await store.getState().answerQuestion([["yes"]]);
    expect(calls.at(-1)).toEqual(["respond", { id: "q-here", answers: [["yes"]] }]);
    expect(store.getState().questions.map((q) => q.id)).toEqual(["q-other", "q-task"]);
  });

  it("says nothing when another tab answered the question first (its end arrived before the refusal)", async () => {
    let settle = (): void => undefined;
    const { store, push } = setup({
      respond: { ok: false, error: { message: 'The question "q1" is over: it was already answered.' } },
      onRespond: () => settle(),
    });
    settle = () => push("question.settled", { id: "q1", cause: "answered" });
    push("question.requested", {
      id: "q1",
      sessionId: store.getState().sessionId,
      runSessionId: store.getState().sessionId,
      questions: [{ question: "Name?" }],
    });
    push("question.requested", {
      id: "q2",
      sessionId: store.getState().sessionId,
      runSessionId: store.getState().sessionId,
      questions: [{ question: "Colour?" }],
    });
    await store.getState().answerQuestion([["Lathe"]]);
    // The next dialog shows without a refusal that was never about it.
    expect(store.getState()).toMatchObject({ questionError: undefined, answering: false });
    expect(store.getState().questions.map((q) => q.id)).toEqual(["q2"]);
  });

  it("shows what a session's runs wait for when it is opened here after they asked", async () => {
    const approval = {
      id: "approval-1",
      sessionId: "s-busy",
      runSessionId: "s-busy",
      toolId: "write",
      origin: { layer: "builtin" as const, kind: "builtin" as const },
      args: { path: "a.txt", content: "a" },
      approvalKey: "write:a.txt",
      reasons: ["needs approval"],
    };
    const question = {
      id: "question-1",
      sessionId: "s-busy",
      runSessionId: "s-busy",
      questions: [{ question: "Name?" }],
    };
    const waiting: unknown[] = [];
    const { store, push } = setup(
      {
        history: {
          ok: true,
          data: {
            sessionId: "s-busy",
            agent: "default",
            model: "ollama:llama3.2",
            turns: [{ runId: "r-5", prompt: "Go", events: [start("s-busy", "r-5")] }],
            todos: [],
            tasks: [],
            runningRunId: "r-5",
            runningNextIndex: 1,
            approvals: [approval],
            questions: [question],
          },
        },
      },
      {},
      { onApprovalsWaiting: (approvals) => waiting.push(...approvals) },
    );
    // Pushed while the history travels: the same dialog is not queued twice.
    push("question.requested", question);
    await store.getState().openSession("s-busy");
    expect(waiting).toEqual([approval]);
    expect(shownQuestions(store.getState())).toEqual([question]);
    expect(store.getState().running).toBe(true);
  });

  it("starts a new chat in a fresh session, but not while a run goes on", async () => {
    const { store, storage } = setup({}, { [SESSION_KEY]: "s-old" });
    expect(store.getState().sessionId).toBe("s-old");
    store.getState().setDraft("Go");
    await store.getState().send();
    store.getState().newChat();
    expect(store.getState().sessionId).toBe("s-old");
    store.setState({ running: false });
    store.getState().newChat();
    expect(store.getState()).toMatchObject({ sessionId: "s-new-1", turns: [], todos: [] });
    expect(storage.data.has(SESSION_KEY)).toBe(false);
  });

  it("redraws a recorded session, its running run included", async () => {
    const history: ChatHistory = {
      sessionId: "s-old",
      agent: "reviewer",
      model: "ollama:llama3.2",
      turns: [
        { runId: "r-0", prompt: "First", events: [{ type: "text", step: 0, text: "Hi" }, finish()] },
        { runId: "r-1", prompt: "Second", events: [{ type: "text", step: 0, text: "Working" }] },
      ],
      todos: [{ content: "Plan", status: "pending" }],
      tasks: [
        {
          taskId: "t-1",
          parentSessionId: "s-old",
          description: "index the repo",
          agent: "default",
          startedAt: 1000,
          status: "running",
        },
      ],
      runningRunId: "r-1",
      approvals: [],
      questions: [],
    };
    const { store, event } = setup({ history: { ok: true, data: history } }, { [SESSION_KEY]: "s-old" });
    await store.getState().restore("s-old");
    expect(store.getState()).toMatchObject({
      running: true,
      runId: "r-1",
      agent: "reviewer",
      model: "ollama:llama3.2",
      todos: [{ content: "Plan", status: "pending" }],
      tasks: [expect.objectContaining({ taskId: "t-1", status: "running" })],
    });
    expect(store.getState().turns.map((t) => [t.prompt, t.status])).toEqual([
      ["First", "completed"],
      ["Second", "running"],
    ]);
    event({ type: "text", step: 0, text: " on" });
    expect(store.getState().turns[1]?.items).toEqual([{ kind: "text", step: 0, text: "Working on" }]);
  });

  it("follows a run another tab started in the open chat: its prompt, its text, and a Stop for it", async () => {
    const { store, calls, push } = setup();
    const sessionId = store.getState().sessionId;
    push("run.event", {
      sessionId,
      runId: "r-9",
      index: 0,
      prompt: "From the other tab",
      event: start(sessionId, "r-9"),
    });
    push("run.event", { sessionId, runId: "r-9", index: 1, event: { type: "text", step: 0, text: "On it" } });
    expect(store.getState()).toMatchObject({ running: true, runId: "r-9" });
    expect(store.getState().turns.map((t) => [t.prompt, t.status])).toEqual([
      ["From the other tab", "running"],
    ]);
    await store.getState().stop();
    expect(calls).toContainEqual(["abort", { runId: "r-9" }]);
  });

  it.each([
    { leave: "a new chat", how: (store: ReturnType<typeof setup>["store"]) => store.getState().newChat() },
    {
      leave: "another session",
      how: async (store: ReturnType<typeof setup>["store"]) =>
        expect(await store.getState().openSession("s-other")).toBe(true),
    },
  ])("lets a tab only watching another tab's run leave it for $leave", async ({ how }) => {
    const { store, push } = setup();
    const sessionId = store.getState().sessionId;
    push("run.event", {
      sessionId,
      runId: "r-9",
      index: 0,
      prompt: "Theirs",
      event: start(sessionId, "r-9"),
    });
    expect(store.getState()).toMatchObject({ running: true, ownsRun: false });
    await how(store);
    expect(store.getState().sessionId).not.toBe(sessionId);
    expect(store.getState()).toMatchObject({
      running: false,
      stopping: false,
      runId: undefined,
      sendError: undefined,
    });
    // The run's later events are for the chat left behind: none of them lands here.
    push("run.event", { sessionId, runId: "r-9", index: 1, event: { type: "text", step: 0, text: "More" } });
    expect(store.getState().turns).toEqual([]);
    // A prompt typed now starts a run of this tab's own.
    store.getState().setDraft("Mine");
    await store.getState().send();
    expect(store.getState()).toMatchObject({ running: true, ownsRun: true });
  });

  it.each([
    { runOwned: true as const, leaves: false },
    { runOwned: undefined, leaves: true },
  ])(
    "after a reload, stays with a run the host says is this tab's ($runOwned)",
    async ({ runOwned, leaves }) => {
      const history: ChatHistory = {
        sessionId: "s-old",
        agent: "default",
        model: "ollama:llama3.2",
        turns: [{ runId: "r-1", prompt: "Go", events: [start("s-old")] }],
        todos: [],
        tasks: [],
        runningRunId: "r-1",
        runningNextIndex: 1,
        ...(runOwned ? { runOwned } : {}),
        approvals: [],
        questions: [],
      };
      const { store } = setup({ history: { ok: true, data: history } }, { [SESSION_KEY]: "s-old" });
      await store.getState().restore("s-old");
      expect(store.getState()).toMatchObject({ running: true, ownsRun: runOwned === true });
      store.getState().newChat();
      expect(store.getState().sessionId !== "s-old").toBe(leaves);
    },
  );

  it("opens a chat whose run goes on: pushes that cross the history are applied once, none lost", async () => {
    const { store, api, push: deliver } = setup();
    const push = (index: number, event: RunEvent) =>
      deliver("run.event", { sessionId: "s-busy", runId: "r-5", index, event });
    let answer: (result: ApiResult<ChatHistory>) => void = () => undefined;
    api.chat.history = () => new Promise((resolve) => (answer = resolve));
    const opening = store.getState().openSession("s-busy");
    // Sent before the history was read (so in it), then one sent after it.
    push(1, { type: "text", step: 0, text: "Reading" });
    push(2, { type: "text", step: 0, text: " the" });
    push(3, { type: "text", step: 0, text: " files" });
    answer({
      ok: true,
      data: {
        sessionId: "s-busy",
        agent: "default",
        model: "ollama:llama3.2",
        turns: [
          {
            runId: "r-5",
            prompt: "Look around",
            events: [start("s-busy", "r-5"), { type: "text", step: 0, text: "Reading the" }],
          },
        ],
        todos: [],
        tasks: [],
        approvals: [],
        questions: [],
        runningRunId: "r-5",
        runningNextIndex: 3,
      },
    });
    await opening;
    push(4, { type: "text", step: 0, text: "." });
    expect(store.getState()).toMatchObject({ running: true, runId: "r-5" });
    expect(store.getState().turns.map((t) => [t.prompt, t.status])).toEqual([["Look around", "running"]]);
    expect(store.getState().turns[0]?.items).toEqual([{ kind: "text", step: 0, text: "Reading the files." }]);
  });

  it("leaves the open chat when another tab deletes it, keeping the draft, so a send cannot revive it", async () => {
    const { store, push, storage, calls } = setup({}, { [SESSION_KEY]: "s-old" });
    store.setState({ turns: [{ ...newTurn("Remember 42"), status: "completed" }] });
    push("sessions.changed", { deleted: ["s-other"] });
    expect(store.getState().sessionId).toBe("s-old");
    store.getState().setDraft("What number?");
    push("sessions.changed", { deleted: ["s-old", "s-old-task"] });
    expect(store.getState()).toMatchObject({
      sessionId: "s-new-1",
      turns: [],
      draft: "What number?",
      sendError: expect.stringMatching(/was deleted; what you send now starts a new chat/),
    });
    expect(storage.data.has(SESSION_KEY)).toBe(false);
    await store.getState().send();
    expect(calls).toContainEqual(["send", expect.objectContaining({ sessionId: "s-new-1" })]);
  });

  it("opens a recorded session from the list, but not while a run goes on here", async () => {
    const recorded: ChatHistory = {
      sessionId: "s-old",
      agent: "default",
      model: "ollama:llama3.2",
      turns: [
        {
          runId: "r-0",
          prompt: "Old prompt",
          events: [start("s-old"), { type: "text", step: 0, text: "Old answer" }, finish()],
        },
      ],
      todos: [],
      tasks: [],
      approvals: [],
      questions: [],
    };
    const { store, calls, storage } = setup({ history: { ok: true, data: recorded } });
    expect(await store.getState().openSession("s-old")).toBe(true);
    expect(storage.data.get(SESSION_KEY)).toBe("s-old");
    expect(store.getState()).toMatchObject({
      sessionId: "s-old",
      turns: [{ prompt: "Old prompt", status: "completed" }],
    });
    expect(calls).toContainEqual(["history", { sessionId: "s-old" }]);

    store.getState().setDraft("go");
    await store.getState().send();
    expect(await store.getState().openSession("s-other")).toBe(false);
    expect(store.getState()).toMatchObject({
      sessionId: "s-old",
      sendError: expect.stringMatching(/This tab started the run going on here/),
    });
  });

  it("stops one running call of the run and remembers it is stopping until the run ends", async () => {
    const { store, calls, event } = setup();
    store.getState().setDraft("go");
    await store.getState().send();
    event(start(store.getState().sessionId));
    event({ type: "tool-call", step: 0, toolCallId: "c1", toolName: "bash", input: { command: "sleep 9" } });
    const card = store.getState().turns[0]?.items[0];
    expect(card).toMatchObject({ kind: "tool", status: "running", startedAt: expect.any(Number) });
    await store.getState().stopTool("c1");
    await store.getState().stopTool("c1");
    expect(calls.filter(([name]) => name === "stopTool")).toEqual([
      ["stopTool", { runId: "r-1", toolCallId: "c1" }],
    ]);
    expect(store.getState().stoppingTools).toEqual(["c1"]);
    event(finish());
    expect(store.getState().stoppingTools).toEqual([]);
  });

  it("says why a call could not be stopped", async () => {
    const { store, event } = setup({
      stopTool: { ok: false, error: { message: "The call c1 is not running" } },
    });
    store.getState().setDraft("go");
    await store.getState().send();
    event(start(store.getState().sessionId));
    await store.getState().stopTool("c1");
    expect(store.getState()).toMatchObject({
      stoppingTools: [],
      sendError: "Could not stop the call: The call c1 is not running",
    });
  });

  it("starts afresh when the host moves to another folder, and tells the session list about runs", async () => {
    const fake = fakeApi();
    let changes = 0;
    const store = createChatStore(fake.api, {
      newSessionId: () => "s-fresh",
      onSessionsChanged: () => changes++,
    });
    store.getState().connect();
    store.getState().setDraft("go");
    await store.getState().send();
    expect(changes).toBe(1);
    fake.push("run.event", {
      sessionId: store.getState().sessionId,
      runId: "r-1",
      index: 0,
      event: finish(),
    });
    expect(changes).toBe(2);
    store.getState().reset();
    expect(store.getState()).toMatchObject({ sessionId: "s-fresh", turns: [], running: false, model: "" });
  });

  it("makes session ids the engine accepts", () => {
    for (let i = 0; i < 20; i++) expect(randomSessionId()).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
  });
});
