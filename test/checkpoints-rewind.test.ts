import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultAgent } from "../src/main/engine/agent/default-agent.ts";
import { replaySession } from "../src/main/engine/agent/replay-session.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { Engine } from "../src/main/engine/engine.ts";
import { openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { scriptedModel, toolResultsIn } from "./support/scripted-model.ts";

// Rewinding a session to before a prompt with real agent runs (a scripted model driving the real
// tools on a temp folder): the files come back, the conversation is cut there, tasks the removed
// turns started are undone too, and `--resume` continues from the rewound state.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function harness(): Promise<AgentHarness> {
  const h = await openAgentHarness();
  cleanups.push(() => h.cleanup());
  return h;
}

const SESSION = "rw";

/** Two turns: the first creates a.txt, the second edits it, writes b.txt and deletes c.txt with bash. */
async function twoTurns(h: AgentHarness): Promise<void> {
  await h.put("c.txt", "c before\n");
  const first = scriptedModel([
    { toolCalls: [{ name: "write", input: { path: "a.txt", content: "a v1\n" } }] },
    { text: "Created a.txt." },
  ]);
  await h.run("create a", first, { mode: "yolo", sessionId: SESSION });
  const second = scriptedModel([
    {
      toolCalls: [
        { name: "edit", input: { path: "a.txt", old_string: "v1", new_string: "v2" }, id: "e1" },
        { name: "write", input: { path: "notes/b.txt", content: "b\n" }, id: "w1" },
        { name: "bash", input: { command: "rm c.txt" }, id: "b1" },
      ],
    },
    { text: "Changed things." },
  ]);
  await h.run("change things", second, { mode: "yolo", sessionId: SESSION });
}

describe("rewind a session to before a prompt", () => {
  it("previews, restores the files, cuts the conversation, and resume continues from there", async () => {
    const h = await harness();
    await twoTurns(h);
    expect(await h.text("a.txt")).toBe("a v2\n");
    const prompts = h.engine.conversations().prompts(SESSION);
    expect(prompts.map((p) => p.text)).toEqual(["create a", "change things"]);
    const second = prompts[1]!;

    const listed = h.engine.checkpoints.list(SESSION);
    expect(listed.map((c) => [c.tool, c.runId])).toEqual([
      ["write", prompts[0]!.runId],
      ["edit", second.runId],
      ["write", second.runId],
      ["bash", second.runId],
    ]);
    expect(listed.slice(1).map((c) => c.toolCallId)).toEqual(["e1", "w1", "b1"]);

    const plan = await h.engine.checkpoints.previewRewind(SESSION, { message: second.seq });
    expect(plan).toMatchObject({
      sessionId: SESSION,
      beforeMessage: second.seq,
      runId: second.runId,
      runs: [second.runId],
      tasks: [],
    });
    expect(plan.messages).toBeGreaterThanOrEqual(3);
    expect(plan.paths).toEqual([
      { path: "a.txt", type: "file", action: "restore" },
      { path: "c.txt", type: "file", action: "recreate" },
      { path: "notes", type: "folder", action: "delete" },
      { path: "notes/b.txt", type: "file", action: "delete" },
    ]);
    expect(await h.text("a.txt")).toBe("a v2\n"); // a preview changes nothing

    const outcome = await h.engine.checkpoints.rewind(SESSION, { runId: second.runId });
    expect(outcome).toMatchObject({ applied: true, conversationCut: true, failed: [], blocked: [] });
    expect(await h.text("a.txt")).toBe("a v1\n");
    expect(await h.text("c.txt")).toBe("c before\n");
    expect(await h.text("notes/b.txt")).toBeUndefined();

    const messages = h.engine.conversations().messages(SESSION);
    expect(messages.every((m) => m.seq < second.seq)).toBe(true);
    const replayed: RunEvent[] = [];
    replaySession(h.engine, SESSION, (e) => replayed.push(e));
    expect(replayed.filter((e) => e.type === "start")).toHaveLength(1);
    expect(JSON.stringify(replayed)).not.toContain("change things");

    // Resume: the model sees only the first turn, and must read a.txt again before writing it.
    const third = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "a.txt", content: "a v3\n" } }] },
      (call) => {
        const results = toolResultsIn(call);
        return { text: JSON.stringify(results.at(-1)?.output ?? null) };
      },
    ]);
    const { result } = await h.run("try again", third, { mode: "yolo", sessionId: SESSION });
    const history = JSON.stringify(third.doStreamCalls[0]!.prompt);
    expect(history).toContain("create a");
    expect(history).not.toContain("change things");
    expect(result.text).toContain("has not been read in this session");
    expect(await h.text("a.txt")).toBe("a v1\n");

    // The first turn's checkpoint is still live; the rewound ones are retired by the rewind.
    const after = h.engine.checkpoints.list(SESSION);
    expect(after.filter((c) => c.kind === "tool" && c.restoredBy === null).map((c) => c.tool)).toEqual([
      "write",
    ]);
    expect(after.find((c) => c.kind === "rewind")?.undoes).toEqual(
      listed
        .slice(1)
        .map((c) => c.id)
        .reverse(),
    );
  });

  it("refuses while the person changed a file since, and changes nothing; force overwrites", async () => {
    const h = await harness();
    await twoTurns(h);
    const second = h.engine.conversations().prompts(SESSION)[1]!;
    await writeFile(path.join(h.root, "a.txt"), "a typed by the person\n");
    const refused = await h.engine.checkpoints.rewind(SESSION, { message: second.seq });
    expect(refused).toMatchObject({ applied: false, conversationCut: false });
    expect(refused.blocked).toEqual([
      expect.objectContaining({
        path: "a.txt",
        conflict: expect.stringContaining("by you or another program"),
      }),
    ]);
    expect(await h.text("a.txt")).toBe("a typed by the person\n");
    expect(await h.text("c.txt")).toBeUndefined();
    expect(h.engine.conversations().prompts(SESSION)).toHaveLength(2);

    const forced = await h.engine.checkpoints.rewind(SESSION, { message: second.seq }, { force: true });
    expect(forced).toMatchObject({ applied: true, conversationCut: true });
    expect(await h.text("a.txt")).toBe("a v1\n");
    expect(h.engine.conversations().prompts(SESSION)).toHaveLength(1);
  });

  it("a chmod by the person since is a conflict too: refused, then force puts the old mode back", async () => {
    const h = await harness();
    await twoTurns(h);
    const second = h.engine.conversations().prompts(SESSION)[1]!;
    const file = path.join(h.root, "a.txt");
    const left = (await stat(file)).mode & 0o7777;
    // Positive control: untouched since, the rewind would go through.
    const clean = await h.engine.checkpoints.previewRewind(SESSION, { message: second.seq });
    expect(clean.paths.filter((p) => p.conflict !== undefined)).toEqual([]);

    await chmod(file, 0o600);
    const refused = await h.engine.checkpoints.rewind(SESSION, { message: second.seq });
    expect(refused).toMatchObject({ applied: false, conversationCut: false });
    expect(refused.blocked).toEqual([
      expect.objectContaining({
        path: "a.txt",
        conflict: `its mode was changed since (600 now, ${left.toString(8)} when edit left it), outside this session's tools (by you or another program)`,
      }),
    ]);
    expect((await stat(file)).mode & 0o7777).toBe(0o600);
    expect(await h.text("a.txt")).toBe("a v2\n");

    const forced = await h.engine.checkpoints.rewind(SESSION, { message: second.seq }, { force: true });
    expect(forced).toMatchObject({ applied: true, conversationCut: true });
    expect(await h.text("a.txt")).toBe("a v1\n");
    expect((await stat(file)).mode & 0o7777).toBe(left);
  });

  it("undoes the changes of tasks the removed turn started", async () => {
    const h = await harness();
    const model = scriptedModel([
      { toolCalls: [{ name: "task", input: { description: "notes", prompt: "Write notes." }, id: "t1" }] },
      { toolCalls: [{ name: "write", input: { path: "task-notes.md", content: "# notes\n" } }] },
      { text: "Notes written." },
      { text: "The task is done." },
    ]);
    await h.run("delegate", model, { mode: "yolo", sessionId: SESSION });
    expect(await h.text("task-notes.md")).toBe("# notes\n");
    const [prompt] = h.engine.conversations().prompts(SESSION);
    const plan = await h.engine.checkpoints.previewRewind(SESSION, { message: prompt!.seq });
    expect(plan.tasks).toHaveLength(1);
    expect(plan.paths).toEqual([{ path: "task-notes.md", type: "file", action: "delete" }]);
    await h.engine.checkpoints.rewind(SESSION, { message: prompt!.seq });
    expect(await h.text("task-notes.md")).toBeUndefined();
    expect(h.engine.conversations().messages(SESSION)).toEqual([]);
  });

  it("names the prompts when the point is not one", async () => {
    const h = await harness();
    await twoTurns(h);
    await expect(h.engine.checkpoints.previewRewind(SESSION, { message: 1 })).rejects.toThrow(
      /message 1 is not a prompt of session rw; a rewind goes back to before one of the person's prompts\. Its prompts: 0 \("create a"\), \d+ \("change things"\)/,
    );
    await expect(h.engine.checkpoints.previewRewind(SESSION, { runId: "r-nope" })).rejects.toThrow(
      "session rw has no run r-nope",
    );
  });
});

describe("a run whose command changes cannot be checkpointed", () => {
  it("says so in a notice event", async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), "lathe-cp-notice-"));
    await mkdir(path.join(base, "ws"));
    for (const name of ["a", "b", "c"]) await writeFile(path.join(base, "ws", `${name}.txt`), name);
    const engine = await Engine.create({
      root: path.join(base, "ws"),
      latheHome: path.join(base, "home"),
      extensions: false,
      checkpoints: { maxFiles: 2 },
    });
    cleanups.push(async () => {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    });
    const events: RunEvent[] = [];
    await runAgent({
      engine,
      agent: defaultAgent(),
      model: {
        spec: { provider: "scripted", model: "m" },
        model: scriptedModel([
          { toolCalls: [{ name: "bash", input: { command: "echo z > a.txt" } }] },
          { text: "Done." },
        ]),
      },
      prompt: "change a",
      mode: "yolo",
      sessionId: "big",
      onEvent: (e) => events.push(e),
    });
    expect(events).toContainEqual({
      type: "notice",
      message: expect.stringContaining(
        "bash changes are not checkpointed: the workspace has more than 2 files",
      ),
    });
    expect(await readFile(path.join(base, "ws", "a.txt"), "utf8")).toBe("z\n");
  });
});

describe("rewind across restores", () => {
  it.each([
    { name: "a restore of the first turn's command", undoOfUndo: false, x: undefined },
    {
      name: "a restore of it, then the restore of that restore (undo of undo)",
      undoOfUndo: true,
      x: undefined,
    },
  ])(
    "after $name, a rewind to before the first turn leaves the files as they were before it",
    async (row) => {
      const h = await harness();
      await h.put("y.txt", "y before\n");
      await h.run(
        "make x",
        scriptedModel([
          { toolCalls: [{ name: "bash", input: { command: "echo x1 > x.txt && rm y.txt" } }] },
          { text: "Made x." },
        ]),
        { mode: "yolo", sessionId: SESSION },
      );
      const made = h.engine.checkpoints.list(SESSION).at(-1)!.id;
      const undo = await h.engine.checkpoints.restore(SESSION, made);
      expect(undo).toMatchObject({ applied: true, failed: [] });
      expect([await h.text("x.txt"), await h.text("y.txt")]).toEqual([undefined, "y before\n"]);
      if (row.undoOfUndo) {
        expect(await h.engine.checkpoints.restore(SESSION, undo.undoCheckpoint!)).toMatchObject({
          applied: true,
          failed: [],
        });
        expect([await h.text("x.txt"), await h.text("y.txt")]).toEqual(["x1\n", undefined]);
      }
      await h.run(
        "change x",
        scriptedModel([
          { toolCalls: [{ name: "bash", input: { command: "echo x2 > x.txt" } }] },
          { text: "Changed x." },
        ]),
        { mode: "yolo", sessionId: SESSION },
      );
      const first = h.engine.conversations().prompts(SESSION)[0]!;
      const plan = await h.engine.checkpoints.previewRewind(SESSION, { message: first.seq });
      expect(plan.paths.filter((p) => p.conflict !== undefined || p.unavailable !== undefined)).toEqual([]);
      const rewound = await h.engine.checkpoints.rewind(SESSION, { message: first.seq });
      expect(rewound).toMatchObject({ applied: true, failed: [], conversationCut: true });
      expect([await h.text("x.txt"), await h.text("y.txt")]).toEqual([undefined, "y before\n"]);
    },
  );
});

describe("rewind across a path that changed between file and folder", () => {
  it.each([
    {
      name: "a folder made, then made a file",
      first: "mkdir d && echo x > d/x",
      second: "rm -r d && echo file > d",
      path: "d",
    },
    {
      name: "a file made, then made a folder",
      first: "echo F > f",
      second: "rm f && mkdir f && echo y > f/y",
      path: "f",
    },
  ])("$name: a rewind to before the first turn leaves no trace of either", async (row) => {
    const h = await harness();
    await h.put("keep.txt", "kept\n");
    for (const [prompt, command] of [
      ["first", row.first],
      ["second", row.second],
    ] as const) {
      await h.run(
        prompt,
        scriptedModel([{ toolCalls: [{ name: "bash", input: { command } }] }, { text: "Done." }]),
        { mode: "yolo", sessionId: SESSION },
      );
    }
    const first = h.engine.conversations().prompts(SESSION)[0]!;
    const plan = await h.engine.checkpoints.previewRewind(SESSION, { message: first.seq });
    expect(plan.paths.filter((p) => p.conflict !== undefined || p.unavailable !== undefined)).toEqual([]);
    const rewound = await h.engine.checkpoints.rewind(SESSION, { message: first.seq });
    expect(rewound).toMatchObject({ applied: true, failed: [], skipped: [], conversationCut: true });
    await expect(stat(path.join(h.root, row.path))).rejects.toThrow(/ENOENT/);
    expect(await h.text("keep.txt")).toBe("kept\n");
  });
});
