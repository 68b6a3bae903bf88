import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { FsCapability } from "../capability/fs-capability.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { PathScope } from "../capability/path-scope.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { SessionState } from "../session/session-state.ts";
import { bareSessionState } from "../../../../test/support/bare-session-state.ts";
import { NO_PROCESSES } from "../../../../test/support/no-process-sandbox.ts";
import { callTool, type CallContext } from "./call-tool.ts";
import type { Envelope } from "./envelope.ts";
import { Scheduler } from "./scheduler.ts";
import { ToolRegistry } from "./tool-registry.ts";
import { truncateListField } from "./truncation.ts";

let dir: string;
let ctx: CallContext;
let session: SessionState;
let internal: Array<{ toolId: string; error: unknown }>;

const echo = defineBuiltin({
  id: "echo",
  description: "Echo the text back.",
  schema: z.strictObject({ text: z.string(), times: z.number().int().min(1).default(1) }),
  requires: {},
  readOnly: true,
  kind: "other",
  execute: async ({ text, times }) => ({ text: text.repeat(times) }),
});

const sleepy = defineBuiltin({
  id: "sleepy",
  description: "Ignores its abort signal.",
  schema: z.strictObject({}),
  requires: {},
  readOnly: true,
  kind: "other",
  timeoutMs: 50,
  execute: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 2_000)),
});

const failing = defineBuiltin({
  id: "failing",
  description: "Fails.",
  schema: z.strictObject({ fixable: z.boolean() }),
  requires: {},
  readOnly: false,
  kind: "other",
  execute: async ({ fixable }) => {
    if (fixable) throw new ToolCallError("Give a smaller number and call failing again.");
    throw new Error("disk on fire");
  },
});

const lister = defineBuiltin({
  id: "lister",
  description: "Lists n items.",
  schema: z.strictObject({ n: z.number().int() }),
  requires: {},
  readOnly: true,
  kind: "search",
  execute: async ({ n }) => ({ items: Array.from({ length: n }, (_, i) => `item-${i}`) }),
  truncate: (data) => truncateListField(data, "items", 5),
});

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-call-"));
  const registry = new ToolRegistry();
  for (const t of [echo, sleepy, failing, lister])
    registry.register(t, { layer: "builtin", kind: "builtin" });
  session = bareSessionState("s-test", path.join(dir, "session"), registry);
  internal = [];
  ctx = {
    registry,
    session,
    scheduler: new Scheduler(),
    root: dir,
    // These tools start no process: a sandbox that refuses proves none tries.
    sandbox: NO_PROCESSES,
    capabilityFor: () =>
      new FsCapability({
        root: dir,
        read: PathScope.compile([], { workspace: [dir], "ad-hoc": [], "user-data": [], session: [] }),
        write: PathScope.compile([], { workspace: [dir], "ad-hoc": [], "user-data": [], session: [] }),
        hidden: HiddenPathSet.none(),
      }),
    onInternalError: (toolId, error) => internal.push({ toolId, error }),
  };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The envelope of one call through the pipeline. */
async function envelopeOf(toolId: string, args: unknown, signal?: AbortSignal): Promise<Envelope> {
  return (await callTool(ctx, { toolId, args, ...(signal ? { signal } : {}) })).envelope;
}

describe("callTool", () => {
  it("returns an output envelope with the data and a duration", async () => {
    const env = await envelopeOf("echo", { text: "ab", times: 2 });
    expect(env).toMatchObject({ type: "output", data: { text: "abab" } });
    expect(Number.isInteger(env.metadata.duration_ms)).toBe(true);
  });

  it("accepts JSON text and fills defaults", async () => {
    expect(await envelopeOf("echo", '{"text":"x"}')).toMatchObject({
      type: "output",
      data: { text: "x" },
    });
  });

  const bad: Array<[string, string, unknown, RegExp]> = [
    ["an unknown tool", "nope", {}, /Unknown tool "nope"\. Available tools: echo, failing, lister, sleepy/],
    ["bad JSON", "echo", "{text:", /not valid JSON/],
    ["a missing property", "echo", {}, /missing required property "text"/],
    ["a wrong type", "echo", { text: 5 }, /"text" must be string/],
    ["an unknown property", "echo", { text: "a", extra: 1 }, /unknown property "extra"/],
    ["an array instead of an object", "echo", "[1,2]", /the arguments must be object/],
    ["null", "echo", "null", /the arguments must be object/],
    ["a constraint", "echo", { text: "a", times: 0 }, /"times" must be >= 1/],
  ];
  it.each(bad)("turns %s into an error envelope, never a throw", async (_name, tool, args, message) => {
    const env = await envelopeOf(tool, args);
    expect(env.type).toBe("error");
    expect(env.type === "error" && env.error_text).toMatch(message);
  });

  it("stops a call that outlives its timeout and says so", async () => {
    const t0 = performance.now();
    const env = await envelopeOf("sleepy", {});
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(env).toMatchObject({ type: "error", error_text: expect.stringMatching(/timed out after 50 ms/) });
  });

  it("returns an aborted envelope as soon as the caller aborts", async () => {
    const controller = new AbortController();
    const pending = envelopeOf("sleepy", {}, controller.signal);
    setTimeout(() => controller.abort(new Error("user pressed stop")), 10);
    expect(await pending).toMatchObject({
      type: "error",
      error_text: "sleepy was aborted: user pressed stop.",
    });
  });

  it("does not start a call whose signal is already aborted", async () => {
    const env = await envelopeOf("echo", { text: "x" }, AbortSignal.abort());
    expect(env).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/aborted before it started/),
    });
  });

  it("passes a model-fixable error through verbatim", async () => {
    const env = await envelopeOf("failing", { fixable: true });
    expect(env).toMatchObject({ type: "error", error_text: "Give a smaller number and call failing again." });
    expect(internal).toHaveLength(0);
  });

  it("reports a runtime failure to the host and still answers with an envelope", async () => {
    const env = await envelopeOf("failing", { fixable: false });
    expect(env).toMatchObject({ type: "error", error_text: "failing failed: disk on fire" });
    expect(internal).toHaveLength(1);
  });

  it("cuts an oversized result to its head and writes everything to a sidecar", async () => {
    const env = await envelopeOf("lister", { n: 8 });
    expect(env.type).toBe("output");
    if (env.type !== "output") return;
    expect((env.data as { items: string[] }).items).toHaveLength(5);
    expect(env.metadata.truncated).toBe(true);
    const sidecar = env.metadata.output_path as string;
    expect(sidecar.startsWith(session.sidecarDir)).toBe(true);
    expect((await readFile(sidecar, "utf8")).trim().split("\n")).toHaveLength(8);
    await session.removeFiles();
    await expect(readFile(sidecar)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("leaves results within the cap untouched", async () => {
    const env = await envelopeOf("lister", { n: 5 });
    expect(env.metadata.truncated).toBeUndefined();
    expect(env.metadata.output_path).toBeUndefined();
  });
});
