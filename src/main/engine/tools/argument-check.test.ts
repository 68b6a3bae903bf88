import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsCapability } from "../capability/fs-capability.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { PathScope } from "../capability/path-scope.ts";
import { bareSessionState } from "../../../../test/support/bare-session-state.ts";
import { NO_PROCESSES } from "../../../../test/support/no-process-sandbox.ts";
import { validateArguments } from "./argument-validator.ts";
import { callTool, type CallContext } from "./call-tool.ts";
import type { JsonSchema, ToolDefinition } from "./contract.ts";
import type { Envelope } from "./envelope.ts";
import { Scheduler } from "./scheduler.ts";
import { ToolRegistry } from "./tool-registry.ts";

// A tool's input schema comes from its author (an MCP server, a plugin), and its `pattern`s are
// run on what the model sends. A pattern that backtracks catastrophically on some value (the
// common `^(\w+\s?)*$` for "words separated by spaces", on a sentence ending in punctuation) must
// cost that call an error envelope, not freeze every session of the process while it runs.

/** Words separated by single spaces: a pattern people write, exponential on a value that fails. */
const WORDS = "^(\\w+\\s?)*$";
const SENTENCE = "Augusta Ada King Countess of Lovelace and daughter of Lord Byron!";

let dir: string;
let ctx: CallContext;
let ran: unknown[];

function schemaTool(id: string, parameters: JsonSchema): ToolDefinition<Record<string, unknown>, unknown> {
  return {
    id,
    description: `A tool whose schema its author wrote (${id}).`,
    parameters,
    requires: {},
    readOnly: true,
    gated: false,
    kind: "other",
    enabled: true,
    timeoutMs: 10_000,
    deriveApprovalKey: () => id,
    execute: async (args) => {
      ran.push(args);
      return { got: args };
    },
  };
}

const TOOLS: Record<string, JsonSchema> = {
  add_contact: {
    type: "object",
    properties: {
      name: { type: "string", pattern: WORDS },
      tags: { type: "array", items: { type: "string" }, default: ["new"] },
      address: {
        type: "object",
        properties: { country: { type: "string", default: "FR" } },
        default: {},
      },
    },
    required: ["name"],
  },
  label_keys: {
    type: "object",
    properties: { labels: { type: "object", patternProperties: { [WORDS]: { type: "string" } } } },
  },
};

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-argcheck-"));
  ran = [];
  const registry = new ToolRegistry();
  for (const [id, schema] of Object.entries(TOOLS))
    registry.register(schemaTool(id, schema), { layer: "global", kind: "mcp", name: "contacts" });
  const scope = (): PathScope =>
    PathScope.compile([], { workspace: [dir], "ad-hoc": [], "user-data": [], session: [] });
  ctx = {
    registry,
    session: bareSessionState("s-argcheck", path.join(dir, "session"), registry),
    scheduler: new Scheduler(),
    root: dir,
    sandbox: NO_PROCESSES,
    capabilityFor: () =>
      new FsCapability({ root: dir, read: scope(), write: scope(), hidden: HiddenPathSet.none() }),
  };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function envelopeOf(toolId: string, args: unknown, signal?: AbortSignal): Promise<Envelope> {
  return (await callTool(ctx, { toolId, args, ...(signal ? { signal } : {}) })).envelope;
}

/** Runs `work` while counting timer ticks: how often the event loop got to run meanwhile. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const started = performance.now();
  try {
    const result = await work();
    return { result, ticks, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe("a schema pattern that backtracks catastrophically on the model's value", () => {
  it("positive control: validated on this thread, a much shorter value holds the event loop thousands of times longer than one that fits", () => {
    const schema = TOOLS["add_contact"] as JsonSchema;
    const timed = (name: string): { ms: number; invalid: string | undefined } => {
      const started = performance.now();
      const invalid = validateArguments("add_contact", schema, { name });
      return { ms: performance.now() - started, invalid };
    };
    timed("warm up"); // compiles the schema
    // Compared with a value of the same length that fits, in the same run: the machine's speed
    // cancels out, and backtracking is exponential in the length (about a second here).
    const fits = [1, 2, 3, 4, 5]
      .map(() => timed("Augusta Ada King Countess of Lov"))
      .reduce((a, b) => (a.ms <= b.ms ? a : b)); // the quickest: a pause of the machine is not the check's
    const backtracks = timed("Augusta Ada King Countess of Lo!");
    expect(fits.invalid).toBeUndefined();
    expect(backtracks.invalid).toMatch(/must match pattern/);
    expect(backtracks.ms).toBeGreaterThan(1000 * Math.max(fits.ms, 0.01));
  });

  it.each([
    ["pattern", "add_contact", { name: SENTENCE }],
    ["patternProperties", "label_keys", { labels: { [SENTENCE]: "x" } }],
  ])(
    "(%s) answers an error envelope naming the pattern within seconds, runs nothing, and the event loop keeps running",
    async (_keyword, toolId, args) => {
      const { result: env, ticks, ms } = await ticksDuring(() => envelopeOf(toolId, args));
      expect(ms).toBeLessThan(10_000);
      expect(ticks).toBeGreaterThan(10);
      expect(env.type).toBe("error");
      const text = env.type === "error" ? env.error_text : "";
      expect(text).toContain(`${toolId} was not run`);
      expect(text).toContain(JSON.stringify(WORDS));
      expect(text).toMatch(/its author/);
      expect(ran).toEqual([]);
    },
    20_000,
  );

  it("stops checking as soon as the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // Below the 3 s the check is given, and with room for a worker to start on a loaded machine.
    const started = performance.now();
    const env = await envelopeOf("add_contact", { name: SENTENCE }, controller.signal);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(env).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/aborted before it started/),
    });
    expect(ran).toEqual([]);
  });
});

describe("schemas with patterns still check and fill in as before", () => {
  const cases: Array<[string, string, unknown, Envelope["type"], RegExp | unknown]> = [
    [
      "a value that matches, with defaults filled in at every depth",
      "add_contact",
      { name: "Ada Lovelace" },
      "output",
      { got: { name: "Ada Lovelace", tags: ["new"], address: { country: "FR" } } },
    ],
    [
      "a value that fails fast",
      "add_contact",
      { name: "Ada, Countess" },
      "error",
      /Invalid arguments for add_contact: "name" must match pattern "\^\(\\w\+\\s\?\)\*\$"/,
    ],
    ["a wrong type", "add_contact", { name: 7 }, "error", /"name" must be string/],
    ["a missing property", "add_contact", {}, "error", /missing required property "name"/],
    [
      "a key that matches patternProperties",
      "label_keys",
      { labels: { "big red": "x" } },
      "output",
      undefined,
    ],
  ];
  it.each(cases)("%s", async (_name, toolId, args, type, expected) => {
    const env = await envelopeOf(toolId, args);
    expect(env.type, JSON.stringify(env)).toBe(type);
    if (expected instanceof RegExp) expect(env.type === "error" && env.error_text).toMatch(expected);
    else if (expected !== undefined) expect(env.type === "output" && env.data).toEqual(expected);
  });

  it("hands the tool the arguments with their defaults, and the audit records them so", async () => {
    const finished: unknown[] = [];
    ctx = {
      ...ctx,
      observer: { started: () => undefined, finished: (record) => finished.push(record.args) },
    };
    expect((await envelopeOf("add_contact", { name: "Ada" })).type).toBe("output");
    const filled = { name: "Ada", tags: ["new"], address: { country: "FR" } };
    expect(ran).toEqual([filled]);
    expect(finished).toEqual([filled]);
  });
});
