import { describe, expect, it } from "vitest";
import type { ApiResult, Envelope, LatheApi, ToolInfo } from "../../shared/api-contract.ts";
import { argumentsTemplate } from "./arguments-template.ts";
import { createAppStore, parseArguments } from "./app-store.ts";

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
  };
}

const globParams = {
  type: "object",
  properties: { pattern: { type: "string" }, path: { type: "string" } },
  required: ["pattern"],
};

function fakeApi(list: ApiResult<ToolInfo[]>, answer: ApiResult<Envelope>) {
  const calls: unknown[] = [];
  const api: LatheApi = {
    tools: {
      list: () => Promise.resolve(list),
      call: (request) => {
        calls.push(request);
        return Promise.resolve(answer);
      },
    },
  };
  return { api, calls };
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

  it("never sends a mutating tool or invalid JSON", async () => {
    const { api, calls } = fakeApi({ ok: true, data: [tool("glob", true), tool("write", false)] }, output);
    const store = createAppStore(api);
    await store.getState().loadTools();
    store.getState().select("write");
    await store.getState().run();
    store.getState().select("glob");
    store.getState().setArgs("glob", "{not json");
    await store.getState().run();
    expect(calls).toEqual([]);
    expect(store.getState().result).toBeUndefined();
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
