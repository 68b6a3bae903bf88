import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callRecorder } from "../audit/call-recorder.ts";
import { FsCapability } from "../capability/fs-capability.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { PathScope } from "../capability/path-scope.ts";
import { EngineEvents } from "../engine-events.ts";
import { AuditLog } from "../store/audit-log.ts";
import { openDatabase, type Db } from "../store/database.ts";
import { callTool, type CallContext } from "./call-tool.ts";
import type { AnyTool } from "./contract.ts";
import type { Envelope } from "./envelope.ts";
import { MAX_RESULT_DEPTH } from "./json-shape.ts";
import { Scheduler } from "./scheduler.ts";
import { ToolRegistry } from "./tool-registry.ts";
import { bareSessionState } from "../../../../test/support/bare-session-state.ts";
import { NO_PROCESSES } from "../../../../test/support/no-process-sandbox.ts";

/**
 * Throw anywhere in the pipeline — lookup, the observer, argument parsing, validation, the
 * capability surface, the scheduler, the policy, the tool, its result, truncation, the sidecar,
 * the host's error hook — and the call still ends in exactly one envelope and one audit row.
 */

let dir: string;
let db: Db;
let audit: AuditLog;
let events: EngineEvents;
let internal: unknown[];

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = { down: value };
  return value;
}

function fakeTool(overrides: Partial<AnyTool> = {}): AnyTool {
  return {
    id: "victim",
    description: "A tool that fails where the test says.",
    parameters: { type: "object", additionalProperties: true },
    requires: {},
    readOnly: true,
    gated: false,
    kind: "other",
    timeoutMs: 5_000,
    enabled: true,
    deriveApprovalKey: () => "victim",
    execute: async () => ({ ok: true }),
    ...overrides,
  };
}

interface Fault {
  /** Replace parts of the tool. */
  tool?: Partial<AnyTool>;
  /** Break the context (registry, scheduler, capability, policy, session, hooks). */
  context?(ctx: CallContext): void;
  /** Break the host's event listeners. */
  listeners?(events: EngineEvents): void;
  args?: unknown;
  /** What the one envelope says. */
  expected: { type: Envelope["type"]; text?: RegExp };
}

const boom = (where: string) => () => {
  throw new Error(`boom in ${where}`);
};

const FAULTS: Record<string, Fault> = {
  "the registry lookup throws": {
    context: (ctx) => {
      ctx.registry.get = boom("registry.get");
    },
    expected: { type: "error", text: /victim failed: boom in registry\.get/ },
  },
  "a ToolInvocationStarted listener throws": {
    listeners: (e) => e.on("ToolInvocationStarted", boom("started listener")),
    expected: { type: "output" },
  },
  "an argument getter throws while it is parsed": {
    tool: { parameters: { type: "object", properties: { x: { type: "string" } } } },
    args: Object.defineProperty({}, "x", { enumerable: true, get: boom("args getter") }),
    expected: { type: "error", text: /boom in args getter/ },
  },
  "the schema fails to compile at call time": {
    context: (ctx) => {
      const tool = ctx.registry.get("victim")?.tool as { parameters: unknown };
      tool.parameters = { type: "object", properties: { x: { type: "no-such-type" } } };
    },
    expected: { type: "error" },
  },
  "the capability surface throws": {
    context: (ctx) => {
      ctx.capabilityFor = boom("capabilityFor");
    },
    expected: { type: "error", text: /boom in capabilityFor/ },
  },
  "the scheduler throws": {
    context: (ctx) => {
      ctx.scheduler.take = boom("scheduler");
    },
    expected: { type: "error", text: /boom in scheduler/ },
  },
  "the policy throws": {
    context: (ctx) => {
      ctx.decide = boom("decide");
    },
    expected: { type: "error", text: /boom in decide/ },
  },
  "the policy answers with garbage": {
    context: (ctx) => {
      ctx.decide = async () => ({ allowed: true, stages: 42 }) as never;
    },
    expected: { type: "error" },
  },
  "the per-call timeout throws": {
    tool: { callTimeoutMs: boom("callTimeoutMs") },
    expected: { type: "error", text: /boom in callTimeoutMs/ },
  },
  "execute throws a non-Error": {
    tool: {
      execute: () => {
        throw { message: undefined, toString: boom("toString of the thrown value") };
      },
    },
    expected: { type: "error", text: /victim failed: an error that cannot be printed/ },
  },
  "execute returns a result nested 5,000 deep": {
    tool: { execute: async () => nested(5_000) },
    expected: { type: "error", text: new RegExp(`nested deeper than ${MAX_RESULT_DEPTH} levels`) },
  },
  "execute returns a cycle": {
    tool: {
      execute: async () => {
        const a: Record<string, unknown> = { b: {} };
        (a.b as Record<string, unknown>).a = a;
        return a;
      },
    },
    expected: { type: "error", text: /contains a cycle/ },
  },
  "execute returns a BigInt": {
    tool: { execute: async () => ({ n: 10n }) },
    expected: { type: "error", text: /BigInt/ },
  },
  "truncation throws": {
    tool: { truncate: boom("truncate") },
    expected: { type: "error", text: /could not be cut to size: victim failed: boom in truncate/ },
  },
  "truncation overflows the stack": {
    tool: {
      execute: async () => nested(MAX_RESULT_DEPTH - 1),
      truncate: (data: unknown) => {
        const recurse = (n: number): number => recurse(n + 1) + 1;
        return { data, full: String(recurse(0)) };
      },
    },
    expected: { type: "error", text: /Maximum call stack size exceeded/ },
  },
  "writing the sidecar throws": {
    tool: { truncate: (data: unknown) => ({ data: "head", full: JSON.stringify(data) }) },
    context: (ctx) => {
      ctx.session.writeSidecar = boom("writeSidecar");
    },
    expected: { type: "output" },
  },
  "a ToolInvocationSucceeded listener throws": {
    listeners: (e) => e.on("ToolInvocationSucceeded", boom("finished listener")),
    expected: { type: "output" },
  },
  "the host's error hook throws too": {
    tool: { execute: boom("execute") },
    context: (ctx) => {
      ctx.onInternalError = boom("onInternalError");
    },
    expected: { type: "error", text: /victim failed: boom in execute/ },
  },
};

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-faults-"));
  db = openDatabase(":memory:");
  audit = new AuditLog(db);
  events = new EngineEvents();
  internal = [];
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

function contextFor(tool: AnyTool): CallContext {
  const registry = new ToolRegistry();
  registry.register(tool, { layer: "global", kind: "plugin", name: "victim" });
  const scope = PathScope.compile([], { workspace: [dir], "ad-hoc": [], "user-data": [], session: [] });
  return {
    registry,
    session: bareSessionState("s-faults", path.join(dir, "session"), registry),
    sandbox: NO_PROCESSES,
    scheduler: new Scheduler(),
    root: dir,
    capabilityFor: () =>
      new FsCapability({ root: dir, read: scope, write: scope, hidden: HiddenPathSet.none() }),
    observer: callRecorder("s-faults", dir, events, () => audit),
    onInternalError: (_toolId, error) => internal.push(error),
  };
}

describe("a throw anywhere in the pipeline still ends in one envelope and one audit row", () => {
  it.each(Object.entries(FAULTS))("%s", async (_name, fault) => {
    const tool = fakeTool(fault.tool);
    const ctx = contextFor(tool);
    fault.context?.(ctx);
    fault.listeners?.(events);
    const failed: unknown[] = [];
    events.on("ToolInvocationFailed", (e) => failed.push(e));

    const { envelope } = await callTool(ctx, { toolId: "victim", args: fault.args ?? {} });

    expect(envelope.type).toBe(fault.expected.type);
    if (fault.expected.text)
      expect(envelope.type === "error" ? envelope.error_text : "").toMatch(fault.expected.text);
    expect(() => JSON.stringify(envelope)).not.toThrow();
    const rows = audit.query({ sessionId: "s-faults" });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ toolId: "victim", outcome: envelope.type });
    if (envelope.type === "error") expect(failed).toHaveLength(1);
  });

  it("the positive control: the same 5,000-deep result really overflows a plain serializer", () => {
    expect(() => JSON.stringify(nested(5_000), null, 2)).toThrow(RangeError);
  });
});

describe("an audit trail that cannot be written (the disk is full)", () => {
  it("the call that ran is reported once, no further call runs, and nothing is lost once there is room", async () => {
    const failures: unknown[] = [];
    audit = new AuditLog(db, { onFailure: (error) => failures.push(error) });
    let runs = 0;
    const ctx = contextFor(fakeTool({ execute: async () => ({ run: ++runs }) }));
    // SQLite's own "database or disk is full": the file may not grow by one more page.
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    const big = { text: "x".repeat(60_000) }; // more than the pages left: its row cannot fit

    const first = await callTool(ctx, { toolId: "victim", args: big });
    expect(first.envelope.type).toBe("output");
    expect(() => audit.flush()).not.toThrow(); // nor from the event loop (it once crashed the CLI)
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(
      /StoreError: Lathe could not save its data in :memory:: the disk is full \(SQLITE_FULL\)\. Free some space on that disk/,
    );

    const refused = await callTool(ctx, { toolId: "victim", args: {} });
    expect(refused.envelope).toMatchObject({ type: "error" });
    expect(refused.envelope.type === "error" && refused.envelope.error_text).toMatch(
      /^victim was not run: Lathe cannot record tool calls in its audit trail, and runs none it cannot record\. Lathe could not save its data .*the disk is full.* Tell the user; every call fails the same way until then\.$/,
    );
    expect(runs).toBe(1);
    expect(audit.unwritten()).toBe(2);

    db.pragma("max_page_count = 1000000");
    const later = await callTool(ctx, { toolId: "victim", args: {} });
    expect(later.envelope).toMatchObject({ type: "output", data: { run: 2 } });
    audit.flush();
    expect(audit.query({ sessionId: "s-faults" }).map((r) => r.outcome)).toEqual([
      "output",
      "error",
      "output",
    ]);
    expect(failures).toHaveLength(1);
    expect(audit.unwritten()).toBe(0);
  });
});
