import { symlink } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { outputOf } from "../../../../test/support/envelope-of.ts";
import { FsCapability } from "../capability/fs-capability.ts";
import type { ToolInvocationFinished } from "../engine-events.ts";

let ws: TestWorkspace;

/** A tool that reports what its runtime was handed: the checked plan and the caller's id. */
const probe = defineBuiltin({
  id: "probe",
  description: "Reports what execute was handed.",
  schema: z.strictObject({ path: z.string().min(1) }),
  requires: { fs: { read: ["{workspace}/**"] } },
  readOnly: true,
  kind: "read",
  plan: (args) => ({ accesses: [{ capability: "fs.read", path: args.path }], unclear: [] }),
  execute: async (_args, runtime) => ({
    correlationId: runtime.correlationId ?? null,
    resolved: runtime.resolved.accesses.map((a) => (a.capability === "fs.read" ? a.path.absolute : "")),
  }),
});

beforeEach(async () => {
  ws = await openTestWorkspace();
  ws.engine.registry.register(probe, { layer: "builtin", kind: "builtin" });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await ws.cleanup();
});

describe("session.invoke", () => {
  it("answers with the envelope, the call's id as events carry it, and every stage's decision", async () => {
    await ws.put("a.txt", "hello\n");
    const finished: ToolInvocationFinished[] = [];
    ws.engine.events.on("ToolInvocationSucceeded", (e) => finished.push(e));
    const outcome = await ws.session.invoke({ toolId: "read", args: { path: "a.txt" } });
    expect(outcome.envelope).toMatchObject({ type: "output", data: { content: "hello\n" } });
    expect(finished).toHaveLength(1);
    expect(outcome.callId).toBe(finished[0]?.callId);
    expect(outcome.decisions).toEqual(finished[0]?.decisions);
    expect(outcome.decisions.map((d) => d.stage)).toEqual(["capability", "rule", "watchdog", "approval"]);
  });

  it("hands execute the caller's id and the paths the capability check resolved (a link as its target)", async () => {
    const target = await ws.put("real/file.txt", "x");
    await symlink(ws.abs("real"), ws.abs("link"));
    const outcome = await ws.session.invoke({
      toolId: "probe",
      args: { path: "link/file.txt" },
      correlationId: "call_7",
    });
    expect(outputOf(outcome.envelope)).toEqual({ correlationId: "call_7", resolved: [target] });
  });

  it("resolves a read's path once: the tool reads what the capability check resolved", async () => {
    await ws.put("a.txt", "hello\n");
    const resolve = vi.spyOn(FsCapability.prototype, "resolve");
    const outcome = await ws.session.invoke({ toolId: "read", args: { path: "a.txt" } });
    expect(outcome.envelope.type).toBe("output");
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it("still refuses a path starting with ~ when the tool runs, as before", async () => {
    const outcome = await ws.session.invoke({ toolId: "read", args: { path: "~/notes.txt" } });
    expect(outcome.envelope).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/^"~" is not expanded in "~\/notes.txt"/),
    });
  });

  it("answers a closed session's call with an error envelope, no id and no decisions", async () => {
    await ws.session.close();
    const outcome = await ws.session.invoke({ toolId: "read", args: { path: "a.txt" } });
    expect(outcome).toEqual({
      envelope: {
        type: "error",
        error_text: `Session ${ws.session.id} is closed; open a new session to call tools.`,
        metadata: { duration_ms: 0 },
      },
      callId: "",
      decisions: [],
    });
  });
});
