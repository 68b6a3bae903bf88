import { describe, expect, it } from "vitest";
import type { Envelope, ToolInfo } from "../../shared/api-contract.ts";
import { ApiError } from "./api-error.ts";
import { ApiRouter, type ApiHandlers } from "./api-router.ts";

const tool: ToolInfo = {
  id: "echo",
  description: "Echo",
  parameters: { type: "object" },
  requires: {},
  readOnly: true,
  gated: false,
  kind: "other",
  origin: { layer: "builtin", kind: "builtin" },
};

const status = { root: "/work/project", trusted: false, notices: [] };

/** The channels a test does not exercise: each one fails loudly if it is reached. */
const untouched: ApiHandlers = {
  "tools.list": () => Promise.reject(new Error("tools.list is not part of this test")),
  "tools.call": () => Promise.reject(new Error("tools.call is not part of this test")),
  "approval.respond": () => Promise.reject(new Error("approval.respond is not part of this test")),
  "project.status": () => Promise.reject(new Error("project.status is not part of this test")),
  "project.trust": () => Promise.reject(new Error("project.trust is not part of this test")),
};

function recordingRouter() {
  const calls: unknown[] = [];
  const errors: unknown[] = [];
  const handlers: ApiHandlers = {
    "tools.list": () => [tool],
    "tools.call": (request) => {
      calls.push(request);
      const envelope: Envelope = { type: "output", data: request.args, metadata: { duration_ms: 1 } };
      return Promise.resolve(envelope);
    },
    "approval.respond": (request) => {
      calls.push(request);
      return request;
    },
    "project.status": () => {
      calls.push("status");
      return status;
    },
    "project.trust": () => {
      calls.push("trust");
      return { ...status, trusted: true };
    },
  };
  const router = new ApiRouter(handlers, { onHandlerError: (_channel, error) => errors.push(error) });
  return { router, calls, errors };
}

describe("ApiRouter", () => {
  it("answers a valid request with {ok: true, data}", async () => {
    const { router, calls } = recordingRouter();
    expect(await router.dispatch("tools.list", undefined)).toEqual({ ok: true, data: [tool] });
    const answer = await router.dispatch("tools.call", { toolId: "echo", args: { a: 1 } });
    expect(answer).toEqual({
      ok: true,
      data: { type: "output", data: { a: 1 }, metadata: { duration_ms: 1 } },
    });
    expect(calls).toEqual([{ toolId: "echo", args: { a: 1 } }]);
  });

  it("routes the approval and project channels", async () => {
    const { router, calls } = recordingRouter();
    expect(await router.dispatch("approval.respond", { id: "approval-1", answer: "always" })).toEqual({
      ok: true,
      data: { id: "approval-1", answer: "always" },
    });
    expect(await router.dispatch("project.status", undefined)).toEqual({ ok: true, data: status });
    expect(await router.dispatch("project.trust", {})).toEqual({
      ok: true,
      data: { ...status, trusted: true },
    });
    expect(calls).toEqual([{ id: "approval-1", answer: "always" }, "status", "trust"]);
  });

  it.each([
    {
      name: "unknown channel",
      channel: "tools.delete",
      payload: {},
      message: /Unknown channel "tools.delete"/,
    },
    { name: "prototype key as channel", channel: "constructor", payload: {}, message: /Unknown channel/ },
    { name: "non-string channel", channel: 42, payload: {}, message: /Unknown channel 42/ },
    { name: "missing toolId", channel: "tools.call", payload: { args: {} }, message: /toolId/ },
    { name: "empty toolId", channel: "tools.call", payload: { toolId: "", args: {} }, message: /toolId/ },
    { name: "numeric toolId", channel: "tools.call", payload: { toolId: 7, args: {} }, message: /toolId/ },
    { name: "huge toolId", channel: "tools.call", payload: { toolId: "x".repeat(5000) }, message: /toolId/ },
    {
      name: "extra key",
      channel: "tools.call",
      payload: { toolId: "echo", args: {}, root: "/" },
      message: /root/,
    },
    { name: "payload is a string", channel: "tools.call", payload: "echo", message: /Invalid request/ },
    { name: "payload is null", channel: "tools.call", payload: null, message: /Invalid request/ },
    { name: "list with arguments", channel: "tools.list", payload: { layer: "project" }, message: /layer/ },
    { name: "list with an array", channel: "tools.list", payload: [], message: /Invalid request/ },
    {
      name: "an answer without an id",
      channel: "approval.respond",
      payload: { answer: "once" },
      message: /id/,
    },
    {
      name: "an empty approval id",
      channel: "approval.respond",
      payload: { id: "", answer: "once" },
      message: /id/,
    },
    {
      name: "a numeric approval id",
      channel: "approval.respond",
      payload: { id: 1, answer: "once" },
      message: /id/,
    },
    {
      name: "a huge approval id",
      channel: "approval.respond",
      payload: { id: "a".repeat(1000), answer: "once" },
      message: /id/,
    },
    {
      name: 'the answer "allow"',
      channel: "approval.respond",
      payload: { id: "approval-1", answer: "allow" },
      message: /answer/,
    },
    {
      name: "the answer yes as a boolean",
      channel: "approval.respond",
      payload: { id: "approval-1", answer: true },
      message: /answer/,
    },
    {
      name: "an answer with extra keys",
      channel: "approval.respond",
      payload: { id: "approval-1", answer: "once", remember: "forever" },
      message: /remember/,
    },
    {
      name: "an answer as a string",
      channel: "approval.respond",
      payload: "once",
      message: /Invalid request/,
    },
    {
      name: "trust with a root",
      channel: "project.trust",
      payload: { root: "/" },
      message: /root/,
    },
    { name: "status with arguments", channel: "project.status", payload: { root: "/" }, message: /root/ },
    { name: "trust with a string", channel: "project.trust", payload: "yes", message: /Invalid request/ },
  ])("rejects $name without running a handler", async ({ channel, payload, message }) => {
    const { router, calls } = recordingRouter();
    const answer = await router.dispatch(channel, payload);
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(message);
    expect(calls).toEqual([]);
  });

  it("wraps a handler failure, reports it, and never throws", async () => {
    const errors: unknown[] = [];
    const boom = new Error("disk on fire");
    const router = new ApiRouter(
      {
        ...untouched,
        "tools.list": () => {
          throw boom;
        },
      },
      { onHandlerError: (_channel, error) => errors.push(error) },
    );
    expect(await router.dispatch("tools.list", undefined)).toEqual({
      ok: false,
      error: { message: "tools.list failed: disk on fire" },
    });
    expect(errors).toEqual([boom]);
  });

  it("passes a deliberate refusal through as-is without reporting it as a failure", async () => {
    const errors: unknown[] = [];
    const router = new ApiRouter(
      {
        ...untouched,
        "tools.call": () => Promise.reject(new ApiError("write is not allowed here")),
      },
      { onHandlerError: (_channel, error) => errors.push(error) },
    );
    expect(await router.dispatch("tools.call", { toolId: "write", args: {} })).toEqual({
      ok: false,
      error: { message: "write is not allowed here" },
    });
    expect(errors).toEqual([]);
  });
});
