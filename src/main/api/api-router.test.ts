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
        "tools.list": () => {
          throw boom;
        },
        "tools.call": () => Promise.reject(new Error("unreachable")),
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
        "tools.list": () => [],
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
