// Background tasks in the app: a subagent started with `background: true` may go on after the run
// that started it. The person must still see it and be able to stop it (its processes too) from
// any window, and the host must not move away from it or close its engine under it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type ChatRequest,
  type FixtureServer,
} from "../../../test/fixtures/openai-compatible-server.ts";
import type { ApiResult, Channel } from "../../shared/api-contract.ts";
import type { ChatHistory } from "../../shared/chat-schemas.ts";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import type { BackgroundTask } from "../../shared/task-schemas.ts";
import { Engine } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

const MODEL = "openai-compatible:fixture-model";
/** The child's brief: its requests are told apart from the parent's by it. */
const BRIEF = "BACKGROUND-BRIEF: run the slow command.";

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
let server: FixtureServer | undefined;
/** Engines the host created (after a reload), and which of them it closed. */
let created: Engine[];
let closed: Set<Engine>;
const opened: UiConnection[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-bg-tasks-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(root, { recursive: true });
  await mkdir(latheHome, { recursive: true });
  engine = await Engine.create({ root, latheHome, extensions: false });
  created = [];
  closed = new Set();
  host = new EngineHost({
    engine,
    watchIntervalMs: 0,
    runGraceMs: 300,
    createEngine: async (folder) => {
      const next = await Engine.create({ root: folder, latheHome, extensions: false });
      const close = next.close.bind(next);
      next.close = () => {
        closed.add(next);
        return close();
      };
      created.push(next);
      return next;
    },
  });
});

afterEach(async () => {
  for (const connection of opened.splice(0)) await connection.close();
  await host.close();
  await engine.close();
  await server?.close();
  server = undefined;
  await rm(base, { recursive: true, force: true });
});

/** Whether a process whose command line holds `marker` runs (inside the sandbox's PID namespace too). */
function alive(marker: string): boolean {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}

/**
 * A model whose run starts one background task and then answers; the task runs a command that
 * marks its start, sleeps (its command line holds `marker`), then writes late.txt.
 */
async function slowTaskModel(marker: string): Promise<void> {
  const answered = (r: ChatRequest): boolean => r.messages.some((m) => m.role === "tool");
  server = await startOpenAICompatibleServer({
    models: ["fixture-model"],
    replies: (request) => {
      // A later turn collects the task by the id the first one was given.
      const asked = request.messages.findLast((m) => m.role === "user");
      if (JSON.stringify(asked?.content).includes("Collect it")) {
        const since = request.messages.slice(request.messages.indexOf(asked!));
        if (since.some((m) => m.role === "tool")) return { text: "Collected." };
        const taskId = /t-[a-z0-9]+-[0-9a-f]{8}/.exec(JSON.stringify(request.messages))?.[0];
        return { toolCalls: [{ name: "task", arguments: { task_id: taskId } }] };
      }
      if (JSON.stringify(request.messages).includes("BACKGROUND-BRIEF")) {
        return answered(request)
          ? { text: "Slept." }
          : {
              toolCalls: [
                {
                  name: "bash",
                  arguments: { command: `touch started.txt; sleep ${marker}; touch late.txt` },
                },
              ],
            };
      }
      return answered(request)
        ? { text: "It runs in the background." }
        : {
            toolCalls: [
              { name: "task", arguments: { description: "sleepy work", prompt: BRIEF, background: true } },
            ],
          };
    },
  });
  await writeFile(
    path.join(latheHome, "settings.json"),
    JSON.stringify({ providers: { "openai-compatible": { baseURL: server.baseURL } } }),
  );
}

/** A UI connection; `tabId`: the tab id its page presents (the same across a reload of the tab). */
function connect(tabId?: string) {
  const frames: PushFrame[] = [];
  const connection = new UiConnection({
    host,
    mode: "yolo",
    ...(tabId !== undefined ? { tabId } : {}),
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
  opened.push(connection);
  const dispatch = (channel: Channel, request: unknown): Promise<ApiResult<unknown>> =>
    connection.router.dispatch(channel, request);
  /** The session's task list as the last `tasks.changed` push gave it. */
  const tasks = (sessionId: string): BackgroundTask[] =>
    frames
      .flatMap((f) =>
        f.event === "tasks.changed" && f.payload.sessionId === sessionId ? [f.payload.tasks] : [],
      )
      .at(-1) ?? [];
  const runFinished = (runId: string): boolean =>
    frames.some(
      (f) => f.event === "run.event" && f.payload.runId === runId && f.payload.event.type === "finish",
    );
  return { connection, frames, dispatch, tasks, runFinished };
}

function data<T>(answer: ApiResult<unknown>): T {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data as T;
}

function failure(answer: ApiResult<unknown>): string {
  if (answer.ok) throw new Error(`expected a refusal, got ${JSON.stringify(answer.data)}`);
  return answer.error.message;
}

let markers = 0;
/** A sleep of about 300 s whose argument no other process has. */
function newMarker(): string {
  return `300.${process.pid}${++markers}`;
}

/** Start the run, and wait until it has finished while its background task sleeps. */
async function startBackgroundTask(ui: ReturnType<typeof connect>, marker: string) {
  const started = data<{ sessionId: string; runId: string }>(
    await ui.dispatch("chat.send", { prompt: "Start the slow work in the background", model: MODEL }),
  );
  await expect.poll(() => ui.runFinished(started.runId), { timeout: 15_000 }).toBe(true);
  await expect.poll(() => existsSync(path.join(root, "started.txt")), { timeout: 15_000 }).toBe(true);
  await expect.poll(() => alive(marker), { timeout: 15_000 }).toBe(true);
  return started;
}

describe("background tasks of a chat", () => {
  it("stay listed and stoppable in every window after their run finished; Stop ends their processes", async () => {
    const marker = newMarker();
    await slowTaskModel(marker);
    const ui = connect();
    const other = connect();
    const { sessionId, runId } = await startBackgroundTask(ui, marker);

    // The run is over (its Stop is gone), but the task goes on, and both windows list it.
    expect(failure(await ui.dispatch("chat.abort", { runId }))).toMatch(/no run/);
    for (const window of [ui, other]) {
      expect(window.tasks(sessionId)).toEqual([
        {
          taskId: expect.stringMatching(/^t-/),
          parentSessionId: sessionId,
          description: "sleepy work",
          agent: "default",
          startedAt: expect.any(Number),
          status: "running",
        },
      ]);
    }
    const [task] = ui.tasks(sessionId);
    // A window that opens the session later sees it too.
    const history = data<ChatHistory>(await other.dispatch("chat.history", { sessionId }));
    expect(history.tasks).toEqual(ui.tasks(sessionId));
    // So does a window that opens the task's own session: it lists itself, running.
    const own = data<ChatHistory>(await other.dispatch("chat.history", { sessionId: task!.taskId }));
    expect(own.tasks).toEqual(ui.tasks(sessionId));

    // The other window stops it: the command's process goes, and the command never finishes.
    expect(data(await other.dispatch("chat.stopTask", { taskId: task!.taskId }))).toEqual({
      taskId: task!.taskId,
      stopped: true,
    });
    await expect.poll(() => ui.tasks(sessionId)[0]?.status, { timeout: 10_000 }).toBe("aborted");
    expect(ui.tasks(sessionId)[0]!.endedAt).toBeGreaterThanOrEqual(task!.startedAt);
    expect(other.tasks(sessionId)).toEqual(ui.tasks(sessionId));
    expect(other.tasks(task!.taskId)).toEqual(ui.tasks(sessionId));
    await expect.poll(() => alive(marker), { timeout: 10_000 }).toBe(false);
    expect(existsSync(path.join(root, "late.txt"))).toBe(false);

    expect(failure(await ui.dispatch("chat.stopTask", { taskId: task!.taskId }))).toMatch(
      /no background task "t-.*" running: it already ended/,
    );
    expect(data<ChatHistory>(await other.dispatch("chat.history", { sessionId })).tasks).toEqual([
      expect.objectContaining({ taskId: task!.taskId, status: "aborted" }),
    ]);
  });

  it.each([
    { request: {}, message: /taskId/ },
    { request: { taskId: "" }, message: /taskId/ },
    { request: { taskId: "t-x".repeat(30) }, message: /taskId/ },
    { request: { taskId: "t-made-up" }, message: /no background task "t-made-up" running/ },
    { request: { taskId: "t-1", runId: "r-1" }, message: /runId/ },
  ])("refuses chat.stopTask with $request", async ({ request, message }) => {
    const ui = connect();
    expect(failure(await ui.dispatch("chat.stopTask", request))).toMatch(message);
  });

  it("stops them, processes and all, a moment after the window whose run started them closes", async () => {
    const marker = newMarker();
    await slowTaskModel(marker);
    const ui = connect();
    await startBackgroundTask(ui, marker);

    await ui.connection.close();
    // Not at once: a reload of that window comes back within the grace and has them again.
    expect(host.liveTasks.running()).toHaveLength(1);
    expect(alive(marker)).toBe(true);
    // Nobody came back: the task ends, its command killed (the kernel reaps a killed sandbox a
    // moment later, on a busy machine, so that is polled).
    await expect.poll(() => host.liveTasks.running(), { timeout: 10_000 }).toEqual([]);
    await expect.poll(() => alive(marker), { timeout: 5_000 }).toBe(false);
    expect(existsSync(path.join(root, "late.txt"))).toBe(false);
  });

  it("go on when the window whose run started them reloads: the same tab back on the chat has them", async () => {
    const marker = newMarker();
    await slowTaskModel(marker);
    const ui = connect("tab-of-the-page-that-sent");
    const { sessionId } = await startBackgroundTask(ui, marker);

    await ui.connection.close();
    const reloaded = connect("tab-of-the-page-that-sent");
    expect(data<ChatHistory>(await reloaded.dispatch("chat.history", { sessionId })).runOwned).toBe(true);
    // Well past the grace, the task still works: it is the reloaded page's now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(host.liveTasks.running()).toHaveLength(1);
    expect(alive(marker)).toBe(true);
    // …and that page closing for good stops it after the grace, as for the first.
    await reloaded.connection.close();
    await expect.poll(() => host.liveTasks.running(), { timeout: 10_000 }).toEqual([]);
    await expect.poll(() => alive(marker), { timeout: 5_000 }).toBe(false);
  });

  it("refuses to open another folder while one works, and opens it once it is stopped", async () => {
    const marker = newMarker();
    await slowTaskModel(marker);
    const other = path.join(base, "other");
    await mkdir(other);
    const ui = connect();
    const { sessionId } = await startBackgroundTask(ui, marker);

    expect(failure(await ui.dispatch("project.open", { path: other }))).toBe(
      `A background task is still working in ${root} ("sleepy work"): stop it in the chat's task list, or wait for it to finish, then open ${other}.`,
    );
    expect(host.current.root).toBe(root);
    data(await ui.dispatch("chat.stopTask", { taskId: ui.tasks(sessionId)[0]!.taskId }));
    await expect.poll(() => host.liveTasks.running(), { timeout: 10_000 }).toEqual([]);
    expect(data<{ root: string }>(await ui.dispatch("project.open", { path: other })).root).toBe(other);
  });

  it("keeps the engine it runs on open after a reload until it ends, and still lists and stops it", async () => {
    const marker = newMarker();
    await slowTaskModel(marker);
    const ui = connect();
    await host.reload();
    const first = created[0]!;
    const { sessionId } = await startBackgroundTask(ui, marker);

    // The settings changed: the host moves to a new engine; the task's engine stays open under it.
    await host.reload();
    expect(host.current).toBe(created[1]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(closed.has(first)).toBe(false);
    expect(alive(marker)).toBe(true);
    const [task] = data<ChatHistory>(await ui.dispatch("chat.history", { sessionId })).tasks;
    expect(task).toMatchObject({ description: "sleepy work", status: "running" });

    // The next prompt's run, on the new engine, waits for it like any run would, and reads how
    // it really ended (not that the process running it went away).
    const collecting = data<{ runId: string }>(
      await ui.dispatch("chat.send", { prompt: "Collect it", model: MODEL, sessionId }),
    );
    await expect
      .poll(
        () =>
          ui.frames.some(
            (f) =>
              f.event === "run.event" &&
              f.payload.runId === collecting.runId &&
              f.payload.event.type === "tool-call" &&
              f.payload.event.toolName === "task",
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    data(await ui.dispatch("chat.stopTask", { taskId: task!.taskId }));
    await expect.poll(() => ui.runFinished(collecting.runId), { timeout: 15_000 }).toBe(true);
    const collected = ui.frames.flatMap((f) =>
      f.event === "run.event" &&
      f.payload.runId === collecting.runId &&
      f.payload.event.type === "tool-result" &&
      f.payload.event.toolName === "task"
        ? [f.payload.event.envelope]
        : [],
    );
    expect(collected).toEqual([
      expect.objectContaining({
        type: "output",
        data: expect.objectContaining({ task_id: task!.taskId, status: "aborted" }),
      }),
    ]);
    await expect.poll(() => closed.has(first), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => alive(marker), { timeout: 5_000 }).toBe(false);
  });
});
