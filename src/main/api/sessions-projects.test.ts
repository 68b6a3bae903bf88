// The session list, the project switcher and stopping one tool call, through the router as the
// renderer uses them: a UI connection over a real engine, the real OpenAI-compatible provider
// client streaming from the loopback fixture server.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type ChatRequest,
  type FixtureReply,
  type FixtureServer,
} from "../../../test/fixtures/openai-compatible-server.ts";
import type { ApiResult, Channel, ProjectStatus } from "../../shared/api-contract.ts";
import type { RecentProjects } from "../../shared/project-schemas.ts";
import type { TrustReview } from "../../shared/trust-review-schema.ts";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import type { RunEvent } from "../../shared/run-event-schema.ts";
import type { SessionList, SessionSummary } from "../../shared/session-schemas.ts";
import { Engine, TrustStore } from "../engine/index.ts";
import { sleepers, sleepMarker } from "../../../test/support/sleep-markers.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

const MODEL = "openai-compatible:fixture-model";

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
let server: FixtureServer;
const opened: UiConnection[] = [];

/** The long command's duration, new for each test: no other process sleeps as long, so a test finds its own in /proc. */
let SLEEP = sleepMarker();

/** The model's script: tasks delegate, "sleep" runs a long command, anything else answers in text. */
function reply(request: ChatRequest): FixtureReply {
  const lastUser = request.messages.findLastIndex((m) => m.role === "user");
  const prompt = String(request.messages[lastUser]?.content ?? "");
  const step = request.messages.slice(lastUser).filter((m) => m.role === "tool").length;
  if (prompt === "Delegate the tests") {
    if (step === 0)
      return {
        toolCalls: [{ name: "task", arguments: { description: "Run the tests", prompt: "child: run them" } }],
      };
    return { text: "Delegated." };
  }
  if (prompt === "Sleep, then list") {
    if (step === 0) return { toolCalls: [{ name: "bash", arguments: { command: `sleep ${SLEEP}` } }] };
    if (step === 1) return { toolCalls: [{ name: "glob", arguments: { pattern: "*.md" } }] };
    return { text: "Listed after the stop." };
  }
  return { text: `Answer to: ${prompt}` };
}

beforeEach(async () => {
  SLEEP = sleepMarker();
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-sessions-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(root, { recursive: true });
  await mkdir(latheHome, { recursive: true });
  await writeFile(path.join(root, "README.md"), "# project\n");
  server = await startOpenAICompatibleServer({ models: ["fixture-model"], replies: reply });
  await writeFile(
    path.join(latheHome, "settings.json"),
    JSON.stringify({ providers: { "openai-compatible": { baseURL: server.baseURL } }, defaultModel: MODEL }),
  );
  engine = await Engine.create({ root, latheHome, extensions: false });
  host = new EngineHost({
    engine,
    watchIntervalMs: 0,
    createEngine: (folder) => Engine.create({ root: folder, latheHome, extensions: false }),
  });
});

afterEach(async () => {
  for (const connection of opened.splice(0)) await connection.close();
  await host.close();
  await engine.close();
  await server.close();
  await rm(base, { recursive: true, force: true });
});

function connect(mode: "ask" | "yolo" = "ask") {
  const frames: PushFrame[] = [];
  const connection = new UiConnection({
    host,
    mode,
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
  opened.push(connection);
  const dispatch = (channel: Channel, request?: unknown): Promise<ApiResult<unknown>> =>
    connection.router.dispatch(channel, request);
  const events = (sessionId?: string): RunEvent[] =>
    frames.flatMap((f) =>
      f.event === "run.event" && (sessionId === undefined || f.payload.sessionId === sessionId)
        ? [f.payload.event]
        : [],
    );
  const finished = async (sessionId: string): Promise<RunEvent> => {
    await expect
      .poll(() => events(sessionId).some((e) => e.type === "finish"), { timeout: 10_000 })
      .toBe(true);
    return events(sessionId).find((e) => e.type === "finish") as RunEvent;
  };
  const run = async (prompt: string, sessionId: string): Promise<void> => {
    data(await dispatch("chat.send", { prompt, sessionId }));
    await finished(sessionId);
    // The host lets go of the session once the run has ended.
    await expect.poll(() => host.chatSessions.has(sessionId)).toBe(false);
  };
  return { connection, frames, dispatch, events, finished, run };
}

function data<T>(answer: ApiResult<unknown>): T {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data as T;
}

function failure(answer: ApiResult<unknown>): string {
  if (answer.ok) throw new Error(`expected a refusal, got ${JSON.stringify(answer.data)}`);
  return answer.error.message;
}

const list = async (ui: ReturnType<typeof connect>, query?: string): Promise<SessionSummary[]> =>
  data<SessionList>(await ui.dispatch("sessions.list", query === undefined ? {} : { query })).sessions;

describe("sessions channels", () => {
  it("lists the folder's sessions newest first, titled by their first prompt, tasks under their parent", async () => {
    const ui = connect("yolo");
    expect(await list(ui)).toEqual([]);
    await ui.run("Fix the flaky test in src/app.ts", "s-one");
    await ui.run("Delegate the tests", "s-two");
    await ui.run("A follow-up in the first one", "s-one");

    const sessions = await list(ui);
    const task = sessions.find((s) => s.parentId === "s-two");
    // The latest turn was in s-one; s-two was written after its task (its answer came last).
    expect(sessions.map((s) => s.id)).toEqual(["s-one", "s-two", expect.stringMatching(/^t-/)]);
    expect(sessions[0]).toMatchObject({
      title: "Fix the flaky test in src/app.ts",
      titleSource: "prompt",
      model: MODEL,
      agent: "default",
      running: false,
      waiting: false,
    });
    expect(task).toMatchObject({ title: "Run the tests", titleSource: "task", parentId: "s-two" });
    expect(sessions[0]!.updatedAt).toBeGreaterThanOrEqual(sessions[1]!.updatedAt);
    expect(data<SessionList>(await ui.dispatch("sessions.list")).root).toBe(root);
  });

  it("searches titles and text, any case", async () => {
    const ui = connect();
    await ui.run("Fix the flaky test", "s-one");
    await ui.run("Write the changelog", "s-two");
    expect((await list(ui, "CHANGELOG")).map((s) => s.id)).toEqual(["s-two"]);
    // The model's answer is text of the session too.
    expect((await list(ui, "answer to: fix")).map((s) => s.id)).toEqual(["s-one"]);
    expect(await list(ui, "nothing like this")).toEqual([]);
  });

  it("renames a session, and an empty name restores the title from its prompt", async () => {
    const ui = connect();
    await ui.run("Fix the flaky test", "s-one");
    expect(
      data<SessionSummary>(await ui.dispatch("sessions.rename", { sessionId: "s-one", title: "Flaky" })),
    ).toMatchObject({ id: "s-one", title: "Flaky", titleSource: "custom" });
    expect((await list(ui))[0]?.title).toBe("Flaky");
    await ui.dispatch("sessions.rename", { sessionId: "s-one", title: "" });
    expect((await list(ui))[0]).toMatchObject({ title: "Fix the flaky test", titleSource: "prompt" });
  });

  it("deletes a session with its task sessions and their history; history of it is gone", async () => {
    const ui = connect("yolo");
    await ui.run("Delegate the tests", "s-two");
    await ui.run("Keep me", "s-keep");
    const taskId = (await list(ui)).find((s) => s.parentId === "s-two")?.id ?? "";
    expect(existsSync(path.join(latheHome, "lathe.db"))).toBe(true);

    const other = connect();
    expect(data(await ui.dispatch("sessions.delete", { sessionId: "s-two" }))).toEqual({
      deleted: ["s-two", taskId],
    });
    // Another tab is told which: if it has one open, it leaves it rather than send into it.
    expect(other.frames).toContainEqual({
      event: "sessions.changed",
      payload: { deleted: ["s-two", taskId] },
    });
    expect((await list(ui)).map((s) => s.id)).toEqual(["s-keep"]);
    expect(failure(await ui.dispatch("chat.history", { sessionId: "s-two" }))).toMatch(
      /no conversation "s-two"/,
    );
    expect(failure(await ui.dispatch("chat.history", { sessionId: taskId }))).toMatch(/no conversation/);
    expect(failure(await ui.dispatch("sessions.delete", { sessionId: "s-two" }))).toMatch(
      /no session "s-two" in .*deleted, or it belongs to another folder/,
    );
  });

  it("refuses to delete a session while its run goes on", async () => {
    const ui = connect("yolo");
    data(await ui.dispatch("chat.send", { prompt: "Sleep, then list", sessionId: "s-busy" }));
    await expect.poll(() => ui.events("s-busy").some((e) => e.type === "tool-call")).toBe(true);
    expect(failure(await ui.dispatch("sessions.delete", { sessionId: "s-busy" }))).toMatch(
      /A run is going on in this session: stop it, then delete the session/,
    );
    expect((await list(ui))[0]).toMatchObject({ id: "s-busy", running: true });
    const runId = (ui.events("s-busy").find((e) => e.type === "start") as { runId: string }).runId;
    data(await ui.dispatch("chat.abort", { runId }));
    await ui.finished("s-busy");
  });

  it.each([
    ["sessions.rename", { sessionId: "../x", title: "t" }, /sessionId/],
    ["sessions.rename", { sessionId: "s-one", title: "x".repeat(201) }, /at most 200 characters/],
    ["sessions.rename", { sessionId: "s-one" }, /title/],
    ["sessions.delete", { sessionId: "" }, /sessionId/],
    ["sessions.list", { query: "q".repeat(201) }, /query/],
    ["sessions.rename", { sessionId: "s-never", title: "t" }, /no session "s-never"/],
    ["sessions.delete", { sessionId: "s-never" }, /no session "s-never"/],
  ] as const)("refuses %s with %j", async (channel, request, message) => {
    const ui = connect();
    expect(failure(await ui.dispatch(channel, request))).toMatch(message);
  });

  it("does not list, rename or delete another folder's sessions", async () => {
    const ui = connect();
    await ui.run("In the first folder", "s-first");
    const other = path.join(base, "other");
    await mkdir(other);
    data(await ui.dispatch("project.open", { path: other }));
    expect(await list(ui)).toEqual([]);
    expect(failure(await ui.dispatch("sessions.delete", { sessionId: "s-first" }))).toMatch(
      /belongs to another folder/,
    );
    data(await ui.dispatch("project.open", { path: root }));
    expect((await list(ui)).map((s) => s.id)).toEqual(["s-first"]);
  });
});

describe("project channels", () => {
  it.each([
    [
      "a folder that does not exist",
      () => path.join(base, "missing"),
      /There is no folder .*missing\. Check the path/,
    ],
    [
      "a file",
      () => path.join(root, "README.md"),
      /README\.md is a file, not a folder\. Open the folder that holds it: /,
    ],
    ["a relative path", () => "project", /"project" is not an absolute path: type the whole path/],
    ["an empty path", () => "  ", /enter a folder path/],
  ])("refuses to open %s, and stays where it was", async (_what, folder, message) => {
    const ui = connect();
    expect(failure(await ui.dispatch("project.open", { path: folder() }))).toMatch(message);
    expect(data<ProjectStatus>(await ui.dispatch("project.status")).root).toBe(root);
    expect(host.current).toBe(engine);
  });

  it("opens another folder: the engine moves, the UI is told, and the folder joins the recent projects", async () => {
    const ui = connect();
    const other = path.join(base, "other");
    await mkdir(other);
    await writeFile(path.join(other, "only-here.md"), "x\n");
    const status = data<ProjectStatus>(await ui.dispatch("project.open", { path: `${other}/` }));
    expect(status).toMatchObject({ root: other, trusted: false });
    expect(host.current.root).toBe(other);
    expect(ui.frames.some((f) => f.event === "project.status" && f.payload.root === other)).toBe(true);
    // Tools now work in the new folder.
    const found = data<{ type: string; data: { files: string[] } }>(
      await ui.dispatch("tools.call", { toolId: "glob", args: { pattern: "*.md" } }),
    );
    expect(found.data.files).toEqual(["only-here.md"]);

    const recent = data<RecentProjects>(await ui.dispatch("project.recent"));
    expect(recent.projects.map((p) => p.root)).toEqual([other, root]);
    expect(recent.projects.every((p) => p.exists && !p.trusted)).toBe(true);
    const saved = JSON.parse(await readFile(path.join(latheHome, "recent-projects.json"), "utf8")) as unknown;
    expect(saved).toMatchObject({ version: 1, projects: [{ root: other }, { root }] });

    await rm(other, { recursive: true });
    const after = data<RecentProjects>(await ui.dispatch("project.recent"));
    expect(after.projects.find((p) => p.root === other)?.exists).toBe(false);
  });

  it("expands ~ to the home folder", async () => {
    const ui = connect();
    const status = data<ProjectStatus>(await ui.dispatch("project.open", { path: "~" }));
    expect(status.root).toBe(await realpath(os.homedir()));
  });

  it("refuses to switch folders while a chat run goes on", async () => {
    const ui = connect("yolo");
    const other = path.join(base, "other");
    await mkdir(other);
    data(await ui.dispatch("chat.send", { prompt: "Sleep, then list", sessionId: "s-busy" }));
    await expect.poll(() => ui.events("s-busy").some((e) => e.type === "tool-call")).toBe(true);
    expect(failure(await ui.dispatch("project.open", { path: other }))).toMatch(
      /A chat run is going on in .*: wait for it to finish or stop it/,
    );
    const runId = (ui.events("s-busy").find((e) => e.type === "start") as { runId: string }).runId;
    data(await ui.dispatch("chat.abort", { runId }));
    await ui.finished("s-busy");
  });

  it("a malformed recent-projects file is treated as empty and rewritten", async () => {
    await writeFile(path.join(latheHome, "recent-projects.json"), "{ not json");
    const ui = connect();
    const other = path.join(base, "other");
    await mkdir(other);
    data(await ui.dispatch("project.open", { path: other }));
    expect(data<RecentProjects>(await ui.dispatch("project.recent")).projects.map((p) => p.root)).toEqual([
      other,
    ]);
  });

  it("describes what trusting the folder would turn on: rules, hooks, commands, MCP servers, plugins and their requirements", async () => {
    const other = path.join(base, "asks");
    await mkdir(path.join(other, ".lathe", "tools", "word_count"), { recursive: true });
    await mkdir(path.join(other, ".lathe", "tools", "broken"), { recursive: true });
    await writeFile(
      path.join(other, ".lathe", "settings.json"),
      JSON.stringify({
        permissions: [
          { permission: "write", pattern: "src/**", action: "allow" },
          { permission: "fs.read", pattern: "**/.env", action: "deny" },
        ],
        hooks: [{ command: "./guard.sh", tools: ["bash"] }],
        shell: [{ cmd: "cargo" }, { cmd: "docker", args: ["ps"] }],
        mcpServers: { files: { command: "npx", args: ["-y", "server-files", "/tmp"] } },
        approvals: { mode: "allowlist" },
      }),
    );
    await writeFile(
      path.join(other, ".lathe", "tools", "word_count", "tool.yaml"),
      [
        "name: word_count",
        "version: 1.0.0",
        "description: Count words.",
        "input_schema: {type: object, properties: {path: {type: string}}, required: [path]}",
        "requires: {fs: {read: ['{workspace}/**']}, net: {hosts: [api.example.com]}, shell: [{cmd: wc}]}",
      ].join("\n"),
    );
    await writeFile(
      path.join(other, ".lathe", "tools", "word_count", "index.js"),
      "export async function execute() { return 1; }\n",
    );
    await writeFile(path.join(other, ".lathe", "tools", "broken", "tool.yaml"), "name: [\n");
    const ui = connect();
    data(await ui.dispatch("project.open", { path: other }));
    const review = data<TrustReview>(await ui.dispatch("project.review"));
    expect(review).toMatchObject({
      root: other,
      trusted: false,
      settingsFile: path.join(other, ".lathe", "settings.json"),
      settings: {
        rules: ['allow write "src/**"'],
        hooks: ["./guard.sh (for bash)"],
        commands: ["cargo <any arguments>", "docker ps"],
        approvals: "mode allowlist",
      },
      denyRules: 1,
      agents: [],
      problems: [],
    });
    const extensions = Object.fromEntries(review.extensions.map((e) => [e.name, e]));
    expect(extensions["files"]).toMatchObject({
      kind: "mcp",
      requires: { commands: [expect.stringContaining("npx -y server-files /tmp")] },
    });
    expect(extensions["word_count"]).toMatchObject({
      kind: "plugin",
      pinned: "new",
      gated: true,
      requires: {
        read: ["{workspace}/**"],
        write: [],
        hosts: ["api.example.com"],
        commands: ["wc <any arguments>"],
      },
      shadows: ['bundled plugin "word_count" (tool word_count)'],
      warnings: [
        'it replaces the bundled plugin "word_count" of the same name',
        "it may run wc with any arguments (checked like bash commands)",
      ],
    });
    expect(extensions["broken"]?.error).toMatch(/tool\.yaml/);

    // (Trusting through the UI would start the MCP server to pin its tools: recorded directly here.)
    new TrustStore(latheHome).trust(other);
    expect(data<TrustReview>(await ui.dispatch("project.review")).trusted).toBe(true);
  });

  it("reports a malformed project settings file as a problem in the trust prompt", async () => {
    const other = path.join(base, "bad");
    await mkdir(path.join(other, ".lathe"), { recursive: true });
    await writeFile(path.join(other, ".lathe", "settings.json"), "{ nope");
    // An engine cannot even be created on it: the open is refused with the settings' own message.
    const ui = connect();
    expect(failure(await ui.dispatch("project.open", { path: other }))).toMatch(
      /Lathe could not open .*bad: .*settings\.json/,
    );
    expect(host.current.root).toBe(root);
  });
});

describe("stopping one tool call", () => {
  it("stops the running call alone; the run goes on and the model reads that it was stopped", async () => {
    const ui = connect("yolo");
    data(await ui.dispatch("chat.send", { prompt: "Sleep, then list", sessionId: "s-stop" }));
    await expect.poll(() => ui.events("s-stop").some((e) => e.type === "tool-call")).toBe(true);
    const call = ui.events("s-stop").find((e) => e.type === "tool-call") as { toolCallId: string };
    const runId = (ui.events("s-stop").find((e) => e.type === "start") as { runId: string }).runId;
    // Stopped once its command really runs (its process is there): a stop that lands sooner, while
    // the call is still on its way through the pipeline, ends it before bash starts.
    await expect.poll(() => sleepers(SLEEP).length, { timeout: 10_000 }).toBeGreaterThan(0);
    data(await ui.dispatch("chat.stopTool", { runId, toolCallId: call.toolCallId }));
    const finish = await ui.finished("s-stop");
    expect(finish).toMatchObject({ type: "finish", status: "completed" });
    const result = ui.events("s-stop").find((e) => e.type === "tool-result" && e.toolName === "bash");
    expect(result).toMatchObject({
      envelope: { type: "error", error_text: expect.stringMatching(/aborted: stopped by the person/) },
    });
    expect(ui.events("s-stop").some((e) => e.type === "text" && e.text.length > 0)).toBe(true);
    const bashMessage = server.requests.at(-2)?.messages.findLast((m) => m.role === "tool");
    expect(String(bashMessage?.content)).toMatch(/stopped by the person/);

    expect(failure(await ui.dispatch("chat.stopTool", { runId, toolCallId: call.toolCallId }))).toMatch(
      /no run .* going on/,
    );
  });

  it("refuses to stop a call that is not running", async () => {
    const ui = connect("yolo");
    data(await ui.dispatch("chat.send", { prompt: "Sleep, then list", sessionId: "s-stop2" }));
    await expect.poll(() => ui.events("s-stop2").some((e) => e.type === "tool-call")).toBe(true);
    const runId = (ui.events("s-stop2").find((e) => e.type === "start") as { runId: string }).runId;
    expect(failure(await ui.dispatch("chat.stopTool", { runId, toolCallId: "call_made_up" }))).toMatch(
      /call_made_up is not running/,
    );
    data(await ui.dispatch("chat.abort", { runId }));
    await ui.finished("s-stop2");
  });
});
