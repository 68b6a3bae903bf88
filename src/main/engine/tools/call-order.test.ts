import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { FsCapability } from "../capability/fs-capability.ts";
import { PathScope } from "../capability/path-scope.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { bareSessionState } from "../../../../test/support/bare-session-state.ts";
import { NO_PROCESSES } from "../../../../test/support/no-process-sandbox.ts";
import { callTool, type CallContext } from "./call-tool.ts";
import type { CallPhase } from "./call-phase.ts";
import type { ToolCall } from "./tool-call.ts";
import { Scheduler } from "./scheduler.ts";
import { ToolRegistry } from "./tool-registry.ts";

// How calls a model makes together are ordered and stopped, as the chat's cards show them.

let dir: string;
let ctx: CallContext;
const log: string[] = [];
const gates = new Map<string, PromiseWithResolvers<void>>();

function gate(name: string): PromiseWithResolvers<void> {
  let g = gates.get(name);
  if (!g) {
    g = Promise.withResolvers<void>();
    gates.set(name, g);
  }
  return g;
}

/** A write that runs until its gate opens. */
const hold = defineBuiltin({
  id: "hold",
  description: "Writes until released.",
  schema: z.strictObject({ name: z.string() }),
  requires: {},
  readOnly: false,
  kind: "other",
  execute: async ({ name }) => {
    log.push(`start ${name}`);
    await gate(name).promise;
    log.push(`end ${name}`);
    return { name };
  },
});

/** A write whose arguments hold a pattern, so they are checked on a worker (slower than inline). */
const patterned = defineBuiltin({
  id: "patterned",
  description: "Writes; its argument has a pattern.",
  schema: z.strictObject({ name: z.string().regex(/^[a-z0-9]+$/) }),
  requires: {},
  readOnly: false,
  kind: "other",
  execute: async ({ name }) => {
    log.push(`start ${name}`);
    return { name };
  },
});

/** A write that asks for an access while it runs, and gives up after 50 ms. */
const asker = defineBuiltin({
  id: "asker",
  description: "Asks while it runs.",
  schema: z.strictObject({}),
  requires: {},
  readOnly: false,
  kind: "other",
  timeoutMs: 50,
  execute: async (_args, runtime) => {
    await runtime.authorize({ capability: "fs.write", path: "a.txt" });
    return { wrote: true };
  },
});

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-order-"));
  log.length = 0;
  gates.clear();
  const registry = new ToolRegistry();
  for (const t of [hold, patterned, asker]) registry.register(t, { layer: "builtin", kind: "builtin" });
  const scope = () => PathScope.compile([], { workspace: [dir], "ad-hoc": [], "user-data": [], session: [] });
  ctx = {
    registry,
    session: bareSessionState("s-order", path.join(dir, "session"), registry),
    scheduler: new Scheduler(),
    root: dir,
    sandbox: NO_PROCESSES,
    capabilityFor: () =>
      new FsCapability({ root: dir, read: scope(), write: scope(), hidden: HiddenPathSet.none() }),
  };
});

afterEach(async () => {
  for (const g of gates.values()) g.resolve();
  await rm(dir, { recursive: true, force: true });
});

function issue(toolId: string, args: unknown, options: { signal?: AbortSignal; phases?: CallPhase[] } = {}) {
  const phases = options.phases;
  return callTool(ctx, {
    toolId,
    args,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(phases ? { onPhase: (p: CallPhase) => void phases.push(p) } : {}),
  }).then((outcome) => {
    log.push(`result ${(args as { name?: string }).name ?? toolId}`);
    return outcome.envelope;
  });
}

describe("calls issued together", () => {
  it("a queued write stopped from its card ends at once as stopped, and the call behind it still waits its turn", async () => {
    const stop = new AbortController();
    const first = issue("hold", { name: "w1" });
    const secondPhases: CallPhase[] = [];
    const second = issue("hold", { name: "w2" }, { signal: stop.signal, phases: secondPhases });
    const third = issue("hold", { name: "w3" });
    await waitUntil(() => log.includes("start w1"));
    // Backstop: were the stopped call to wait for its turn, w1 still ends (later) and the log shows it.
    const backstop = setTimeout(() => gate("w1").resolve(), 1_500);
    stop.abort(new Error("user pressed stop"));
    const stopped = await second;
    clearTimeout(backstop);
    expect(stopped).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/aborted before it started/),
    });
    expect(log).toEqual(["start w1", "result w2"]);
    expect(secondPhases).toEqual(["queued"]);
    gate("w1").resolve();
    gate("w3").resolve();
    expect(await first).toMatchObject({ type: "output" });
    expect(await third).toMatchObject({ type: "output", data: { name: "w3" } });
    // w3 ran after w1 ended, as issued; the stopped w2 never ran.
    expect(log.indexOf("start w3")).toBeGreaterThan(log.indexOf("end w1"));
    expect(log).not.toContain("start w2");
  });

  it("runs writes in the order they were issued, even when the first one's arguments take longer to check", async () => {
    const firstPhases: CallPhase[] = [];
    const secondPhases: CallPhase[] = [];
    const first = issue("patterned", { name: "p1" }, { phases: firstPhases });
    const second = issue("hold", { name: "w2" }, { phases: secondPhases });
    gate("w2").resolve();
    await Promise.all([first, second]);
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start p1", "start w2"]);
    // The first ran at once (no phase); the second waited behind it and says so, in that order.
    expect(firstPhases).toEqual([]);
    expect(secondPhases).toEqual(["queued", "running"]);
  });

  it("says no phase of a call after its result, whatever the policy says of it later", async () => {
    let asked: ToolCall | undefined;
    ctx.authorize = (call) => {
      asked = call;
      call.phase?.("awaiting-approval");
      // An identical call's prompt is still up: the answer comes after this call gave up.
      return new Promise(() => {});
    };
    const phases: CallPhase[] = [];
    const envelope = await issue("asker", {}, { phases });
    expect(envelope).toMatchObject({ type: "error", error_text: expect.stringMatching(/timed out/) });
    expect(phases).toEqual(["awaiting-approval"]);
    asked?.phase?.("running");
    expect(phases).toEqual(["awaiting-approval"]);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 1));
}
