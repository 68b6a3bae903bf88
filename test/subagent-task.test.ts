import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LanguageModel } from "ai";
import Database from "better-sqlite3";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentManifest } from "../src/main/engine/agent/agent-manifest.ts";
import { loadAgentCatalog } from "../src/main/engine/agent/agent-catalog.ts";
import { settleTasks, taskStatus } from "../src/main/engine/agent/index.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import { MAX_BACKGROUND_TASKS } from "../src/main/engine/tools/task-host.ts";
import { parseModelSpec } from "../src/main/engine/agent/model-spec.ts";
import type { ResolvedModel } from "../src/main/engine/agent/provider-registry.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { TASK_OUTSIDE_RUN_ERROR, TASK_SUMMARY_BYTES } from "../src/main/engine/builtin/task.ts";
import { Engine } from "../src/main/engine/engine.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";
import { eventsOf, openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { startOpenAICompatibleServer, type ChatRequest } from "./fixtures/openai-compatible-server.ts";
import { envelopeOf, runLathe } from "./support/lathe-cli.ts";
import { scriptedModel, toolNamesOffered, toolResultsIn, type Script } from "./support/scripted-model.ts";
import { errorOf, outputOf } from "./support/envelope-of.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An agent manifest file (JSON is YAML, so the front matter is written as JSON). */
function manifest(front: Record<string, unknown>, prompt = "You do the work you are delegated."): string {
  return `---\n${JSON.stringify(front)}\n---\n${prompt}\n`;
}

interface Setup {
  /** The delegating agent, "lead" (the built-in default with these overrides). */
  lead?: Partial<AgentManifest>;
  /** The user's settings.json. */
  settings?: unknown;
  /** Agent manifests in $LATHE_HOME/agents, by id. */
  agents?: Record<string, string>;
}

async function setup(options: Setup = {}): Promise<AgentHarness> {
  const home = await tempDir("lathe-task-home-");
  if (options.settings !== undefined)
    await writeFile(path.join(home, "settings.json"), JSON.stringify(options.settings));
  await mkdir(path.join(home, "agents"));
  for (const [id, text] of Object.entries(options.agents ?? {}))
    await writeFile(path.join(home, "agents", `${id}.md`), text);
  const h = await openAgentHarness({ agent: { id: "lead", ...options.lead }, home });
  cleanups.push(() => h.cleanup());
  return h;
}

/** `resolveModel` for agents whose manifests name these models. */
function models(bySpec: Record<string, LanguageModel>): (spec: string) => Promise<ResolvedModel> {
  return async (spec) => {
    const model = bySpec[spec];
    if (!model) throw new Error(`this test has no model ${spec}`);
    return { spec: parseModelSpec(spec), model };
  };
}

/** A scripted model whose requests wait until `gate` opens. */
function gated(script: Script, gate: Promise<void>): MockLanguageModelV4 {
  const inner = scriptedModel(script);
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId: "gated",
    doStream: async (call) => {
      await gate;
      return inner.doStream(call);
    },
  });
}

function opening(): { gate: Promise<void>; open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { gate, open };
}

type TaskEvent = Extract<RunEvent, { type: "task" }>;

/** The events of the tasks a run started (one level down), in order. */
function childEvents(events: readonly RunEvent[]): RunEvent[] {
  return eventsOf(events, "task").map((e: TaskEvent) => e.event);
}

function taskResults(events: readonly RunEvent[]): Envelope[] {
  return eventsOf(events, "tool-result")
    .filter((e) => e.toolName === "task")
    .map((e) => e.envelope);
}

const BUILDER = manifest({
  description: "Builds things with the shell.",
  model: "scripted:builder",
  permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
});

describe("permissions inherit: a parent's deny binds its tasks", () => {
  const delegateTouch = {
    toolCalls: [
      {
        name: "task",
        input: { description: "touch a file", prompt: "Run: touch pwned.txt", agent: "builder" },
      },
    ],
  };

  it("refuses the child's bash when the parent's manifest denies it, though the child's manifest, the settings and yolo allow it", async () => {
    const h = await setup({
      lead: { permissions: [{ permission: "bash", pattern: "*", action: "deny" }] },
      settings: { permissions: [{ permission: "bash", pattern: "*", action: "allow" }] },
      agents: { builder: BUILDER },
    });
    const child = scriptedModel([
      { toolCalls: [{ name: "bash", input: { command: "touch pwned.txt" } }] },
      { text: "bash was refused." },
    ]);
    const parent = scriptedModel([delegateTouch, { text: "The task could not run bash." }]);
    const { result, events } = await h.run("delegate", parent, {
      mode: "yolo",
      approver: async () => "always",
      resolveModel: models({ "scripted:builder": child }),
    });

    expect(result.status).toBe("completed");
    expect(existsSync(path.join(h.root, "pwned.txt"))).toBe(false);
    const bash = eventsOf(childEvents(events), "tool-result").find((e) => e.toolName === "bash");
    const refusal = errorOf(bash?.envelope);
    expect(refusal).toContain("bash was denied");
    expect(refusal).toContain('{permission: "bash", pattern: "*", action: "deny"}');
    expect(refusal).toContain('agent "lead"');
    expect(outputOf(taskResults(events)[0])).toMatchObject({
      status: "completed",
      summary: "bash was refused.",
      artifacts: [],
    });
    // The child ran as builder, on its own model.
    expect(childEvents(events)[0]).toMatchObject({
      type: "start",
      agent: "builder",
      model: "scripted:builder",
    });
  });

  it("lets the same child run bash when its parent does not deny it (the refusal above is the parent's doing)", async () => {
    const h = await setup({
      settings: { permissions: [{ permission: "bash", pattern: "*", action: "allow" }] },
      agents: { builder: BUILDER },
    });
    const child = scriptedModel([
      { toolCalls: [{ name: "bash", input: { command: "touch pwned.txt" } }] },
      { text: "touched." },
    ]);
    const parent = scriptedModel([delegateTouch, { text: "done" }]);
    const { events } = await h.run("delegate", parent, {
      mode: "yolo",
      resolveModel: models({ "scripted:builder": child }),
    });
    expect(outputOf(taskResults(events)[0])).toMatchObject({ status: "completed", summary: "touched." });
    expect(existsSync(path.join(h.root, "pwned.txt"))).toBe(true);
  });

  describe("a child's own allow rule does not let it do what its parent would have to ask for", () => {
    const touchViaBuilder = (child: MockLanguageModelV4) => ({
      parent: scriptedModel([
        { toolCalls: [{ name: "bash", input: { command: "touch parent.txt" } }] },
        delegateTouch,
        { text: "done" },
      ]),
      resolveModel: models({ "scripted:builder": child }),
    });
    const childTouches = (): MockLanguageModelV4 =>
      scriptedModel([
        { toolCalls: [{ name: "bash", input: { command: "touch pwned.txt" } }] },
        { text: "tried" },
      ]);

    it("runs bash for builder in its own run (the positive control: the manifest's allow works)", async () => {
      const h = await setup({ agents: { builder: BUILDER } });
      const catalog = await loadAgentCatalog({ root: h.root, latheHome: h.home, projectTrusted: false });
      const result = await runAgent({
        engine: h.engine,
        agent: catalog.get("builder"),
        model: { spec: parseModelSpec("scripted:builder"), model: childTouches() },
        prompt: "Run: touch pwned.txt",
        flushIntervalMs: 5,
      });
      expect(result.status).toBe("completed");
      expect(existsSync(path.join(h.root, "pwned.txt"))).toBe(true);
    });

    it("headless: the parent's bash is refused for want of approval, and so is its builder task's", async () => {
      const h = await setup({ agents: { builder: BUILDER } });
      const { parent, resolveModel } = touchViaBuilder(childTouches());
      const { events } = await h.run("delegate", parent, { resolveModel });

      const parentBash = eventsOf(events, "tool-result").find((e) => e.toolName === "bash");
      expect(errorOf(parentBash?.envelope)).toContain("needs approval");
      expect(existsSync(path.join(h.root, "parent.txt"))).toBe(false);
      const childBash = eventsOf(childEvents(events), "tool-result").find((e) => e.toolName === "bash");
      expect(errorOf(childBash?.envelope)).toContain("needs approval");
      expect(errorOf(childBash?.envelope)).toContain("the run that started this task");
      expect(existsSync(path.join(h.root, "pwned.txt"))).toBe(false);
    });

    it("with a person to ask: the builder task's bash is put to them, as the parent's is", async () => {
      const h = await setup({ agents: { builder: BUILDER } });
      const asked: string[] = [];
      const { parent, resolveModel } = touchViaBuilder(childTouches());
      await h.run("delegate", parent, {
        resolveModel,
        asker: async () => ({ answers: [] }),
        approver: async (request) => {
          asked.push(`${request.toolId} ${request.approvalKey}`);
          return "reject";
        },
      });
      expect(asked).toHaveLength(2);
      expect(existsSync(path.join(h.root, "parent.txt"))).toBe(false);
      expect(existsSync(path.join(h.root, "pwned.txt"))).toBe(false);
    });

    it("lets the child run what its parent's own manifest allows too", async () => {
      const h = await setup({
        lead: { permissions: [{ permission: "bash", pattern: "*", action: "allow" }] },
        agents: { builder: BUILDER },
      });
      const { parent, resolveModel } = touchViaBuilder(childTouches());
      await h.run("delegate", parent, { resolveModel });
      expect(existsSync(path.join(h.root, "parent.txt"))).toBe(true);
      expect(existsSync(path.join(h.root, "pwned.txt"))).toBe(true);
    });
  });

  it("keeps tools hidden from the parent hidden from the child, and refuses them at dispatch", async () => {
    const h = await setup({
      lead: { tools: { allow: ["*"], deny: ["bash", "write"] } },
      agents: { open: manifest({ description: "Sees everything.", model: "scripted:open" }) },
    });
    const child = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "x.txt", content: "x" } }] },
      { text: "I cannot write." },
    ]);
    const parent = scriptedModel([
      {
        toolCalls: [
          { name: "task", input: { description: "write x", prompt: "Write x.txt.", agent: "open" } },
        ],
      },
      { text: "ok" },
    ]);
    const { events } = await h.run("delegate", parent, {
      mode: "yolo",
      resolveModel: models({ "scripted:open": child }),
    });

    const offered = toolNamesOffered(child.doStreamCalls[0]!);
    expect(offered).toContain("read");
    expect(offered).not.toContain("write");
    expect(offered).not.toContain("bash");
    // Named anyway, it is refused before anything runs.
    const write = eventsOf(childEvents(events), "tool-result").find((e) => e.toolName === "write");
    expect(errorOf(write?.envelope)).toContain("write");
    expect(existsSync(path.join(h.root, "x.txt"))).toBe(false);
  });

  it("does not let a session's manifest deny be lifted by a user allow rule or yolo mode", async () => {
    const home = await tempDir("lathe-task-rules-");
    const root = await tempDir("lathe-task-root-");
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ permissions: [{ permission: "write", pattern: "*", action: "allow" }] }),
    );
    const engine = await Engine.create({ root, latheHome: home, extensions: false });
    cleanups.push(() => engine.close());
    const bound = await engine.openSession({
      mode: "yolo",
      manifestRules: [{ permission: "write", pattern: "*", action: "deny", source: "the test's manifest" }],
    });
    const free = await engine.openSession({ mode: "yolo" });
    const refused = errorOf(await bound.call("write", { path: "a.txt", content: "a" }));
    expect(refused).toContain("from the test's manifest");
    expect(existsSync(path.join(root, "a.txt"))).toBe(false);
    expect((await free.call("write", { path: "a.txt", content: "a" })).type).toBe("output");
  });
});

describe("budgets: a task cannot spend more than its parent has left", () => {
  it("clamps the child's rounds to the parent's and counts its tool calls against the parent", async () => {
    const h = await setup({
      lead: { budgets: { maxRounds: 3, maxToolCalls: 3, maxCallsPerTool: {} } },
      agents: {
        worker: manifest({
          description: "Works a lot.",
          model: "scripted:worker",
          budgets: { maxRounds: 10, maxToolCalls: 10 },
        }),
      },
    });
    const glob = { name: "glob", input: { pattern: "*" } };
    const child = scriptedModel([
      { toolCalls: [glob, glob, glob] },
      { toolCalls: [glob] },
      { text: "a third step the budget does not allow" },
    ]);
    let seenByParent: unknown;
    const parent = scriptedModel([
      {
        toolCalls: [{ name: "task", input: { description: "glob a lot", prompt: "Glob.", agent: "worker" } }],
      },
      (call) => {
        seenByParent = toolResultsIn(call)[0]?.output;
        return { toolCalls: [glob] };
      },
      { text: "done" },
    ]);
    const { result, events } = await h.run("delegate", parent, {
      resolveModel: models({ "scripted:worker": child }),
    });

    // The parent's step 0 was one of its 3 rounds: the child gets the 2 left, not its own 10.
    expect(child.doStreamCalls).toHaveLength(2);
    // …and is told what that means for it, not just a status and an empty summary.
    expect(seenByParent).toMatchObject({
      value: {
        type: "output",
        data: {
          status: "max-rounds",
          summary: "",
          error: expect.stringContaining("used up its model steps"),
        },
      },
    });
    // The task call was one of the parent's 3 tool calls: the child may make the other 2.
    const childGlobs = eventsOf(childEvents(events), "tool-result");
    const first = childGlobs.filter((e) => e.step === 0);
    expect(first.map((e) => e.envelope.type).sort()).toEqual(["error", "output", "output"]);
    const exhausted =
      'this task\'s calls count against the run that started it, and its agent "lead" may make at most 3 tool calls per run (budgets.maxToolCalls)';
    expect(errorOf(first.find((e) => e.envelope.type === "error")?.envelope)).toContain(exhausted);
    expect(errorOf(childGlobs.find((e) => e.step === 1)?.envelope)).toContain(exhausted);
    // And they are gone from the parent's budget.
    const parentGlob = eventsOf(events, "tool-result").find((e) => e.toolName === "glob");
    expect(errorOf(parentGlob?.envelope)).toContain('agent "lead" may make at most 3 tool calls per run');
    expect(result.status).toBe("completed");
  });

  it("refuses to start a task in the parent's last round", async () => {
    const h = await setup({ lead: { budgets: { maxRounds: 1, maxToolCalls: 10, maxCallsPerTool: {} } } });
    const model = scriptedModel([
      { toolCalls: [{ name: "task", input: { description: "late", prompt: "Too late." } }] },
    ]);
    const { events } = await h.run("delegate", model);
    expect(model.doStreamCalls).toHaveLength(1);
    expect(errorOf(taskResults(events)[0])).toContain("budgets.maxRounds = 1");
    expect(eventsOf(events, "task")).toEqual([]);
  });
});

describe("results", () => {
  it("returns the child's answer and the files it wrote, links the child session, and tags its events", async () => {
    const h = await setup();
    const long = `${"summary line\n".repeat(Math.ceil((TASK_SUMMARY_BYTES + 2000) / 13))}the end`;
    // One model for both: the child runs the parent's agent on the parent's model.
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: "task",
            input: { description: "write notes", prompt: "Write the notes." },
            id: "delegate-1",
          },
        ],
      },
      {
        toolCalls: [
          { name: "write", input: { path: "notes/a.md", content: "# A\n" } },
          { name: "write", input: { path: "b.txt", content: "b\n" } },
          { name: "write", input: { path: "../outside.txt", content: "no\n" } },
          { name: "write", input: { path: "notes/a.md", content: "# A again\n" } },
        ],
      },
      { text: long },
      { text: "The notes are written." },
    ]);
    const { result, events } = await h.run("delegate", model, { mode: "yolo" });

    expect(result.status).toBe("completed");
    expect(result.text).toBe("The notes are written.");
    const [envelope] = taskResults(events);
    const data = outputOf<{ task_id: string; status: string; summary: string; artifacts: string[] }>(
      envelope,
    );
    expect(data.status).toBe("completed");
    expect(data.artifacts).toEqual(["notes/a.md", "b.txt"]);
    expect(await h.text("notes/a.md")).toBe("# A again\n");
    // The summary is capped; the whole text is in the sidecar.
    expect(Buffer.byteLength(data.summary)).toBeLessThanOrEqual(TASK_SUMMARY_BYTES);
    expect(long.startsWith(data.summary)).toBe(true);
    expect(envelope?.metadata.truncated).toBe(true);
    expect(await readFile(envelope!.metadata.output_path!, "utf8")).toBe(long);

    // Every child event reached the host, tagged with the child session and the parent's call.
    const tagged = eventsOf(events, "task");
    expect(new Set(tagged.map((e) => `${e.taskId} ${e.toolCallId}`))).toEqual(
      new Set([`${data.task_id} delegate-1`]),
    );
    expect(tagged[0]?.event).toMatchObject({ type: "start", sessionId: data.task_id, agent: "lead" });
    expect(tagged.at(-1)?.event).toMatchObject({ type: "finish", status: "completed" });

    // Hosts find the child: linked to the parent, a conversation of its own, its status.
    const store = h.engine.conversations();
    expect(store.children(result.sessionId)).toMatchObject([
      { childSessionId: data.task_id, toolCallId: "delegate-1", description: "write notes" },
    ]);
    expect(store.get(data.task_id)).toMatchObject({ parentSessionId: result.sessionId, agent: "lead" });
    expect(store.messages(data.task_id)[0]).toMatchObject({
      role: "user",
      parts: [{ type: "text", text: "Write the notes." }],
    });
    expect(taskStatus(h.engine, data.task_id)).toMatchObject({
      status: "completed",
      artifacts: ["notes/a.md", "b.txt"],
    });
    // The parent's own recording holds its conversation, not the child's events.
    expect(store.events(result.sessionId).map((e) => e.type)).not.toContain("task");
  });

  it("keeps the child's texts of different steps apart in its summary, live and as stored", async () => {
    const h = await setup();
    await h.put("a.txt", "42\n");
    const model = scriptedModel([
      { toolCalls: [{ name: "task", input: { description: "look", prompt: "What is in a.txt?" } }] },
      { text: "Reading a.txt.", toolCalls: [{ name: "read", input: { path: "a.txt" } }] },
      { text: "It holds 42." },
      { text: "Done." },
    ]);
    const { events } = await h.run("delegate", model, { mode: "yolo" });
    const data = outputOf<{ task_id: string; summary: string }>(taskResults(events)[0]);
    expect(data.summary).toBe("Reading a.txt.\n\nIt holds 42.");
    // What a later run reads back for the same task (recorded events, no run in this process).
    const again = await h.reopen();
    expect(taskStatus(again, data.task_id)).toMatchObject({ summary: "Reading a.txt.\n\nIt holds 42." });
  });

  it.each([
    [
      "task_id with a prompt",
      { task_id: "t-1", prompt: "x" },
      "task_id goes alone: it collects a background task, so leave out prompt",
    ],
    ["no prompt", { description: "x" }, "To start a task, give prompt"],
    ["a blank description", { description: "  ", prompt: "x" }, "To start a task, give description"],
    [
      "an agent that does not exist",
      { description: "x", prompt: "y", agent: "nobody" },
      'There is no agent "nobody"',
    ],
    [
      "a task id of no task",
      { task_id: "t-unknown" },
      'There is no task "t-unknown" started in this session',
    ],
  ])("refuses %s with an error the model can act on", async (_label, input, message) => {
    const h = await setup();
    const model = scriptedModel([{ toolCalls: [{ name: "task", input }] }, { text: "ok" }]);
    const { events } = await h.run("delegate", model);
    expect(errorOf(taskResults(events)[0])).toContain(message);
    expect(eventsOf(events, "task")).toEqual([]);
  });
});

describe("background tasks", () => {
  const child = (gate: Promise<void>): MockLanguageModelV4 =>
    gated(
      [{ toolCalls: [{ name: "write", input: { path: "bg.txt", content: "bg\n" } }] }, { text: "bg done" }],
      gate,
    );
  const agents = { bg: manifest({ description: "Works in the background.", model: "scripted:bg" }) };
  const start = {
    toolCalls: [
      {
        name: "task",
        input: { description: "in the background", prompt: "Write bg.txt.", agent: "bg", background: true },
      },
    ],
  };

  it("returns a task id at once; the child goes on after the parent's run and hosts see it finish", async () => {
    const h = await setup({ agents });
    const { gate, open } = opening();
    const parent = scriptedModel([start, { text: "Started it." }]);
    const { result, events } = await h.run("delegate", parent, {
      mode: "yolo",
      resolveModel: models({ "scripted:bg": child(gate) }),
    });

    expect(result.status).toBe("completed");
    const started = outputOf<{ task_id: string; status: string }>(taskResults(events)[0]);
    expect(started).toEqual({ task_id: started.task_id, status: "running" });
    expect(await h.text("bg.txt")).toBeUndefined();
    expect(taskStatus(h.engine, started.task_id)).toEqual({ task_id: started.task_id, status: "running" });
    expect(
      h.engine
        .conversations()
        .children(result.sessionId)
        .map((c) => c.childSessionId),
    ).toEqual([started.task_id]);

    open();
    await settleTasks(h.engine);
    expect(taskStatus(h.engine, started.task_id)).toMatchObject({
      status: "completed",
      summary: "bg done",
      artifacts: ["bg.txt"],
    });
    expect(await h.text("bg.txt")).toBe("bg\n");
    // The host kept getting the child's events after the parent finished.
    expect(eventsOf(events, "task").at(-1)?.event).toMatchObject({ type: "finish", status: "completed" });
  });

  it("says a task another Lathe process still runs is running there, not interrupted", async () => {
    const h = await setup({ agents });
    const { gate, open } = opening();
    const parent = scriptedModel([start, { text: "Started it." }]);
    const { events } = await h.run("delegate", parent, {
      mode: "yolo",
      resolveModel: models({ "scripted:bg": child(gate) }),
    });
    const { task_id } = outputOf<{ task_id: string }>(taskResults(events)[0]);
    const db = new Database(path.join(h.home, "lathe.db"));
    try {
      // Another Lathe process (a live one: the one that started this test) holds the task's run.
      db.prepare("UPDATE run_leases SET pid = ?, token = 'other' WHERE session_id = ?").run(
        process.ppid,
        task_id,
      );
      const later = await h.reopen();
      expect(taskStatus(later, task_id)).toEqual({
        task_id,
        status: "running",
        error: expect.stringMatching(
          new RegExp(`^The task is still running in another Lathe process \\(pid ${process.ppid} on `),
        ),
      });
      // Positive control: once no process holds it, a task with no recorded end was interrupted.
      db.prepare("DELETE FROM run_leases WHERE session_id = ?").run(task_id);
      expect(taskStatus(later, task_id)).toMatchObject({ status: "interrupted" });
    } finally {
      db.close();
      open();
      await settleTasks(h.engine);
    }
  });

  it("gives the result to a later task call with the task id alone", async () => {
    const h = await setup({ agents });
    const { gate, open } = opening();
    let running: unknown;
    let collected: unknown;
    const parent = scriptedModel([
      start,
      (call) => {
        running = toolResultsIn(call)[0]?.output;
        const { task_id } = (running as { value: { data: { task_id: string } } }).value.data;
        open();
        return { toolCalls: [{ name: "task", input: { task_id } }] };
      },
      (call) => {
        collected = toolResultsIn(call)[1]?.output;
        return { text: "Collected." };
      },
    ]);
    const { result } = await h.run("delegate", parent, {
      mode: "yolo",
      resolveModel: models({ "scripted:bg": child(gate) }),
    });
    expect(result.status).toBe("completed");
    expect(running).toMatchObject({ value: { data: { status: "running" } } });
    expect(collected).toMatchObject({
      value: { type: "output", data: { status: "completed", summary: "bg done", artifacts: ["bg.txt"] } },
    });
  });
});

describe("background tasks the person can stop", () => {
  it("lists a session's background tasks live and stops one alone while the other goes on", async () => {
    const h = await setup({
      agents: { bg: manifest({ description: "Works in the background.", model: "scripted:bg" }) },
    });
    const children = [0, 1].map(() => scriptedModel([{ text: "working", hang: true }]));
    let next = 0;
    const parent = scriptedModel([
      {
        toolCalls: ["first job", "second job"].map((description) => ({
          name: "task",
          input: { description, prompt: `Do the ${description}.`, agent: "bg", background: true },
        })),
      },
      { text: "Both started." },
    ]);
    const changes: string[] = [];
    h.engine.events.on("TasksChanged", ({ sessionId }) => changes.push(sessionId));
    const { result } = await h.run("fan out", parent, {
      resolveModel: async (spec) => ({ spec: parseModelSpec(spec), model: children[next++]! }),
    });
    expect(result.status).toBe("completed");
    const board = h.engine.tasks;
    const listed = board.background(result.sessionId);
    expect(listed.map((t) => [t.description, t.agent, t.status])).toEqual([
      ["first job", "bg", "running"],
      ["second job", "bg", "running"],
    ]);
    expect(changes).toEqual([result.sessionId, result.sessionId]);

    expect(board.stop(listed[0]!.taskId, new Error("stopped by the person"))).toBe(true);
    await expect
      .poll(() => board.background(result.sessionId).map((t) => t.status))
      .toEqual(["aborted", "running"]);
    expect(board.background(result.sessionId)[0]!.endedAt).toBeGreaterThanOrEqual(listed[0]!.startedAt);
    expect(taskStatus(h.engine, listed[0]!.taskId)).toMatchObject({ status: "aborted", summary: "working" });
    expect(changes).toHaveLength(3);
    // Stopping it again, or a task that does not exist, changes nothing.
    expect(board.stop(listed[0]!.taskId, new Error("again"))).toBe(false);
    expect(board.stop("t-made-up", new Error("none"))).toBe(false);

    board.stop(listed[1]!.taskId, new Error("stopped by the person"));
    await settleTasks(h.engine);
    expect(board.background(result.sessionId).map((t) => t.status)).toEqual(["aborted", "aborted"]);
  });
});

describe("fan-out: background tasks running at once", () => {
  it(`runs at most ${MAX_BACKGROUND_TASKS} at once and tells the model how to go on when asked for more`, async () => {
    const h = await setup({
      agents: { bg: manifest({ description: "Works in the background.", model: "scripted:bg" }) },
    });
    const { gate, open } = opening();
    const n = MAX_BACKGROUND_TASKS + 2;
    const children = Array.from({ length: n }, () => gated([{ text: "bg done" }], gate));
    let next = 0;
    const parent = scriptedModel([
      {
        toolCalls: Array.from({ length: n }, (_, i) => ({
          name: "task",
          input: { description: `job ${i}`, prompt: `Job ${i}.`, agent: "bg", background: true },
        })),
      },
      { text: "Started what I could." },
    ]);
    const { events } = await h.run("fan out", parent, {
      resolveModel: async (spec) => ({ spec: parseModelSpec(spec), model: children[next++]! }),
    });
    const results = taskResults(events);
    expect(results.filter((e) => e.type === "output")).toHaveLength(MAX_BACKGROUND_TASKS);
    const refused = results.filter((e) => e.type === "error");
    expect(refused).toHaveLength(n - MAX_BACKGROUND_TASKS);
    expect(errorOf(refused[0])).toContain(`at most ${MAX_BACKGROUND_TASKS} run at once`);
    expect(errorOf(refused[0])).toContain('task {"task_id"');
    // Only the tasks that started have sessions.
    const sessionId = eventsOf(events, "start")[0]!.sessionId;
    expect(h.engine.conversations().children(sessionId)).toHaveLength(MAX_BACKGROUND_TASKS);

    // Once they are done, background tasks can start again.
    open();
    await settleTasks(h.engine);
    expect(h.engine.tasks.runningOf(sessionId)).toEqual([]);
  });
});

describe("abort and nesting", () => {
  const agents = { slow: manifest({ description: "Never finishes.", model: "scripted:slow" }) };

  it.each([false, true])(
    "stops the child when the parent is aborted (background: %s)",
    async (background) => {
      const h = await setup({ agents });
      const slow = scriptedModel([{ text: "working on it", hang: true }]);
      const parent = scriptedModel([
        {
          toolCalls: [
            {
              name: "task",
              input: { description: "slow", prompt: "Take forever.", agent: "slow", background },
            },
          ],
        },
        { text: "waiting", hang: true },
      ]);
      const controller = new AbortController();
      let abortedAt = 0;
      let taskId = "";
      const { result, events } = await h.run("delegate", parent, {
        signal: controller.signal,
        resolveModel: models({ "scripted:slow": slow }),
        onEvent: (e) => {
          if (e.type === "task" && e.event.type === "text" && abortedAt === 0) {
            taskId = e.taskId;
            abortedAt = performance.now();
            controller.abort(new Error("stop"));
          }
        },
      });
      expect(performance.now() - abortedAt).toBeLessThan(2_000);
      expect(result.status).toBe("aborted");
      // runAgent resolved only once the child had stopped too.
      expect(taskStatus(h.engine, taskId)).toMatchObject({ status: "aborted", summary: "working on it" });
      expect(eventsOf(events, "task").at(-1)?.event).toMatchObject({ type: "finish", status: "aborted" });
    },
  );

  it("nests tasks at most three deep, with a clear error below that", async () => {
    const h = await setup();
    const delegate = (n: number) => ({
      toolCalls: [{ name: "task", input: { description: `level ${n}`, prompt: `Delegate again (${n}).` } }],
    });
    let refusal: unknown;
    const model = scriptedModel([
      delegate(1),
      delegate(2),
      delegate(3),
      delegate(4),
      (call) => {
        refusal = toolResultsIn(call)[0]?.output;
        return { text: "deepest" };
      },
      { text: "level 2 done" },
      { text: "level 1 done" },
      { text: "top done" },
    ]);
    const { result, events } = await h.run("delegate", model);

    expect(result.status).toBe("completed");
    expect(result.text).toBe("top done");
    expect(JSON.stringify(refusal)).toContain(
      "Tasks nest at most 3 deep, and this run is already a task 3 levels down",
    );
    // Three levels of child sessions, each linked to the one above.
    const store = h.engine.conversations();
    let parentId = result.sessionId;
    for (let depth = 1; depth <= 3; depth++) {
      const children = store.children(parentId);
      expect(children).toHaveLength(1);
      parentId = children[0]!.childSessionId;
    }
    expect(store.children(parentId)).toEqual([]);
    // And their events reached the host nested as deep.
    const deepest = eventsOf(events, "task")
      .map((e) => e.event)
      .filter((e): e is TaskEvent => e.type === "task")
      .map((e) => e.event)
      .filter((e): e is TaskEvent => e.type === "task")
      .map((e) => e.event);
    expect(
      eventsOf(deepest, "text")
        .map((e) => e.text)
        .join(""),
    ).toBe("deepest");
  });
});

describe("outside an agent run", () => {
  it("lathe call task answers that task only runs inside an agent run", async () => {
    const home = await tempDir("lathe-task-cli-home-");
    const root = await tempDir("lathe-task-cli-root-");
    const run = await runLathe(["call", "task", JSON.stringify({ description: "x", prompt: "y" })], {
      home,
      cwd: root,
    });
    expect(run.code).toBe(1);
    expect(envelopeOf(run)).toMatchObject({ type: "error", error_text: TASK_OUTSIDE_RUN_ERROR });
  });
});

describe("lathe run with a task, against an OpenAI-compatible server", () => {
  it("waits for a background task before it exits, printing the task's work indented", async () => {
    const home = await tempDir("lathe-task-run-home-");
    const root = await tempDir("lathe-task-run-root-");
    const answered = (request: ChatRequest): boolean => request.messages.some((m) => m.role === "tool");
    const isChild = (request: ChatRequest): boolean =>
      request.messages.some((m) => m.role === "user" && m.content === "Write bg.txt.");
    const server = await startOpenAICompatibleServer({
      models: ["fixture-model"],
      replies: (request) => {
        if (isChild(request)) {
          return answered(request)
            ? { text: "bg.txt is written." }
            : { toolCalls: [{ name: "write", arguments: { path: "bg.txt", content: "bg\n" } }] };
        }
        return answered(request)
          ? { text: "Started the task." }
          : {
              toolCalls: [
                {
                  name: "task",
                  arguments: { description: "write bg", prompt: "Write bg.txt.", background: true },
                },
              ],
            };
      },
    });
    cleanups.push(() => server.close());
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL: server.baseURL } } }),
    );
    const run = await runLathe(
      ["run", "Delegate writing bg.txt", "--model", "openai-compatible:fixture-model", "--mode", "yolo"],
      { home, cwd: root },
    );

    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Started the task.\n");
    expect(await readFile(path.join(root, "bg.txt"), "utf8")).toBe("bg\n");
    expect(run.stderr).toMatch(/^ {2}│ task t-\S+: agent default on openai-compatible:fixture-model$/m);
    expect(run.stderr).toContain('  │ ▸ write {"path":"bg.txt","content":"bg\\n"}');
    expect(run.stderr).toContain("  │ bg.txt is written.\n  │ task completed after 2 steps\n");
  });
});
