import { describe, expect, it } from "vitest";
import { CHANNELS, type Envelope, type ToolInfo } from "../../shared/api-contract.ts";
import type { ExtensionsStatus } from "../../shared/extensions-schemas.ts";
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
  deferred: false,
  shadows: [],
};

const status = { root: "/work/project", trusted: false, notices: [] };

/** The channels a test does not exercise: each one fails loudly if it is reached. */
const untouched = Object.fromEntries(
  CHANNELS.map((channel) => [
    channel,
    () => Promise.reject(new Error(`${channel} is not part of this test`)),
  ]),
) as unknown as ApiHandlers;

function recordingRouter() {
  const calls: unknown[] = [];
  const errors: unknown[] = [];
  const handlers: ApiHandlers = {
    ...untouched,
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

const emptyStatus: ExtensionsStatus = {
  projectTrusted: true,
  userSettingsFile: "/home/u/.lathe/settings.json",
  plugins: [],
  mcpServers: [],
  disabled: [],
};
const stdio = { transport: "stdio", command: "node", args: ["server.js", "stdio"], env: { TOKEN: "x" } };
const http = { transport: "http", url: "https://mcp.example.test/mcp", headers: { Authorization: null } };
const HASH = "a".repeat(64);

/** A router whose extension channels record the validated request they were given. */
function extensionRouter() {
  const seen: Array<[string, unknown]> = [];
  const record = (channel: string) => (request: unknown) => {
    seen.push([channel, request]);
    return emptyStatus;
  };
  const router = new ApiRouter({
    ...untouched,
    "extensions.status": record("extensions.status"),
    "plugins.setEnabled": record("plugins.setEnabled"),
    "plugins.approve": record("plugins.approve"),
    "mcp.preview": (request) => {
      seen.push(["mcp.preview", request]);
      return { commandLine: "cd /p && node server.js stdio", digest: HASH, exists: false };
    },
    "mcp.save": record("mcp.save"),
    "mcp.remove": record("mcp.remove"),
    "mcp.setEnabled": record("mcp.setEnabled"),
    "mcp.restart": record("mcp.restart"),
    "mcp.log": (request) => {
      seen.push(["mcp.log", request]);
      return { name: request.name, file: "/l/mcp-x.log", lines: [] };
    },
  });
  return { router, seen };
}

describe("ApiRouter: the extensions channels", () => {
  it("hands each handler the validated request (defaults filled in)", async () => {
    const { router, seen } = extensionRouter();
    const requests: Array<[string, unknown]> = [
      ["extensions.status", undefined],
      ["plugins.setEnabled", { layer: "bundled", name: "word_count", enabled: false }],
      ["plugins.approve", { name: "greet", hash: HASH }],
      ["mcp.preview", { name: "everything", server: stdio }],
      ["mcp.save", { name: "remote", server: http, mode: "add", confirmedDigest: HASH }],
      ["mcp.remove", { name: "everything" }],
      ["mcp.setEnabled", { name: "everything", enabled: true }],
      ["mcp.restart", { name: "everything" }],
      ["mcp.log", { name: "everything" }],
    ];
    for (const [channel, payload] of requests) {
      const answer = await router.dispatch(channel, payload);
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
    }
    expect(seen.at(-1)).toEqual(["mcp.log", { name: "everything", lines: 200 }]);
    expect(seen.map(([channel]) => channel)).toEqual(requests.map(([channel]) => channel));
  });

  it.each([
    { name: "status with arguments", channel: "extensions.status", payload: { all: true }, message: /all/ },
    {
      name: "a plugin layer that does not exist",
      channel: "plugins.setEnabled",
      payload: { layer: "builtin", name: "read", enabled: false },
      message: /layer/,
    },
    {
      name: "a plugin name with a path",
      channel: "plugins.setEnabled",
      payload: { layer: "global", name: "../evil", enabled: false },
      message: /name/,
    },
    {
      name: "a plugin name with a layer prefix",
      channel: "plugins.setEnabled",
      payload: { layer: "global", name: "bundled:x", enabled: true },
      message: /name/,
    },
    {
      name: "enabled as a string",
      channel: "plugins.setEnabled",
      payload: { layer: "global", name: "x", enabled: "yes" },
      message: /enabled/,
    },
    {
      name: "an approval without a hash",
      channel: "plugins.approve",
      payload: { name: "greet" },
      message: /hash/,
    },
    {
      name: "an approval with a short hash",
      channel: "plugins.approve",
      payload: { name: "greet", hash: "abc" },
      message: /hash/,
    },
    {
      name: "a server name with a slash",
      channel: "mcp.preview",
      payload: { name: "a/b", server: stdio },
      message: /name/,
    },
    {
      name: "a server name that is too long",
      channel: "mcp.remove",
      payload: { name: "s".repeat(65) },
      message: /name/,
    },
    {
      name: "a server without a transport",
      channel: "mcp.preview",
      payload: { name: "x", server: { command: "node", args: [], env: {} } },
      message: /transport/,
    },
    {
      name: "an empty command",
      channel: "mcp.preview",
      payload: { name: "x", server: { ...stdio, command: "   " } },
      message: /command/,
    },
    {
      name: "arguments that are not strings",
      channel: "mcp.preview",
      payload: { name: "x", server: { ...stdio, args: [1, 2] } },
      message: /args/,
    },
    {
      name: "an environment variable name with a space",
      channel: "mcp.preview",
      payload: { name: "x", server: { ...stdio, env: { "MY VAR": "1" } } },
      message: /env/,
    },
    {
      name: "an extra key in a stdio server",
      channel: "mcp.preview",
      payload: { name: "x", server: { ...stdio, shell: true } },
      message: /shell/,
    },
    {
      name: "a file: URL",
      channel: "mcp.preview",
      payload: { name: "x", server: { transport: "http", url: "file:///etc/passwd", headers: {} } },
      message: /url/,
    },
    {
      name: "a header name with a colon",
      channel: "mcp.preview",
      payload: { name: "x", server: { transport: "http", url: "https://a.test", headers: { "X:Y": "1" } } },
      message: /headers/,
    },
    {
      name: "a save without the digest of the confirmed command",
      channel: "mcp.save",
      payload: { name: "x", server: stdio, mode: "add" },
      message: /confirmedDigest/,
    },
    {
      name: "a save with an unknown mode",
      channel: "mcp.save",
      payload: { name: "x", server: stdio, mode: "upsert", confirmedDigest: "0".repeat(64) },
      message: /mode/,
    },
    { name: "a restart without a name", channel: "mcp.restart", payload: {}, message: /name/ },
    {
      name: "a log of a million lines",
      channel: "mcp.log",
      payload: { name: "x", lines: 1_000_000 },
      message: /lines/,
    },
    { name: "a log of -1 lines", channel: "mcp.log", payload: { name: "x", lines: -1 }, message: /lines/ },
    { name: "setEnabled as a string", channel: "mcp.setEnabled", payload: "on", message: /Invalid request/ },
  ])("rejects $name without running a handler", async ({ channel, payload, message }) => {
    const { router, seen } = extensionRouter();
    const answer = await router.dispatch(channel, payload);
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(message);
    expect(seen).toEqual([]);
  });
});
