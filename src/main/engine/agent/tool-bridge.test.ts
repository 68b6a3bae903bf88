import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { Engine } from "../engine.ts";
import type { Session } from "../session/session.ts";
import { DEFAULT_BUDGETS } from "./agent-manifest.ts";
import { RunBudget } from "./run-budget.ts";
import { isLiveOnly, type RunEvent } from "./run-events.ts";
import { ToolBridge } from "./tool-bridge.ts";
import { ToolCallStops } from "./tool-call-stops.ts";
import { ToolVisibility } from "./tool-visibility.ts";

let base: string;
let engine: Engine;
let session: Session;
let events: RunEvent[];
let started: string[];

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-bridge-"));
  engine = await Engine.create({ root: base, latheHome: path.join(base, ".home") });
  session = await engine.openSession({ mode: "yolo" });
  events = [];
  started = [];
  engine.events.on("ToolInvocationStarted", (e) => started.push(e.toolId));
});
afterEach(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

function bridge(
  tools: { allow: string[]; deny: string[] },
  budgets = { ...DEFAULT_BUDGETS, maxCallsPerTool: {} },
  stops?: ToolCallStops,
): ToolBridge {
  return new ToolBridge({
    session,
    registry: engine.registry,
    visibility: new ToolVisibility("tester", tools),
    budget: new RunBudget("tester", budgets),
    signal: new AbortController().signal,
    ...(stops ? { stops } : {}),
    headless: true,
    step: () => 3,
    emit: (e) => events.push(e),
  });
}

describe("the tool bridge", () => {
  it("offers the model only the tools the agent allows and does not deny", () => {
    const b = bridge({ allow: ["read", "gl*", "write"], deny: ["write"] });
    expect(b.toolIds.sort()).toEqual(["glob", "read"]);
  });

  it.each([
    ["denied", { allow: ["*"], deny: ["write"] }, 'agent "tester" denies it in its manifest'],
    ["not allowed", { allow: ["read"], deny: [] }, 'agent "tester" does not allow it in its manifest'],
  ])("refuses a %s tool at dispatch without reaching the engine", async (_what, tools, says) => {
    const b = bridge(tools);
    const envelope = await b.dispatch({
      toolCallId: "c1",
      toolName: "write",
      input: { path: "x.txt", content: "x" },
    });
    expect(envelope).toMatchObject({ type: "error", error_text: expect.stringContaining(says) });
    expect(envelope.type === "error" && envelope.error_text).toContain("Use one of:");
    expect(started).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(["tool-call", "tool-result"]);
  });

  it("says a write held behind another is queued, then running, as tool-phase events of its call", async () => {
    const b = bridge({ allow: ["*"], deny: [] });
    const first = b.dispatch({ toolCallId: "w1", toolName: "write", input: { path: "a.txt", content: "a" } });
    const second = b.dispatch({
      toolCallId: "w2",
      toolName: "write",
      input: { path: "b.txt", content: "b" },
    });
    await Promise.all([first, second]);
    const phases = events.filter((e) => e.type === "tool-phase");
    expect(phases).toEqual([
      { type: "tool-phase", step: 3, toolCallId: "w2", toolName: "write", phase: "queued" },
      { type: "tool-phase", step: 3, toolCallId: "w2", toolName: "write", phase: "running" },
    ]);
    // Live only: a replay has nothing of the moment.
    expect(phases.every((e) => isLiveOnly(e))).toBe(true);
  });

  it("ends a queued call stopped from its card at once, while the call ahead of it runs on and the one behind it waits", async () => {
    const stops = new ToolCallStops();
    const b = bridge({ allow: ["*"], deny: [] }, undefined, stops);
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const ran: string[] = [];
    engine.registry.register(
      defineBuiltin({
        id: "hold",
        description: "Changes something until released.",
        schema: z.strictObject({ name: z.string() }),
        requires: {},
        readOnly: false,
        kind: "other",
        execute: async ({ name }) => {
          ran.push(name);
          if (name === "first") await gate;
          return { name };
        },
      }),
      { layer: "builtin", kind: "builtin" },
    );
    const first = b.dispatch({ toolCallId: "h1", toolName: "hold", input: { name: "first" } });
    const second = b.dispatch({ toolCallId: "h2", toolName: "hold", input: { name: "second" } });
    const third = b.dispatch({ toolCallId: "h3", toolName: "hold", input: { name: "third" } });
    while (!ran.includes("first")) await new Promise((r) => setTimeout(r, 1));
    expect(stops.stop("h2")).toBe(true);
    // Were it to wait for its turn, this would not resolve until the first call is released.
    const backstop = setTimeout(open, 2_000);
    const stopped = await second;
    const firstStillRunning = !events.some((e) => e.type === "tool-result" && e.toolCallId === "h1");
    clearTimeout(backstop);
    expect(firstStillRunning).toBe(true);
    expect(stopped).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/aborted before it started/),
    });
    open();
    expect(await first).toMatchObject({ type: "output" });
    expect(await third).toMatchObject({ type: "output", data: { name: "third" } });
    expect(ran).toEqual(["first", "third"]);
  });

  it("passes allowed calls to session.call and reports the envelope with the model's call id and step", async () => {
    const b = bridge({ allow: ["*"], deny: [] });
    const envelope = await b.dispatch({ toolCallId: "c7", toolName: "glob", input: { pattern: "*" } });
    expect(envelope.type).toBe("output");
    expect(started).toEqual(["glob"]);
    expect(events.at(-1)).toMatchObject({
      type: "tool-result",
      step: 3,
      toolCallId: "c7",
      toolName: "glob",
      envelope,
    });
  });

  it("maps the engine's approval decision to the model's call id", async () => {
    const b = bridge({ allow: ["*"], deny: [] });
    await b.dispatch({ toolCallId: "w1", toolName: "write", input: { path: "x.txt", content: "x" } });
    expect(events.find((e) => e.type === "approval")).toEqual({
      type: "approval",
      step: 3,
      toolCallId: "w1",
      toolName: "write",
      decision: "allow",
      reason: "yolo mode",
    });
  });

  it("reports only the calls made through it, not other calls in its session", async () => {
    bridge({ allow: ["*"], deny: [] });
    await session.call("write", { path: "y.txt", content: "y" });
    expect(events).toEqual([]);
  });

  it("stops one running call alone: it ends with an error envelope, the run's other calls go on", async () => {
    const stops = new ToolCallStops();
    const b = bridge({ allow: ["*"], deny: [] }, undefined, stops);
    const slow = b.dispatch({
      toolCallId: "slow",
      toolName: "bash",
      input: { command: "touch running && sleep 30" },
    });
    // Stopped once it really runs (planning and the policy come first).
    await expect.poll(() => existsSync(path.join(base, "running")), { timeout: 10_000 }).toBe(true);
    expect(stops.has("slow")).toBe(true);
    expect(stops.stop("slow")).toBe(true);
    const envelope = await slow;
    expect(envelope).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/aborted: stopped by the person/),
    });
    expect(stops.has("slow")).toBe(false);
    // The bridge (and so the run) still takes calls.
    const next = await b.dispatch({ toolCallId: "next", toolName: "glob", input: { pattern: "*" } });
    expect(next.type).toBe("output");
    expect(stops.stop("next")).toBe(false);
  });
});
