// The Settings, Audit and model picker channels through the router as the renderer uses them: a
// UI connection over real engines in a temp $LATHE_HOME, settings files on disk, loopback stand-ins
// for the local model servers, and a real stdio MCP server that waits for a person's yes.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../../test/fixtures/local-model-servers.ts";
import { closedPort, localProvidersAt } from "../../../test/support/closed-port.ts";
import type { ApiResult, Channel } from "../../shared/api-contract.ts";
import type { AuditPage } from "../../shared/audit-schemas.ts";
import type { ExtensionsStatus } from "../../shared/extensions-schemas.ts";
import type { ModelCatalog } from "../../shared/model-catalog-schemas.ts";
import type { PermissionsView, RuleCheck } from "../../shared/permission-schemas.ts";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import type { SandboxReport } from "../../shared/sandbox-schemas.ts";
import { Engine, TrustStore, type ApprovalRequest } from "../engine/index.ts";
import { EngineHost, createLoggedEngine } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";
import { UnsandboxedMcpGate } from "./unsandboxed-mcp-gate.ts";

const REPO = path.resolve(import.meta.dirname, "../../..");
const TINY_GGUF = path.resolve(REPO, "../shared/models/llama-2-tiny-random.gguf");
const SCRIPTED_MCP = path.join(REPO, "test/fixtures/scripted-mcp-server.ts");

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
const opened: UiConnection[] = [];

async function settings(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(value, null, 2));
}

async function start(
  options: { userSettings?: unknown; gate?: UnsandboxedMcpGate; extensions?: boolean } = {},
) {
  // No test asks whatever answers on the local servers' usual ports.
  await settings(path.join(latheHome, "settings.json"), {
    providers: localProvidersAt(await closedPort()),
    ...(options.userSettings as object),
  });
  const extensions = options.extensions ?? false;
  const gate = options.gate;
  const create = (folder: string) =>
    extensions
      ? createLoggedEngine(folder, { latheHome, ...(gate ? { approveUnsandboxedMcp: gate.approver } : {}) })
      : Engine.create({ root: folder, latheHome, extensions: false });
  engine = await create(root);
  host = new EngineHost({
    engine,
    watchIntervalMs: 0,
    createEngine: create,
    ...(gate ? { unsandboxedMcp: gate } : {}),
  });
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-settings-api-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(root, { recursive: true });
  await writeFile(path.join(root, "README.md"), "# project\n");
});

afterEach(async () => {
  for (const connection of opened.splice(0)) await connection.close();
  await host?.close();
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

function connect(timeoutMs = 1_000) {
  const frames: PushFrame[] = [];
  const connection = new UiConnection({
    host,
    modelProbeTimeoutMs: timeoutMs,
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
  opened.push(connection);
  const dispatch = (channel: Channel, request?: unknown): Promise<ApiResult<unknown>> =>
    connection.router.dispatch(channel, request);
  return { connection, frames, dispatch };
}

function data<T>(answer: ApiResult<unknown>): T {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data as T;
}

function failure(answer: ApiResult<unknown>): string {
  if (answer.ok) throw new Error(`expected a refusal, got ${JSON.stringify(answer.data)}`);
  return answer.error.message;
}

const userFile = () => path.join(latheHome, "settings.json");
const projectFile = () => path.join(root, ".lathe", "settings.json");

describe("permissions in Settings", () => {
  it("saves a scope's rules into its settings file, keeps the rest of the file, and the new engine applies them", async () => {
    await start({ userSettings: { defaultModel: "ollama:llama3.2" } });
    const ui = connect();
    const before = data<PermissionsView>(await ui.dispatch("permissions.get"));
    expect(before.scopes).toEqual([
      { scope: "user", file: userFile(), rules: [], applies: "all" },
      { scope: "project", file: projectFile(), rules: [], applies: "deny-only" },
    ]);
    expect(before.approvals).toEqual({ mode: "ask", source: "default", allowlist: [] });

    const rules = [{ permission: "write", pattern: "notes/**", action: "allow" }];
    const after = data<PermissionsView>(
      await ui.dispatch("permissions.saveRules", { scope: "user", rules, expected: [] }),
    );
    expect(after.scopes[0]?.rules).toEqual(rules);
    const file = JSON.parse(await readFile(userFile(), "utf8")) as Record<string, unknown>;
    expect(file["permissions"]).toEqual(rules);
    expect(file["defaultModel"]).toBe("ollama:llama3.2");
    // The host moved to an engine that read the rule: the write needs no person now.
    expect(host.current).not.toBe(engine);
    const written = data<{ type: string }>(
      await ui.dispatch("tools.call", { toolId: "write", args: { path: "notes/a.md", content: "a" } }),
    );
    expect(written.type).toBe("output");
    expect(await readFile(path.join(root, "notes/a.md"), "utf8")).toBe("a");
  });

  it("keeps a trusted folder trusted when the person saves its rules here, but never re-trusts settings changed behind Lathe's back", async () => {
    await settings(projectFile(), {});
    new TrustStore(latheHome).trust(root);
    await start();
    const ui = connect();
    const rules = [{ permission: "write", pattern: "notes/**", action: "allow" }];
    const saved = data<PermissionsView>(
      await ui.dispatch("permissions.saveRules", { scope: "project", rules, expected: [] }),
    );
    expect(saved.scopes[1]).toMatchObject({ scope: "project", rules, applies: "all" });
    expect(new TrustStore(latheHome).state(root)).toBe("trusted");

    // A hook written into the file by something else: the folder is no longer trusted, and a
    // save from the editor does not launder it.
    await settings(projectFile(), { permissions: rules, hooks: [{ command: "true" }] });
    await host.reload();
    expect(new TrustStore(latheHome).state(root)).toBe("settings-changed");
    const after = data<PermissionsView>(
      await ui.dispatch("permissions.saveRules", { scope: "project", rules: [], expected: rules }),
    );
    expect(after.scopes[1]).toMatchObject({ scope: "project", applies: "deny-only" });
    expect(new TrustStore(latheHome).state(root)).toBe("settings-changed");
  });

  it("refuses a rule that is not valid, and never writes over a settings file it cannot read", async () => {
    await start();
    const ui = connect();
    expect(
      failure(
        await ui.dispatch("permissions.saveRules", {
          scope: "user",
          rules: [{ permission: "write", pattern: "x", action: "maybe" }],
          expected: [],
        }),
      ),
    ).toMatch(/Invalid request for permissions\.saveRules[\s\S]*action/);
    await mkdir(path.dirname(projectFile()), { recursive: true });
    await writeFile(projectFile(), "{ not json");
    const view = data<PermissionsView>(await ui.dispatch("permissions.get"));
    expect(view.scopes[1]?.problem).toMatch(/is not valid JSON/);
    expect(
      failure(
        await ui.dispatch("permissions.saveRules", {
          scope: "project",
          rules: [{ permission: "bash", pattern: "rm *", action: "deny" }],
          expected: [],
        }),
      ),
    ).toMatch(/is not valid JSON .*Lathe did not change it/);
    expect(await readFile(projectFile(), "utf8")).toBe("{ not json");
  });

  it("refuses to save over a file changed since the view read it, and leaves the file as it is", async () => {
    const handWritten = [{ permission: "bash", pattern: "git *", action: "allow" }];
    await start({ userSettings: { permissions: handWritten, approvals: { mode: "allowlist" } } });
    const ui = connect();
    const stale = [
      [
        "rules",
        () =>
          ui.dispatch("permissions.saveRules", {
            scope: "user",
            rules: [{ permission: "bash", pattern: "ls *", action: "ask" }],
            expected: [],
          }),
      ],
      [
        "approvals",
        () =>
          ui.dispatch("permissions.setApprovals", {
            mode: "yolo",
            allowlist: [],
            expected: { mode: null, allowlist: [] },
          }),
      ],
    ] as const;
    const before = await readFile(userFile(), "utf8");
    for (const [what, saveStale] of stale) {
      expect(failure(await saveStale()), what).toMatch(
        /settings\.json changed since this view read it .*did not save over it/,
      );
      expect(await readFile(userFile(), "utf8"), what).toBe(before);
    }
    // Positive control: the same saves, made from what the file holds, go through.
    const saved = data<PermissionsView>(
      await ui.dispatch("permissions.saveRules", {
        scope: "user",
        rules: [...handWritten, { permission: "bash", pattern: "ls *", action: "ask" }],
        expected: handWritten,
      }),
    );
    expect(saved.scopes[0]?.rules).toHaveLength(2);
    const mode = data<PermissionsView>(
      await ui.dispatch("permissions.setApprovals", {
        mode: "yolo",
        allowlist: [],
        expected: { mode: "allowlist", allowlist: [] },
      }),
    );
    expect(mode.approvals.userMode).toBe("yolo");
  });

  it("shows which scope wins: conflicts between scopes, and the rule that decides a probe call", async () => {
    await start();
    const ui = connect();
    const rules = {
      user: [
        { permission: "bash", pattern: "git push*", action: "allow" },
        { permission: "fs.write", pattern: "src/**", action: "allow" },
        { permission: "", pattern: "x", action: "allow" },
      ],
      project: [
        { permission: "bash", pattern: "git push*", action: "deny" },
        { permission: "write", pattern: "src/generated/**", action: "ask" },
      ],
    };
    const check = data<RuleCheck>(
      await ui.dispatch("permissions.check", {
        rules,
        probe: { capability: "shell.run", toolId: "bash", value: "git push origin main" },
      }),
    );
    expect(check.problems).toEqual([
      { scope: "user", index: 2, field: "permission", message: "name a tool, a capability or *" },
    ]);
    expect(check.conflicts).toEqual([
      { user: 0, project: 0, winner: "project", why: "same pattern: the stricter action (deny) wins" },
    ]);
    expect(check.verdict).toMatchObject({
      action: "deny",
      decidedBy: { scope: "project", index: 0 },
      matches: [
        { scope: "project", index: 0 },
        { scope: "user", index: 0 },
      ],
    });
    // The folder is not trusted: its ask rule is listed but ignored, so the user's allow decides.
    const write = data<RuleCheck>(
      await ui.dispatch("permissions.check", {
        rules,
        probe: { capability: "fs.write", toolId: "write", value: "src/generated/api.ts" },
      }),
    );
    expect(write.verdict).toMatchObject({
      action: "allow",
      decidedBy: { scope: "user", index: 1 },
      matches: [
        { scope: "user", index: 1 },
        { scope: "project", index: 1, ignored: "the folder is not trusted: only its deny rules apply" },
      ],
    });
    expect(write.verdict?.explanation).toMatch(/writing "src\/generated\/api\.ts" matched the user rule/);
  });

  it("sets the approval mode in the user's settings: yolo runs a write without asking, and back", async () => {
    await start();
    const ui = connect();
    const view = data<PermissionsView>(
      await ui.dispatch("permissions.setApprovals", {
        mode: "yolo",
        allowlist: ["bash:git log*"],
        expected: { mode: null, allowlist: [] },
      }),
    );
    expect(view.approvals).toEqual({
      mode: "yolo",
      source: "user",
      userMode: "yolo",
      allowlist: ["bash:git log*"],
    });
    expect(JSON.parse(await readFile(userFile(), "utf8"))).toMatchObject({
      approvals: { mode: "yolo", allowlist: ["bash:git log*"] },
    });
    await ui.dispatch("tools.call", { toolId: "write", args: { path: "y.txt", content: "y" } });
    expect(existsSync(path.join(root, "y.txt"))).toBe(true);
    expect(ui.frames.some((f) => f.event === "approval.requested")).toBe(false);

    const back = data<PermissionsView>(
      await ui.dispatch("permissions.setApprovals", {
        mode: null,
        allowlist: [],
        expected: { mode: "yolo", allowlist: ["bash:git log*"] },
      }),
    );
    expect(back.approvals).toEqual({ mode: "ask", source: "default", allowlist: [] });
    expect(JSON.parse(await readFile(userFile(), "utf8"))).not.toHaveProperty("approvals");
    const asked = ui.dispatch("tools.call", { toolId: "write", args: { path: "z.txt", content: "z" } });
    await expect.poll(() => ui.frames.some((f) => f.event === "approval.requested")).toBe(true);
    const prompt = ui.frames.find((f) => f.event === "approval.requested");
    if (prompt?.event !== "approval.requested") throw new Error("no prompt");
    data(await ui.dispatch("approval.respond", { id: prompt.payload.id, answer: "reject" }));
    await asked;
    expect(existsSync(path.join(root, "z.txt"))).toBe(false);
  });

  it('lists a session\'s "always" answers and revokes them: the next call asks again', async () => {
    await start();
    const asks: ApprovalRequest[] = [];
    const first = await engine.openSession({ id: "s-always", approver: async () => "always" });
    await first.call("write", { path: "a.txt", content: "a" });
    first.release();
    const ui = connect();
    const view = data<PermissionsView>(await ui.dispatch("permissions.get"));
    expect(view.sessions).toEqual([
      {
        sessionId: "s-always",
        title: "s-always",
        running: false,
        approvals: [{ tool: "write", key: "write:a.txt", createdAt: expect.any(Number) }],
      },
    ]);
    const revoked = data<PermissionsView>(await ui.dispatch("permissions.revoke", { sessionId: "s-always" }));
    expect(revoked.sessions).toEqual([]);
    expect(failure(await ui.dispatch("permissions.revoke", { sessionId: "s-always" }))).toMatch(
      /has no "always" answers to revoke/,
    );
    const again = await host.current.openSession({
      id: "s-always",
      approver: async (request) => (asks.push(request), "reject"),
    });
    await again.call("write", { path: "a.txt", content: "b" });
    again.release();
    expect(asks.map((a) => a.approvalKey)).toEqual(["write:a.txt"]);
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("a");
  });
});

describe("the audit view", () => {
  it("pages the trail newest first, each call with its decision chain, filtered by tool and outcome", async () => {
    await start();
    const ui = connect();
    await ui.dispatch("tools.call", { toolId: "read", args: { path: "README.md" } });
    const rejected = ui.dispatch("tools.call", { toolId: "write", args: { path: "w.txt", content: "w" } });
    await expect.poll(() => ui.frames.some((f) => f.event === "approval.requested")).toBe(true);
    const prompt = ui.frames.find((f) => f.event === "approval.requested");
    if (prompt?.event !== "approval.requested") throw new Error("no prompt");
    data(await ui.dispatch("approval.respond", { id: prompt.payload.id, answer: "reject" }));
    await rejected;
    await ui.dispatch("tools.call", { toolId: "read", args: { path: "missing.md" } });

    const all = data<AuditPage>(await ui.dispatch("audit.query", { limit: 2 }));
    expect(all.entries.map((e) => [e.toolId, e.outcome])).toEqual([
      ["read", "error"],
      ["write", "denied"],
    ]);
    expect(all.more).toBe(true);
    expect(all.tools).toEqual(["read", "write"]);
    const write = all.entries[1];
    expect(write?.args).toEqual({ path: "w.txt", content: "w" });
    expect(write?.decisions.map((d) => `${d.stage}:${d.outcome}`)).toEqual([
      "capability:allow",
      "rule:ask",
      "watchdog:allow",
      "approval:deny",
    ]);
    const older = data<AuditPage>(await ui.dispatch("audit.query", { limit: 2, beforeId: write?.id }));
    expect(older.entries.map((e) => e.toolId)).toEqual(["read"]);
    expect(older.more).toBe(false);
    const denied = data<AuditPage>(await ui.dispatch("audit.query", { outcome: "denied" }));
    expect(denied.entries.map((e) => e.toolId)).toEqual(["write"]);
    const reads = data<AuditPage>(await ui.dispatch("audit.query", { toolId: "read", outcome: "output" }));
    expect(reads.entries).toHaveLength(1);
    expect(reads.entries[0]?.sessionId).toBe(all.sessions[0]);
  });

  it("shows the open folder's calls and facets, not another folder's", async () => {
    const other = path.join(base, "other");
    await mkdir(other);
    await writeFile(path.join(other, "NOTES.md"), "# other\n");
    await start();
    const ui = connect();
    await ui.dispatch("tools.call", { toolId: "read", args: { path: "README.md" } });
    data(await ui.dispatch("project.open", { path: other }));
    await ui.dispatch("tools.call", { toolId: "glob", args: { pattern: "*.md" } });

    const there = data<AuditPage>(await ui.dispatch("audit.query", {}));
    expect(there.root).toBe(other);
    expect(there.entries.map((e) => [e.toolId, e.args])).toEqual([["glob", { pattern: "*.md" }]]);
    expect(there.tools).toEqual(["glob"]);
    expect(there.sessions).toEqual([there.entries[0]?.sessionId]);
    // A filter naming the first folder's tool finds nothing here.
    expect(data<AuditPage>(await ui.dispatch("audit.query", { toolId: "read" })).entries).toEqual([]);

    data(await ui.dispatch("project.open", { path: root }));
    const back = data<AuditPage>(await ui.dispatch("audit.query", {}));
    expect(back.root).toBe(root);
    expect(back.entries.map((e) => [e.toolId, e.args])).toEqual([["read", { path: "README.md" }]]);
    expect(back.tools).toEqual(["read"]);
    expect(back.sessions).not.toContain(there.entries[0]?.sessionId);
  });
});

describe("the model picker", () => {
  const fakes: FakeModelServer[] = [];
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close();
  });

  it("lists the servers at the addresses settings give, says which are not running, and remembers this folder's pick", async () => {
    fakes.push(await startFakeModelServer("ollama", [{ name: "qwen2.5-coder:7b", context: 32_768 }]));
    const closed = await closedPort();
    await start({
      userSettings: {
        providers: {
          ollama: { baseURL: fakes[0]?.baseURL },
          lmstudio: { baseURL: `http://127.0.0.1:${closed}/v1` },
          llamacpp: { baseURL: `http://127.0.0.1:${closed}/v1` },
          vllm: { baseURL: `http://127.0.0.1:${closed}/v1` },
        },
      },
    });
    const ui = connect();
    const catalog = data<ModelCatalog>(await ui.dispatch("models.catalog"));
    const ollama = catalog.local.find((s) => s.provider === "ollama");
    expect(ollama).toMatchObject({
      state: "running",
      models: [{ id: "ollama:qwen2.5-coder:7b", contextTokens: 32_768 }],
    });
    expect(catalog.local.find((s) => s.provider === "vllm")?.message).toBe(
      `vLLM is not running on http://127.0.0.1:${closed} (ECONNREFUSED): start it with \`vllm serve <model>\`.`,
    );
    expect(catalog.projectModel).toBeUndefined();
    const picked = data<ModelCatalog>(
      await ui.dispatch("models.setProjectModel", { model: "ollama:qwen2.5-coder:7b" }),
    );
    expect(picked.projectModel).toBe("ollama:qwen2.5-coder:7b");
    // Another connection (a reload) sees the same choice for this folder.
    expect(data<ModelCatalog>(await connect().dispatch("models.catalog")).projectModel).toBe(
      "ollama:qwen2.5-coder:7b",
    );
    expect(failure(await ui.dispatch("models.setProjectModel", { model: "no-colon" }))).toMatch(
      /use PROVIDER:MODEL/,
    );
  });

  it("adds a GGUF file to the models folder, and says why a path is refused", async () => {
    await start();
    const ui = connect();
    const catalog = data<ModelCatalog>(await ui.dispatch("models.addGguf", { path: TINY_GGUF }));
    expect(catalog.gguf.files).toEqual([
      expect.objectContaining({ name: "llama-2-tiny-random.gguf", contextTokens: 4096 }),
    ]);
    expect(catalog.gguf.folder).toBe(path.join(latheHome, "models"));
    expect(failure(await ui.dispatch("models.addGguf", { path: path.join(root, "README.md") }))).toMatch(
      /is not a GGUF model file Lathe can run/,
    );
  });
});

describe("the sandbox in Settings", () => {
  it("reports both walls from lathe doctor's check, and what the engine uses", async () => {
    await start({ userSettings: { sandbox: { enabled: false } } });
    const report = data<SandboxReport>(await connect().dispatch("sandbox.report"));
    expect(report.walls.policy.active).toBe(true);
    expect(report.walls.sandbox).toMatchObject({ active: false, enabledInSettings: false });
    expect(report.walls.sandbox.reason).toMatch(/turned off/);
    expect(report.engine).toMatchObject({ active: false });
    expect(report.checks.map((c) => c.name)).toContain("Node 24 or newer");
  });
});

describe("a stdio MCP server without the OS sandbox", () => {
  async function withServer(env: Record<string, string> = {}): Promise<UnsandboxedMcpGate> {
    const script = path.join(base, "tools.json");
    await writeFile(
      script,
      JSON.stringify({ tools: [{ name: "echo", description: "Echo.", inputSchema: { type: "object" } }] }),
    );
    const gate = new UnsandboxedMcpGate();
    await start({
      gate,
      extensions: true,
      userSettings: {
        sandbox: { enabled: false },
        mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED_MCP, script], env } },
      },
    });
    return gate;
  }

  const state = async (ui: ReturnType<typeof connect>) =>
    data<ExtensionsStatus>(await ui.dispatch("extensions.status")).mcpServers.find(
      (s) => s.name === "scripted",
    );

  it("waits for a window, asks the person with the exact command, and starts it once approved", async () => {
    await withServer();
    // The engine started before any UI: the server waits, not started.
    const ui = connect();
    await expect.poll(() => ui.frames.some((f) => f.event === "mcp.unsandboxedRequested")).toBe(true);
    const prompt = ui.frames.find((f) => f.event === "mcp.unsandboxedRequested");
    if (prompt?.event !== "mcp.unsandboxedRequested") throw new Error("no prompt");
    expect(prompt.payload).toMatchObject({ server: "scripted", layer: "global" });
    expect(prompt.payload.commandLine).toContain(SCRIPTED_MCP);
    expect(prompt.payload.reason).toMatch(/turned off/);
    expect(
      failure(await ui.dispatch("mcp.approveUnsandboxed", { id: "mcp-unsandboxed-other", approve: true })),
    ).toMatch(/no MCP server prompt/);
    data(await ui.dispatch("mcp.approveUnsandboxed", { id: prompt.payload.id, approve: true }));
    expect(ui.frames.find((f) => f.event === "mcp.unsandboxedSettled")?.payload).toEqual({
      id: prompt.payload.id,
      approved: true,
      cause: "answered",
    });
    await expect.poll(async () => (await state(ui))?.state, { timeout: 15_000 }).toBe("connected");
    // A reload (settings saved) does not ask again for the same command line.
    data(
      await ui.dispatch("permissions.setApprovals", {
        mode: null,
        allowlist: [],
        expected: { mode: null, allowlist: [] },
      }),
    );
    await expect.poll(async () => (await state(ui))?.state, { timeout: 15_000 }).toBe("connected");
    expect(ui.frames.filter((f) => f.event === "mcp.unsandboxedRequested")).toHaveLength(1);
  });

  it("asks again after an edit that changes only a value its command line masks", async () => {
    await withServer({ GITHUB_TOKEN: "ghp_first" });
    const ui = connect();
    const prompts = () =>
      ui.frames.flatMap((f) => (f.event === "mcp.unsandboxedRequested" ? [f.payload] : []));
    await expect.poll(() => prompts().length).toBe(1);
    data(await ui.dispatch("mcp.approveUnsandboxed", { id: prompts()[0]!.id, approve: true }));
    await expect.poll(async () => (await state(ui))?.state, { timeout: 15_000 }).toBe("connected");

    const script = path.join(base, "tools.json");
    const form = {
      transport: "stdio",
      command: process.execPath,
      args: [SCRIPTED_MCP, script],
      env: { GITHUB_TOKEN: "ghp_second" },
    };
    const preview = data<{ commandLine: string; digest: string }>(
      await ui.dispatch("mcp.preview", { name: "scripted", server: form }),
    );
    // Positive control: the person is shown the very line they already said yes to.
    expect(preview.commandLine).toBe(prompts()[0]!.commandLine);
    const saving = ui.dispatch("mcp.save", {
      name: "scripted",
      server: form,
      mode: "edit",
      confirmedDigest: preview.digest,
    });
    // The new token is a new start: the person is asked, and until then it does not run.
    await expect.poll(() => prompts().length, { timeout: 15_000 }).toBe(2);
    expect(prompts()[1]!.commandLine).toBe(preview.commandLine);
    data(await ui.dispatch("mcp.approveUnsandboxed", { id: prompts()[1]!.id, approve: false }));
    data(await saving);
    await expect.poll(async () => (await state(ui))?.state, { timeout: 10_000 }).toBe("disabled");
    expect((await state(ui))?.lastError).toMatch(/running it unconfined was not approved/);
  });

  it("leaves it stopped, saying why, when the person says no", async () => {
    await withServer();
    const ui = connect();
    await expect.poll(() => ui.frames.some((f) => f.event === "mcp.unsandboxedRequested")).toBe(true);
    const prompt = ui.frames.find((f) => f.event === "mcp.unsandboxedRequested");
    if (prompt?.event !== "mcp.unsandboxedRequested") throw new Error("no prompt");
    data(await ui.dispatch("mcp.approveUnsandboxed", { id: prompt.payload.id, approve: false }));
    await expect.poll(async () => (await state(ui))?.state, { timeout: 10_000 }).toBe("disabled");
    expect((await state(ui))?.lastError).toMatch(/running it unconfined was not approved/);
  });
});
