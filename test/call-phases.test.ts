import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineBuiltin } from "../src/main/engine/builtin/define-builtin.ts";
import { Engine, type ApprovalRequest, type CallPhase } from "../src/main/engine/index.ts";

// Where a call stands while it waits, as a host shows it: a write held behind another write
// (even one still waiting for its approval) is queued; a call whose prompt is up, or whose
// identical twin's prompt is, awaits approval; once let through it runs. A card said "running"
// for all of these, with its timer counting, while nothing ran.

let base: string;
let engine: Engine;

const origin = { layer: "project", kind: "plugin", name: "test" } as const;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-phases-"));
  engine = await Engine.create({ root: base, latheHome: path.join(base, ".home"), extensions: false });
  engine.registry.register(
    defineBuiltin({
      id: "mark",
      description: "Records a name (changes things).",
      schema: z.strictObject({ name: z.string() }),
      requires: {},
      readOnly: false,
      kind: "other",
      execute: async ({ name }) => ({ name }),
    }),
    origin,
  );
  engine.registry.register(
    defineBuiltin({
      id: "peek",
      description: "Reads something the person is asked about first.",
      schema: z.strictObject({ what: z.string() }),
      requires: {},
      readOnly: true,
      gated: true,
      kind: "read",
      execute: async ({ what }) => ({ what }),
    }),
    origin,
  );
});

afterEach(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** An approver that holds every prompt until the test answers it. */
function heldApprover() {
  const waiting: { request: ApprovalRequest; answer: (a: "once" | "always" | "reject") => void }[] = [];
  // As the hosts' approvers do, a prompt whose call was stopped ends at once, refused.
  const approver = (request: ApprovalRequest, signal?: AbortSignal) =>
    new Promise<"once" | "always" | "reject">((answer) => {
      waiting.push({ request, answer });
      if (signal?.aborted) answer("reject");
      signal?.addEventListener("abort", () => answer("reject"), { once: true });
    });
  const until = async (count: number) => {
    await expect.poll(() => waiting.length).toBe(count);
    return waiting[count - 1]!;
  };
  return { approver, until, asked: () => waiting.length };
}

describe("call phases", () => {
  it("says nothing for a call that runs at once", async () => {
    const session = await engine.openSession({ mode: "yolo" });
    const phases: CallPhase[] = [];
    const outcome = await session.invoke({
      toolId: "mark",
      args: { name: "a" },
      onPhase: (p) => phases.push(p),
    });
    expect(outcome.envelope.type).toBe("output");
    expect(phases).toEqual([]);
  });

  it("a write behind one that awaits its approval is queued, then asks, then runs", async () => {
    const held = heldApprover();
    const session = await engine.openSession({ mode: "ask", approver: held.approver });
    const first: CallPhase[] = [];
    const second: CallPhase[] = [];
    const events: { callId: string; phase: CallPhase }[] = [];
    engine.events.on("ToolInvocationPhase", ({ callId, phase }) => events.push({ callId, phase }));
    const a = session.invoke({ toolId: "mark", args: { name: "a" }, onPhase: (p) => first.push(p) });
    const b = session.invoke({ toolId: "mark", args: { name: "b" }, onPhase: (p) => second.push(p) });
    (await held.until(1)).answer("once");
    // The second asks only once the first is done: its own prompt, for its own arguments.
    const prompt = await held.until(2);
    expect(prompt.request.args).toEqual({ name: "b" });
    expect(second).toEqual(["queued", "awaiting-approval"]);
    prompt.answer("once");
    const [doneA, doneB] = await Promise.all([a, b]);
    expect([doneA.envelope.type, doneB.envelope.type]).toEqual(["output", "output"]);
    expect(first).toEqual(["awaiting-approval", "running"]);
    expect(second).toEqual(["queued", "awaiting-approval", "running"]);
    // Hosts (the activity list) get the same phases, by the engine's call id.
    expect(events.filter((e) => e.callId === doneB.callId).map((e) => e.phase)).toEqual(second);
  });

  // Ctrl-C (or the stop button) while a write waits its turn: when its turn comes it must not
  // ask the person, nor be shown approved and running, for a call that will never run.
  it.each(["ask", "yolo"] as const)(
    "a queued call stopped before its turn is not asked about, approved or run (%s)",
    async (mode) => {
      const held = heldApprover();
      const session = await engine.openSession({ mode, approver: held.approver });
      const stop = new AbortController();
      const second: CallPhase[] = [];
      const first = session.invoke({ toolId: "mark", args: { name: "a" } });
      const answerFirst = mode === "ask" ? await held.until(1) : undefined;
      const b = session.invoke({
        toolId: "mark",
        args: { name: "b" },
        signal: stop.signal,
        onPhase: (p) => second.push(p),
      });
      stop.abort(new Error("interrupted (SIGINT)"));
      answerFirst?.answer("once");
      const [doneA, doneB] = await Promise.all([first, b]);
      expect(doneA.envelope.type).toBe("output");
      expect(doneB.envelope).toMatchObject({
        type: "error",
        error_text: "mark was aborted before it started; nothing was done.",
      });
      expect(second).toEqual(["queued"]);
      expect(doneB.decisions).toEqual([]);
      expect(held.asked()).toBe(mode === "ask" ? 1 : 0);
    },
  );

  // The person presses Stop on the twin's card while the first call's prompt is still up: the
  // twin ends at once (it waited on that prompt until it was answered), and the first one still
  // gets its answer and runs.
  it("an identical call stopped while it waits on the prompt up ends at once, and no one is said to have refused it", async () => {
    const held = heldApprover();
    const session = await engine.openSession({ mode: "ask", approver: held.approver });
    const a = session.invoke({ toolId: "peek", args: { what: "x" } });
    const first = await held.until(1);
    const stop = new AbortController();
    const second: CallPhase[] = [];
    const b = session.invoke({
      toolId: "peek",
      args: { what: "x" },
      signal: stop.signal,
      onPhase: (p) => second.push(p),
    });
    await expect.poll(() => second).toEqual(["awaiting-approval"]);
    let bEnded = false;
    void b.then(() => (bEnded = true));
    stop.abort(new Error("stopped by the person"));
    await expect.poll(() => bEnded, { timeout: 2_000 }).toBe(true);
    expect((await b).envelope).toMatchObject({
      type: "error",
      error_text:
        "This peek call was stopped while it waited for approval, so it was not run. No one refused it.",
    });
    expect(held.asked()).toBe(1);
    first.answer("once");
    expect((await a).envelope.type).toBe("output");
  });

  // After "always" the twin runs unasked; after "once" or "reject" it gets a prompt of its own.
  it.each([
    { answer: "always" as const, prompts: 1 },
    { answer: "once" as const, prompts: 2 },
    { answer: "reject" as const, prompts: 2 },
  ])(
    "an identical call waits on the one prompt up ($answer): it awaits approval, not running",
    async ({ answer, prompts }) => {
      const held = heldApprover();
      const session = await engine.openSession({ mode: "ask", approver: held.approver });
      const second: CallPhase[] = [];
      const a = session.invoke({ toolId: "peek", args: { what: "x" } });
      const first = await held.until(1);
      const b = session.invoke({ toolId: "peek", args: { what: "x" }, onPhase: (p) => second.push(p) });
      await expect.poll(() => second).toEqual(["awaiting-approval"]);
      first.answer(answer);
      if (prompts === 2) (await held.until(2)).answer("once");
      const doneB = await b;
      await a;
      expect(doneB.envelope.type).toBe("output");
      expect(second).toEqual(["awaiting-approval", "running"]);
    },
  );
});
