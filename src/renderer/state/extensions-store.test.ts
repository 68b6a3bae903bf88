import { describe, expect, it } from "vitest";
import type { ApiResult, LatheApi } from "../../shared/api-contract.ts";
import type { ExtensionsStatus, McpPreview } from "../../shared/extensions-schemas.ts";
import { PushListeners } from "../../shared/push-listeners.ts";
import { createExtensionsStore } from "./extensions-store.ts";
import { unusedApi } from "../../../test/support/unused-api.ts";

/** What the host hands back with a preview: opaque to the store, sent back as it came. */
const DIGEST = "ab".repeat(32);

const status: ExtensionsStatus = {
  projectTrusted: true,
  userSettingsFile: "/home/u/.lathe/settings.json",
  plugins: [
    {
      name: "word_count",
      layer: "bundled",
      dir: "/lathe/plugins/word_count",
      state: "loaded",
      version: "1.0.0",
      logFile: "/home/u/.lathe/logs/plugins/word_count.log",
      disabledByUser: false,
    },
  ],
  mcpServers: [
    {
      name: "files",
      layer: "global",
      state: "connected",
      commandLine: "cd /p && npx -y files",
      toolCount: 4,
      source: "/home/u/.lathe/settings.json",
      canRestart: true,
      editable: true,
      disabledInSettings: false,
      config: { transport: "stdio", command: "npx", args: ["-y", "files"], env: {} },
    },
    {
      name: "shared",
      layer: "project",
      state: "connected",
      commandLine: "cd /p && node shared.js",
      toolCount: 1,
      source: "/p/.lathe/settings.json",
      canRestart: true,
      editable: false,
      disabledInSettings: false,
    },
  ],
  disabled: [],
};

interface Script {
  preview?: ApiResult<McpPreview>;
  save?: ApiResult<ExtensionsStatus>;
  setEnabled?: ApiResult<ExtensionsStatus>;
}

function fakeApi(script: Script = {}) {
  const calls: Array<[string, unknown]> = [];
  const listeners = new PushListeners((message) => {
    throw new Error(message);
  });
  const record =
    <T>(name: string, answer: () => ApiResult<T>) =>
    (request?: unknown) => {
      calls.push([name, request]);
      return Promise.resolve(answer());
    };
  const api: LatheApi = {
    ...unusedApi(),
    extensions: { status: record("status", () => ({ ok: true, data: status })) },
    plugins: {
      setEnabled: record("plugins.setEnabled", () => script.setEnabled ?? { ok: true, data: status }),
      approve: record("plugins.approve", () => ({ ok: true, data: status })),
      log: record("plugins.log", () => ({
        ok: true,
        data: {
          name: "word_count",
          layer: "bundled",
          file: "/home/u/.lathe/logs/plugins/word_count.log",
          lines: ["2025-06-01T10:00:00.000Z [bundled] counted 3 words"],
        },
      })),
    },
    mcp: {
      ...unusedApi().mcp,
      preview: record(
        "mcp.preview",
        () =>
          script.preview ?? {
            ok: true,
            data: { commandLine: "cd /p && node s.js --flag", digest: DIGEST, exists: false },
          },
      ),
      save: record("mcp.save", () => script.save ?? { ok: true, data: status }),
      remove: record("mcp.remove", () => ({ ok: true, data: status })),
      setEnabled: record("mcp.setEnabled", () => ({ ok: true, data: status })),
      restart: record("mcp.restart", () => ({ ok: true, data: status })),
      log: record("mcp.log", () => ({
        ok: true,
        data: { name: "files", file: "/l/mcp-files.log", lines: ["a", "b"] },
      })),
    },
    on: (event, listener) => listeners.add(event, listener),
  };
  return { api, calls, listeners };
}

describe("the extensions store", () => {
  it("shows the exact command from the host before saving, and saves with its digest as confirmed", async () => {
    const { api, calls } = fakeApi();
    let changes = 0;
    const store = createExtensionsStore(api, { onChanged: () => changes++ });
    store.getState().openAddForm();
    store.getState().editDraft({ name: "mine", command: "node", argsText: "s.js\n--flag" });
    await store.getState().review();
    expect(store.getState().form?.confirm).toEqual({
      commandLine: "cd /p && node s.js --flag",
      digest: DIGEST,
    });
    expect(calls.map(([name]) => name)).toEqual(["mcp.preview"]);

    await store.getState().confirm();
    expect(calls.at(-1)).toEqual([
      "mcp.save",
      {
        name: "mine",
        server: { transport: "stdio", command: "node", args: ["s.js", "--flag"], env: {} },
        mode: "add",
        confirmedDigest: DIGEST,
      },
    ]);
    expect(store.getState().form).toBeUndefined();
    expect(store.getState().status).toEqual(status);
    expect(changes).toBe(1);
  });

  it("never asks the host about a draft with errors, and an edit after review needs a new review", async () => {
    const { api, calls } = fakeApi();
    const store = createExtensionsStore(api);
    store.getState().openAddForm();
    store.getState().editDraft({ name: "a b", command: "" });
    await store.getState().review();
    expect(store.getState().form?.errors).toMatchObject({
      name: expect.any(String),
      command: expect.any(String),
    });
    expect(calls).toEqual([]);

    store.getState().editDraft({ name: "ok", command: "node" });
    await store.getState().review();
    expect(store.getState().form?.confirm).toBeDefined();
    store.getState().editDraft({ command: "bash" });
    expect(store.getState().form?.confirm).toBeUndefined();
    await store.getState().confirm();
    expect(calls.map(([name]) => name)).toEqual(["mcp.preview"]);
  });

  it("refuses to add a name that exists, and shows why a save failed without closing the form", async () => {
    const taken = fakeApi({
      preview: { ok: true, data: { commandLine: "x", digest: DIGEST, exists: true } },
    });
    const store = createExtensionsStore(taken.api);
    store.getState().openAddForm();
    store.getState().editDraft({ name: "files", command: "node" });
    await store.getState().review();
    expect(store.getState().form?.errors.name).toMatch(/already a server "files"/);
    expect(store.getState().form?.confirm).toBeUndefined();

    const failing = fakeApi({
      save: { ok: false, error: { message: "the settings file is not valid JSON" } },
    });
    const second = createExtensionsStore(failing.api);
    second.getState().openAddForm();
    second.getState().editDraft({ name: "mine", command: "node" });
    await second.getState().review();
    await second.getState().confirm();
    expect(second.getState().form).toMatchObject({
      confirm: undefined,
      busy: false,
      error: expect.stringMatching(/not valid JSON/),
    });
  });

  it("opens the edit form only for a server in the user's settings", async () => {
    const { api } = fakeApi();
    const store = createExtensionsStore(api);
    await store.getState().load();
    store.getState().openEditForm("shared");
    expect(store.getState().form).toBeUndefined();
    expect(store.getState().actionError).toMatch(/not in your settings/);
    store.getState().openEditForm("files");
    expect(store.getState().form?.draft).toMatchObject({
      mode: "edit",
      name: "files",
      argsText: "-y\nfiles",
    });
  });

  it("keeps one action at a time and shows a refusal", async () => {
    const { api, calls } = fakeApi({ setEnabled: { ok: false, error: { message: "no such plugin" } } });
    const store = createExtensionsStore(api);
    const first = store.getState().setPluginEnabled("bundled", "word_count", false);
    const second = store.getState().restartServer("files");
    await Promise.all([first, second]);
    expect(calls.map(([name]) => name)).toEqual(["plugins.setEnabled"]);
    expect(store.getState().actionError).toBe("no such plugin");
    expect(store.getState().pending).toBeUndefined();
  });

  it("follows extensions.changed pushes and reads a server's log", async () => {
    const { api, listeners } = fakeApi();
    let changes = 0;
    const store = createExtensionsStore(api, { onChanged: () => changes++ });
    const stop = store.getState().connect();
    listeners.deliver({ event: "extensions.changed", payload: status });
    expect(store.getState().status).toEqual(status);
    expect(changes).toBe(1);
    stop();
    listeners.deliver({ event: "extensions.changed", payload: { ...status, projectTrusted: false } });
    expect(store.getState().status?.projectTrusted).toBe(true);

    await store.getState().openLog("files");
    expect(store.getState().log).toMatchObject({
      name: "files",
      file: "/l/mcp-files.log",
      lines: ["a", "b"],
    });
  });

  it("reads a plugin's log file, refreshes it, and forgets it when closed", async () => {
    const { api, calls } = fakeApi();
    const store = createExtensionsStore(api);
    await store.getState().openPluginLog("bundled", "word_count");
    expect(calls.at(-1)).toEqual(["plugins.log", { layer: "bundled", name: "word_count", lines: 500 }]);
    expect(store.getState().pluginLog).toMatchObject({
      name: "word_count",
      file: "/home/u/.lathe/logs/plugins/word_count.log",
      lines: ["2025-06-01T10:00:00.000Z [bundled] counted 3 words"],
      loading: false,
    });
    // The MCP log view is a different one: opening a plugin's log leaves it alone.
    expect(store.getState().log).toBeUndefined();
    await store.getState().refreshPluginLog();
    expect(calls.filter(([name]) => name === "plugins.log")).toHaveLength(2);
    store.getState().closePluginLog();
    expect(store.getState().pluginLog).toBeUndefined();
    await store.getState().refreshPluginLog();
    expect(calls.filter(([name]) => name === "plugins.log")).toHaveLength(2);
  });
});
