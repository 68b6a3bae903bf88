import { describe, expect, it } from "vitest";
import type {
  ApiResult,
  ApprovalAnswer,
  Envelope,
  LatheApi,
  ProjectStatus,
  ToolInfo,
} from "../../shared/api-contract.ts";
import type { TrustReview } from "../../shared/trust-review-schema.ts";
import type { ApprovalRequest, PushEvent, PushOf } from "../../shared/push-events.ts";
import { PushListeners } from "../../shared/push-listeners.ts";
import { ACTIVITY_LIMIT } from "./activity.ts";
import { argumentsTemplate } from "./arguments-template.ts";
import { createAppStore, parseArguments } from "./app-store.ts";
import { unusedApi } from "../../../test/support/unused-api.ts";

function tool(
  id: string,
  readOnly: boolean,
  parameters: Record<string, unknown> = { type: "object" },
): ToolInfo {
  return {
    id,
    description: `${id} tool`,
    parameters,
    requires: {},
    readOnly,
    gated: !readOnly,
    kind: readOnly ? "search" : "edit",
    origin: { layer: "builtin", kind: "builtin" },
    deferred: false,
    shadows: [],
  };
}

const globParams = {
  type: "object",
  properties: { pattern: { type: "string" }, path: { type: "string" } },
  required: ["pattern"],
};

/** A folder that asks for nothing: no trust dialog. */
function quietReview(root: string): TrustReview {
  return {
    root,
    trusted: false,
    settingsFile: `${root}/.lathe/settings.json`,
    settings: { rules: [], hooks: [], commands: [] },
    denyRules: 0,
    agents: [],
    extensions: [],
    problems: [],
  };
}

const untrusted: ProjectStatus = {
  root: "/work/project",
  trusted: false,
  notices: [
    "This folder is not trusted, so 1 allow/ask rule in /work/project/.lathe/settings.json is ignored",
  ],
};

function fakeApi(
  list: ApiResult<ToolInfo[]>,
  answer: ApiResult<Envelope>,
  options: {
    respond?: ApiResult<{ id: string; answer: ApprovalAnswer }>;
    /** Runs while the answer travels (another tab's answer settling the prompt first). */
    beforeRespond?: () => void;
    trust?: ApiResult<ProjectStatus>;
    open?: (path: string) => ApiResult<ProjectStatus>;
    review?: (root: string) => TrustReview;
  } = {},
) {
  let root = untrusted.root;
  const calls: unknown[] = [];
  const listeners = new PushListeners((message) => {
    throw new Error(message);
  });
  const api: LatheApi = {
    ...unusedApi(),
    tools: {
      list: () => Promise.resolve(list),
      call: (request) => {
        calls.push(request);
        return Promise.resolve(answer);
      },
      stop: () => Promise.resolve({ ok: true, data: { stopped: 0 } }),
    },
    approvals: {
      respond: (request) => {
        calls.push({ respond: request });
        options.beforeRespond?.();
        return Promise.resolve(options.respond ?? { ok: true, data: request });
      },
    },
    project: {
      status: () => Promise.resolve({ ok: true, data: untrusted }),
      review: () => Promise.resolve({ ok: true, data: options.review?.(root) ?? quietReview(root) }),
      trust: (request?: { grants?: string }) => {
        calls.push(request?.grants !== undefined ? { trust: request.grants } : "trust");
        return Promise.resolve(
          options.trust ?? { ok: true, data: { ...untrusted, trusted: true, notices: [] } },
        );
      },
    },
    projects: {
      open: ({ path }) => {
        calls.push({ open: path });
        const answer = options.open?.(path) ?? { ok: true, data: { ...untrusted, root: path } };
        if (answer.ok) root = answer.data.root;
        return Promise.resolve(answer);
      },
      recent: () => Promise.resolve({ ok: true, data: { projects: [] } }),
    },
    on: (event, listener) => listeners.add(event, listener),
  };
  /** Deliver a push the way a transport does: validated first. */
  const push = <E extends PushEvent>(event: E, payload: PushOf<E>) => listeners.deliver({ event, payload });
  return { api, calls, push };
}

function prompt(
  id: string,
  toolId = "write",
  args: unknown = { path: `${id}.txt`, content: "x" },
): ApprovalRequest {
  return {
    id,
    sessionId: "s-1",
    toolId,
    origin: { layer: "builtin", kind: "builtin" },
    args,
    approvalKey: `${toolId}:${id}`,
    reasons: ["no rule allows it"],
  };
}

const envelope: Envelope = { type: "output", data: { files: ["a.ts"] }, metadata: { duration_ms: 2 } };
const output: ApiResult<Envelope> = { ok: true, data: envelope };

describe("the app store", () => {
  it("loads the tools sorted, selects the first read-only one, and prepares its arguments", async () => {
    const { api } = fakeApi(
      { ok: true, data: [tool("write", false), tool("glob", true, globParams)] },
      output,
    );
    const store = createAppStore(api);
    await store.getState().loadTools();
    const state = store.getState();
    expect(state.toolsStatus).toBe("ready");
    expect(state.tools.map((t) => t.id)).toEqual(["glob", "write"]);
    expect(state.selectedId).toBe("glob");
    expect(JSON.parse(state.argsText["glob"] ?? "")).toEqual({ pattern: "" });
  });

  it("runs the selected read-only tool with the parsed arguments and keeps the envelope", async () => {
    const { api, calls } = fakeApi({ ok: true, data: [tool("glob", true, globParams)] }, output);
    const store = createAppStore(api);
    await store.getState().loadTools();
    store.getState().setArgs("glob", '{"pattern": "**/*.ts"}');
    await store.getState().run();
    expect(calls).toEqual([{ toolId: "glob", args: { pattern: "**/*.ts" } }]);
    expect(store.getState().result).toEqual({ toolId: "glob", status: "envelope", envelope });
    expect(store.getState().running).toBe(false);
  });

  it("sends a mutating tool too (the host asks for approval), but never invalid JSON", async () => {
    const { api, calls } = fakeApi({ ok: true, data: [tool("glob", true), tool("write", false)] }, output);
    const store = createAppStore(api);
    await store.getState().loadTools();
    store.getState().select("write");
    store.getState().setArgs("write", '{"path": "notes/new.txt", "content": "hi"}');
    await store.getState().run();
    expect(calls).toEqual([{ toolId: "write", args: { path: "notes/new.txt", content: "hi" } }]);
    store.getState().select("glob");
    store.getState().setArgs("glob", "{not json");
    await store.getState().run();
    expect(calls).toHaveLength(1);
  });

  it("keeps a result only under the tool that answered it: picking another clears it, a late answer too", async () => {
    const { api } = fakeApi({ ok: true, data: [tool("glob", true), tool("write", false)] }, output);
    const store = createAppStore(api);
    await store.getState().loadTools();
    await store.getState().run();
    expect(store.getState().result).toMatchObject({ toolId: "glob" });
    store.getState().select("glob");
    expect(store.getState().result).toMatchObject({ toolId: "glob" });
    store.getState().select("write");
    expect(store.getState().result).toBeUndefined();
    // A call whose answer comes after another tool was picked: not shown under that tool.
    store.getState().select("glob");
    const running = store.getState().run();
    store.getState().select("write");
    // What runs is still glob's call, whatever is on screen.
    expect(store.getState()).toMatchObject({ running: true, runningToolId: "glob", selectedId: "write" });
    await running;
    expect(store.getState()).toMatchObject({ running: false, runningToolId: undefined, result: undefined });
  });

  it("shows why the tools could not be listed or a call could not be made", async () => {
    const failed = createAppStore(
      fakeApi({ ok: false, error: { message: "connection refused" } }, output).api,
    );
    await failed.getState().loadTools();
    expect(failed.getState()).toMatchObject({ toolsStatus: "failed", toolsError: "connection refused" });

    const { api } = fakeApi(
      { ok: true, data: [tool("glob", true)] },
      { ok: false, error: { message: "lost" } },
    );
    const store = createAppStore(api);
    await store.getState().loadTools();
    await store.getState().run();
    expect(store.getState().result).toEqual({ toolId: "glob", status: "failed", message: "lost" });
  });
});

describe("refreshing the tools after extensions changed", () => {
  it("takes the new list without showing Loading, keeping the selection and typed arguments", async () => {
    const lists = [[tool("glob", true, globParams), tool("write", false)], [tool("glob", true, globParams)]];
    const { api } = fakeApi({ ok: true, data: [] }, output);
    api.tools.list = () => Promise.resolve({ ok: true, data: lists.shift() ?? [] });
    const store = createAppStore(api);
    await store.getState().loadTools();
    store.getState().setArgs("glob", '{"pattern": "*.md"}');
    const seen: string[] = [];
    const stop = store.subscribe((state) => seen.push(state.toolsStatus));
    await store.getState().refreshTools();
    stop();
    expect(seen).not.toContain("loading");
    expect(store.getState().tools.map((t) => t.id)).toEqual(["glob"]);
    expect(store.getState().selectedId).toBe("glob");
    expect(store.getState().argsText["glob"]).toBe('{"pattern": "*.md"}');
  });
});

describe("approvals in the app store", () => {
  it("queues prompts in the order they arrive and answers the one named", async () => {
    const { api, calls, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    push("approval.requested", prompt("a"));
    push("approval.requested", prompt("b", "bash", { command: "make && make install" }));
    push("approval.requested", prompt("a"));
    expect(store.getState().approvals.map((p) => p.id)).toEqual(["a", "b"]);

    await store.getState().respond("a", "once");
    expect(calls).toEqual([{ respond: { id: "a", answer: "once" } }]);
    expect(store.getState().approvals.map((p) => p.id)).toEqual(["b"]);
    await store.getState().respond("b", "reject");
    expect(calls).toEqual([
      { respond: { id: "a", answer: "once" } },
      { respond: { id: "b", answer: "reject" } },
    ]);
    expect(store.getState().approvals).toEqual([]);
    // Not waiting (any more): nothing to answer.
    await store.getState().respond("a", "once");
    expect(calls).toHaveLength(2);
  });

  it("drops a prompt the host settled on its own (the call was aborted)", () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    push("approval.requested", prompt("a"));
    push("approval.settled", { id: "a", answer: "reject", cause: "aborted" });
    expect(store.getState().approvals).toEqual([]);
  });

  it("closes the prompt and says why when the answer could not be delivered", async () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output, {
      respond: { ok: false, error: { message: 'There is no approval prompt "a" waiting' } },
    });
    const store = createAppStore(api);
    store.getState().connect();
    push("approval.requested", prompt("a"));
    await store.getState().respond("a", "always");
    expect(store.getState().approvals).toEqual([]);
    expect(store.getState().approvalError).toMatch(/did not reach Lathe.*no approval prompt "a"/);
  });

  it("says nothing when another tab answered the prompt first (its end arrived before the refusal)", async () => {
    let push: ReturnType<typeof fakeApi>["push"] = () => undefined;
    const fake = fakeApi({ ok: true, data: [] }, output, {
      respond: {
        ok: false,
        error: { message: 'The approval prompt "a" is over: it was already answered ("once").' },
      },
      beforeRespond: () => push("approval.settled", { id: "a", answer: "once", cause: "answered" }),
    });
    push = fake.push;
    const store = createAppStore(fake.api);
    store.getState().connect();
    push("approval.requested", prompt("a"));
    await store.getState().respond("a", "reject");
    expect(store.getState()).toMatchObject({ approvals: [], approvalError: undefined, answering: false });
  });

  it("queues the prompts a chat's history says wait, once each, behind those already there", () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    push("approval.requested", prompt("a"));
    store.getState().approvalsWaiting([prompt("a"), prompt("b")]);
    expect(store.getState().approvals.map((p) => p.id)).toEqual(["a", "b"]);
  });

  it("stops listening after disconnect", () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    const stop = store.getState().connect();
    stop();
    push("approval.requested", prompt("a"));
    expect(store.getState().approvals).toEqual([]);
  });
});

describe("activity in the app store", () => {
  const started = {
    callId: "c1",
    sessionId: "s-1",
    toolId: "write",
    args: { path: "a.txt" },
    startedAt: 1000,
  };

  it("shows a call as running, then with its outcome and duration", () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    push("tool.started", { ...started, origin: { layer: "builtin", kind: "builtin" } });
    expect(store.getState().activity).toMatchObject([{ callId: "c1", status: "running" }]);
    push("tool.finished", {
      ...started,
      origin: { layer: "builtin", kind: "builtin" },
      envelope: { type: "output", data: {}, metadata: { duration_ms: 12.4 } },
      decisions: [{ stage: "approval", outcome: "allow", reason: "approved once by the user" }],
    });
    expect(store.getState().activity).toMatchObject([
      { callId: "c1", toolId: "write", status: "output", durationMs: 12.4, detail: undefined },
    ]);
  });

  it("says why a denied call was denied, and the error of a failed one", () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    push("tool.started", started);
    push("tool.started", { ...started, callId: "c2", toolId: "read" });
    push("tool.finished", {
      ...started,
      envelope: {
        type: "error",
        error_text: "The user rejected this write call.",
        metadata: { duration_ms: 3 },
      },
      decisions: [
        { stage: "rule", outcome: "ask", reason: "no rule matches" },
        { stage: "approval", outcome: "deny", reason: "the user rejected the call" },
      ],
    });
    push("tool.finished", {
      ...started,
      callId: "c2",
      toolId: "read",
      envelope: { type: "error", error_text: "File not found: a.txt", metadata: { duration_ms: 1 } },
      decisions: [],
    });
    const [read, write] = store.getState().activity;
    expect(write).toMatchObject({ status: "denied", detail: "the user rejected the call" });
    expect(read).toMatchObject({ status: "error", detail: "File not found: a.txt" });
  });

  it("keeps the newest calls only", () => {
    const { api, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    for (let i = 0; i < ACTIVITY_LIMIT + 5; i++) push("tool.started", { ...started, callId: `c${i}` });
    const activity = store.getState().activity;
    expect(activity).toHaveLength(ACTIVITY_LIMIT);
    expect(activity[0]?.callId).toBe(`c${ACTIVITY_LIMIT + 4}`);
  });
});

describe("project trust in the app store", () => {
  it("loads the status, trusts on request, and follows pushed status", async () => {
    const { api, calls, push } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    store.getState().connect();
    await store.getState().loadProject();
    expect(store.getState().project).toEqual(untrusted);
    await store.getState().trustProject();
    expect(calls).toEqual(["trust"]);
    expect(store.getState().project).toEqual({ ...untrusted, trusted: true, notices: [] });
    push("project.status", untrusted);
    expect(store.getState().project).toEqual(untrusted);
  });

  it("trusts with the digest of the review the person was shown, for this folder only", async () => {
    const { api, calls } = fakeApi({ ok: true, data: [] }, output, {
      review: (root) => ({ ...quietReview(root), grants: "a".repeat(64) }),
    });
    const store = createAppStore(api);
    await store.getState().loadProject();
    await store.getState().loadTrustReview();
    await store.getState().trustProject();
    expect(calls).toContainEqual({ trust: "a".repeat(64) });
  });

  it("shows why trusting failed", async () => {
    const { api } = fakeApi({ ok: true, data: [] }, output, {
      trust: { ok: false, error: { message: "project.trust failed: disk full" } },
    });
    const store = createAppStore(api);
    await store.getState().trustProject();
    expect(store.getState()).toMatchObject({
      trusting: false,
      projectError: "project.trust failed: disk full",
    });
  });
});

describe("views, projects and the trust dialog in the app store", () => {
  it("opens on the chat; remembers each view's section", () => {
    const { api } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    expect(store.getState().view).toBe("chat");
    store.getState().setView("extensions", "mcp");
    store.getState().setView("tools");
    expect(store.getState()).toMatchObject({ view: "tools", sections: { extensions: "mcp", tools: "run" } });
    store.getState().setView("extensions");
    expect(store.getState().sections.extensions).toBe("mcp");
  });

  it("opens another folder: tells the caller, refreshes the tools and closes the dialog", async () => {
    const { api, calls } = fakeApi({ ok: true, data: [] }, output);
    const changed: string[] = [];
    const store = createAppStore(api, { onProjectChanged: (project) => changed.push(project.root) });
    await store.getState().loadProject();
    store.getState().setProjectDialog(true);
    expect(await store.getState().openProject("/work/other")).toBe(true);
    expect(calls).toContainEqual({ open: "/work/other" });
    expect(store.getState()).toMatchObject({ projectDialogOpen: false, project: { root: "/work/other" } });
    expect(changed).toEqual(["/work/other"]);
  });

  it("drops the workbench's result of the old folder, also one that arrives after the switch", async () => {
    const { api } = fakeApi({ ok: true, data: [tool("glob", true, globParams)] }, output);
    let answer: (result: ApiResult<Envelope>) => void = () => undefined;
    const slow: LatheApi = {
      ...api,
      tools: { ...api.tools, call: () => new Promise((resolve) => (answer = resolve)) },
    };
    const store = createAppStore(slow);
    await store.getState().loadProject();
    await store.getState().loadTools();
    store.getState().setArgs("glob", '{"pattern": "*"}');
    // A result on screen goes with its folder.
    const first = store.getState().run();
    answer(output);
    await first;
    expect(store.getState().result?.status).toBe("envelope");
    await store.getState().openProject("/work/other");
    expect(store.getState().result).toBeUndefined();
    // A call still running when another folder opens ends without a result for the new folder.
    const second = store.getState().run();
    await store.getState().openProject("/work/third");
    answer(output);
    await second;
    expect(store.getState()).toMatchObject({ running: false, result: undefined });
  });

  it("keeps the dialog open and says why a folder could not be opened", async () => {
    const { api } = fakeApi({ ok: true, data: [] }, output, {
      open: (path) => ({ ok: false, error: { message: `There is no folder ${path}.` } }),
    });
    const changed: string[] = [];
    const store = createAppStore(api, { onProjectChanged: (project) => changed.push(project.root) });
    await store.getState().loadProject();
    store.getState().setProjectDialog(true);
    expect(await store.getState().openProject("/nope")).toBe(false);
    expect(store.getState()).toMatchObject({
      projectDialogOpen: true,
      openError: "There is no folder /nope.",
      project: { root: untrusted.root },
    });
    expect(changed).toEqual([]);
  });

  it("shows the trust dialog for a folder that asks for something, once per folder after Not now", async () => {
    const asks = (root: string): TrustReview => ({
      ...quietReview(root),
      extensions: [
        {
          kind: "plugin",
          name: "word_count",
          location: `${root}/.lathe/tools/word_count`,
          pinned: "new",
          requires: { read: [], write: [], hosts: [], commands: [] },
          gated: true,
          shadows: [],
          warnings: [],
        },
      ],
    });
    const { api } = fakeApi({ ok: true, data: [] }, output, { review: asks });
    const store = createAppStore(api);
    store.getState().connect();
    await store.getState().loadProject();
    await expect.poll(() => store.getState().trustDialogOpen).toBe(true);
    expect(store.getState().trustReview?.extensions[0]?.name).toBe("word_count");
    store.getState().closeTrustDialog();
    await store.getState().loadTrustReview();
    expect(store.getState().trustDialogOpen).toBe(false);
    // Asked for explicitly (the header's badge), it shows again.
    await store.getState().loadTrustReview(true);
    expect(store.getState().trustDialogOpen).toBe(true);
    store.getState().closeTrustDialog();
    // Another folder that asks: its own first open shows the dialog.
    await store.getState().openProject("/work/second");
    await expect.poll(() => store.getState().trustDialogOpen).toBe(true);
    expect(store.getState().trustReview?.root).toBe("/work/second");
  });

  it("does not show the trust dialog for a folder that asks for nothing", async () => {
    const { api } = fakeApi({ ok: true, data: [] }, output);
    const store = createAppStore(api);
    await store.getState().loadProject();
    await expect.poll(() => store.getState().trustReview).toBeDefined();
    expect(store.getState().trustDialogOpen).toBe(false);
  });
});

describe("parseArguments", () => {
  it.each([
    { text: "", result: { args: {} } },
    { text: '{"a": 1}', result: { args: { a: 1 } } },
    { text: "[]", result: { error: expect.stringMatching(/one JSON object/) } },
    { text: "null", result: { error: expect.stringMatching(/one JSON object/) } },
    { text: '"x"', result: { error: expect.stringMatching(/one JSON object/) } },
    { text: "{oops}", result: { error: expect.stringMatching(/^Not valid JSON/) } },
  ])("$text", ({ text, result }) => {
    expect(parseArguments(text)).toEqual(result);
  });
});

describe("argumentsTemplate", () => {
  it("fills every required property with an empty value of its type", () => {
    const template = argumentsTemplate({
      type: "object",
      properties: {
        path: { type: "string" },
        offset: { type: "integer", minimum: 1 },
        all: { type: "boolean" },
        mode: { enum: ["files", "content"] },
        optional: { type: "string" },
      },
      required: ["path", "offset", "all", "mode"],
    });
    expect(JSON.parse(template)).toEqual({ path: "", offset: 1, all: false, mode: "files" });
  });

  it("gives {} for a schema without properties", () => {
    expect(argumentsTemplate({ type: "object" })).toBe("{}");
  });
});
