import { afterEach, describe, expect, it, vi } from "vitest";
import type * as OffloadModule from "../offload/offload.ts";
import type { JsonSchema } from "./contract.ts";
import {
  MAIN_THREAD_STEPS,
  patternCost,
  quickOnThisThread,
  stringLengths,
  worstSteps,
} from "./pattern-cost.ts";

// A call's arguments checked against a schema holding a `pattern` went to a worker thread every
// time (a pattern can backtrack for hours on one value), which cost a one-shot `lathe call` a
// worker's start. A pattern whose cost on the value is bounded is now checked on this thread;
// any other still goes to the worker.

const offloaded = vi.hoisted(() => [] as string[]);
vi.mock("../offload/offload.ts", async (original) => {
  const real = await original<typeof OffloadModule>();
  return {
    ...real,
    offload: (name: string, ...rest: unknown[]) => {
      offloaded.push(name);
      return (real.offload as (...args: unknown[]) => unknown)(name, ...rest);
    },
  };
});

const { checkArguments } = await import("./argument-check.ts");
const { checkStructuredResult } = await import("../mcp/mcp-output-schema.ts");
const { checkOutputOffThread } = await import("../plugins/plugin-output-check.ts");

afterEach(() => {
  offloaded.length = 0;
});

const ticket = (pattern: string): JsonSchema => ({
  type: "object",
  properties: { id: { type: "string", pattern } },
  required: ["id"],
});

describe("patternCost", () => {
  it.each([
    "^(\\w+\\s?)*$",
    "(a|aa)+",
    "^[a-z0-9]+(?:-[a-z0-9]+)*$",
    "^((a|b)c)+$",
    "(a)\\1",
    "(?<w>a)\\k<w>",
    "(?=a)b",
    "(?<!a)b",
  ])("leaves %s unbounded (a repeated group that chooses, a backreference, lookaround)", (source) => {
    expect(patternCost(source)).toBeUndefined();
    expect(worstSteps(source, 10)).toBe(Infinity);
  });

  it.each<[string, object]>([
    ["^[A-Z]+-[0-9]+$", { anchored: true, unbounded: 2, choices: [] }],
    ["[a-z]+x", { anchored: false, unbounded: 1, choices: [] }],
    ["^https?://[^/]+$", { anchored: true, unbounded: 1, choices: [2] }],
    ["^\\d{4}-\\d{2}-\\d{2}$", { anchored: true, unbounded: 0, choices: [] }],
    ["^(foo|bar|baz)$", { anchored: true, unbounded: 0, choices: [3] }],
    ["^a|b+", { anchored: false, unbounded: 1, choices: [2] }],
    ["^\\p{L}{1,3}[\\]|(+]$", { anchored: true, unbounded: 0, choices: [3] }],
  ])("bounds %s", (source, cost) => {
    expect(patternCost(source)).toEqual(cost);
  });

  it("grows with the value for an unanchored or repeated pattern, and stays flat for a fixed one", () => {
    expect(worstSteps("[a-z]+x", 100_000)).toBeGreaterThan(MAIN_THREAD_STEPS);
    expect(worstSteps("[a-z]+x", 100)).toBeLessThan(MAIN_THREAD_STEPS);
    expect(worstSteps("^\\d{4}-\\d{2}$", 5_000_000)).toBe("^\\d{4}-\\d{2}$".length);
  });

  it("adds up every string checked, property names included", () => {
    expect([...stringLengths({ a: ["xy", { ["k".repeat(9)]: "z" }], b: 5 })].sort((x, y) => x - y)).toEqual([
      1, 1, 1, 2, 9,
    ]);
    const one = Array.from({ length: 1 }, () => "a".repeat(100));
    const many = Array.from({ length: 10_000 }, () => "a".repeat(100));
    expect(quickOnThisThread(["[a-z]+x"], { items: one })).toBe(true);
    expect(quickOnThisThread(["[a-z]+x"], { items: many })).toBe(false);
    expect(quickOnThisThread(["^(\\w+\\s?)*$"], { id: "a" })).toBe(false);
  });
});

describe("checking arguments against a pattern", () => {
  it("runs a bounded pattern on short values here: no worker starts, and the check still works", async () => {
    const schema = ticket("^[A-Z]+-[0-9]+$");
    expect(await checkArguments("ticket", schema, { id: "LATHE-42" })).toEqual({
      args: { id: "LATHE-42" },
      invalid: undefined,
    });
    expect((await checkArguments("ticket", schema, { id: "lathe 42" })).invalid).toMatch(
      /^Invalid arguments for ticket: "id" must match pattern "\^\[A-Z\]\+-\[0-9\]\+\$"/,
    );
    expect(offloaded).toEqual([]);
  });

  it("still sends a pattern that can backtrack without end, or a bounded one on a long value, to the worker", async () => {
    expect(
      (await checkArguments("ticket", ticket("^(\\w+\\s?)*$"), { id: "two words" })).invalid,
    ).toBeUndefined();
    expect(offloaded).toEqual(["arguments.validate"]);
    const long = `${"A".repeat(50_000)}-1`;
    expect((await checkArguments("ticket", ticket("[A-Z]+-[0-9]+$"), { id: long })).invalid).toBeUndefined();
    expect(offloaded).toEqual(["arguments.validate", "arguments.validate"]);
  });

  it("checks an MCP tool's structured result the same way", async () => {
    const schema = ticket("^[A-Z]+-[0-9]+$");
    expect(await checkStructuredResult(schema, { id: "LATHE-1" })).toBeUndefined();
    expect(await checkStructuredResult(schema, { id: "nope" })).toMatch(/must match pattern/);
    expect(offloaded).toEqual([]);
    expect(await checkStructuredResult(ticket("^(\\w+\\s?)*$"), { id: "ok" })).toBeUndefined();
    expect(offloaded).toEqual(["mcp.structuredResult"]);
  });
});

describe("checking a plugin's result against a pattern", () => {
  it("leaves a bounded one to be checked here, and sends an unbounded one to the worker", async () => {
    const signal = new AbortController().signal;
    expect(
      await checkOutputOffThread("p", "/p/index.js", ticket("^[A-Z]+-[0-9]+$"), { id: "A-1" }, signal),
    ).toBe(false);
    expect(offloaded).toEqual([]);
    expect(
      await checkOutputOffThread("p", "/p/index.js", ticket("^(\\w+\\s?)*$"), { id: "ok" }, signal),
    ).toBe(true);
    expect(offloaded).toEqual(["plugin.outputCheck"]);
  });
});
