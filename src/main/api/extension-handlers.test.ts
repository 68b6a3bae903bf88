import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApiResult, Channel, RequestOf, ResponseOf } from "../../shared/api-contract.ts";
import type { ExtensionsStatus } from "../../shared/extensions-schemas.ts";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import { Engine } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

// The extensions channels over a real engine, as the panels use them: every change goes to the
// user's settings file (checked byte for byte), the host reloads, and the pushes keep up.

const REPO = path.resolve(import.meta.dirname, "../../..");
const EVERYTHING = path.join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let base: string;
let root: string;
let latheHome: string;
let settingsFile: string;
let engine: Engine;
let host: EngineHost;
let ui: UiConnection;
let frames: PushFrame[];

async function start(): Promise<void> {
  engine = await Engine.create({ root, latheHome });
  host = new EngineHost({ engine, watchIntervalMs: 50 });
  frames = [];
  ui = new UiConnection({
    host,
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-extension-handlers-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  settingsFile = path.join(latheHome, "settings.json");
  await mkdir(root, { recursive: true });
  await mkdir(latheHome, { recursive: true });
});

afterEach(async () => {
  await ui?.close();
  await host?.close();
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

async function send<C extends Channel>(channel: C, request: RequestOf<C>): Promise<ApiResult<ResponseOf<C>>> {
  return ui.router.dispatch(channel, request);
}

async function ok<C extends Channel>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
  const answer = await send(channel, request);
  if (!answer.ok) throw new Error(`${channel}: ${answer.error.message}`);
  return answer.data;
}

async function refused<C extends Channel>(channel: C, request: RequestOf<C>): Promise<string> {
  const answer = await send(channel, request);
  if (answer.ok) throw new Error(`${channel} should have been refused`);
  return answer.error.message;
}

const status = () => ok("extensions.status", undefined);
const toolIds = async () => (await ok("tools.list", undefined)).map((t) => t.id);
const fileText = () => readFile(settingsFile, "utf8");
const lastPush = (): ExtensionsStatus | undefined =>
  frames.flatMap((f) => (f.event === "extensions.changed" ? [f.payload] : [])).at(-1);

async function serverIs(name: string, state: string, timeout = 30_000) {
  await expect
    .poll(async () => (await status()).mcpServers.find((s) => s.name === name)?.state, { timeout })
    .toBe(state);
  return (await status()).mcpServers.find((s) => s.name === name)!;
}

describe("plugins.setEnabled", () => {
  it("turns a bundled plugin off and on through the user's settings, keeping the file's other keys", async () => {
    await writeFile(settingsFile, JSON.stringify({ approvals: { mode: "ask" } }));
    await start();
    expect(await toolIds()).toContain("word_count");

    const off = await ok("plugins.setEnabled", { layer: "bundled", name: "word_count", enabled: false });
    expect(off.plugins.find((p) => p.name === "word_count")).toMatchObject({
      state: "disabled",
      disabledByUser: true,
    });
    expect(off.disabled.find((d) => d.id === "word_count")).toMatchObject({
      origin: { layer: "bundled", kind: "plugin", name: "word_count" },
      reason: expect.stringMatching(/You disabled the plugin word_count/),
      fix: "Enable it under Plugins.",
    });
    expect(await toolIds()).not.toContain("word_count");
    expect(JSON.parse(await fileText())).toEqual({
      approvals: { mode: "ask" },
      disabledPlugins: ["bundled:word_count"],
    });
    // Every window hears of it.
    expect(lastPush()?.plugins.find((p) => p.name === "word_count")?.disabledByUser).toBe(true);

    const on = await ok("plugins.setEnabled", { layer: "bundled", name: "word_count", enabled: true });
    expect(on.plugins.find((p) => p.name === "word_count")).toMatchObject({
      state: "loaded",
      disabledByUser: false,
    });
    expect(await toolIds()).toContain("word_count");
    expect(JSON.parse(await fileText())).toEqual({ approvals: { mode: "ask" } });
  });

  it("refuses a plugin that does not exist, writing nothing", async () => {
    await start();
    expect(
      await refused("plugins.setEnabled", { layer: "global", name: "word_count", enabled: false }),
    ).toMatch(/There is no global plugin "word_count"/);
    expect(existsSync(settingsFile)).toBe(false);
  });
});

describe("a malformed user settings file", () => {
  it("is reported, and no change is written over it", async () => {
    await start();
    const broken = '{ "mcpServers": { "a": ';
    await writeFile(settingsFile, broken);
    expect((await status()).settingsProblem).toMatch(/is not valid JSON/);
    expect(
      await refused("plugins.setEnabled", { layer: "bundled", name: "word_count", enabled: false }),
    ).toMatch(/not valid JSON.*Lathe did not change it/);
    const server = { transport: "stdio" as const, command: "node", args: [], env: {} };
    expect(
      await refused("mcp.save", {
        name: "x",
        server,
        mode: "add",
        confirmedDigest: "0".repeat(64),
      }),
    ).toMatch(/not valid JSON/);
    expect(await fileText()).toBe(broken);
  });
});

describe("MCP servers through the panel's channels", () => {
  it("adds server-everything after the confirmed command, then restarts, edits, turns off, on and removes it", async () => {
    await start();
    const server = {
      transport: "stdio" as const,
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      env: {},
    };
    const expected = `cd ${root} && ${process.execPath} ${EVERYTHING} stdio`;
    const preview = await ok("mcp.preview", { name: "everything", server });
    expect(preview).toEqual({
      commandLine: expected,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      exists: false,
    });
    const confirmedDigest = preview.digest;

    // A command other than the one shown is never saved.
    const other = await ok("mcp.preview", { name: "everything", server: { ...server, command: "true" } });
    expect(
      await refused("mcp.save", { name: "everything", server, mode: "add", confirmedDigest: other.digest }),
    ).toMatch(/not saved: the command you confirmed is not the one that would run/);
    expect(existsSync(settingsFile)).toBe(false);

    await ok("mcp.save", { name: "everything", server, mode: "add", confirmedDigest });
    expect(host.current).not.toBe(engine);
    expect(JSON.parse(await fileText())).toEqual({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
    });
    const connected = await serverIs("everything", "connected");
    expect(connected).toMatchObject({
      layer: "global",
      commandLine: expected,
      editable: true,
      canRestart: true,
    });
    expect(connected.toolCount).toBeGreaterThan(0);
    await expect.poll(toolIds, { timeout: 10_000 }).toContain("echo");
    const echo = (await ok("tools.list", undefined)).find((t) => t.id === "echo");
    expect(echo?.origin).toEqual({ layer: "global", kind: "mcp", name: "everything" });

    const log = await ok("mcp.log", { name: "everything", lines: 50 });
    expect(log.file).toBe(path.join(latheHome, "logs", "mcp-everything.log"));
    expect(log.lines.join("\n")).toMatch(/starting: cd /);

    expect(await refused("mcp.save", { name: "everything", server, mode: "add", confirmedDigest })).toMatch(
      /already an MCP server "everything"/,
    );

    const restarted = await ok("mcp.restart", { name: "everything" });
    expect(restarted.mcpServers.find((s) => s.name === "everything")?.state).toBe("connected");
    expect(restarted.mcpServers.find((s) => s.name === "everything")?.pid).not.toBe(connected.pid);

    // An edit is approved as confirmed (its pins replaced), so the server still runs.
    const edited = { ...server, env: { EXAMPLE_FLAG: "on" } };
    const { commandLine, digest } = await ok("mcp.preview", { name: "everything", server: edited });
    expect(commandLine).toBe(`cd ${root} && EXAMPLE_FLAG=on ${process.execPath} ${EVERYTHING} stdio`);
    await ok("mcp.save", { name: "everything", server: edited, mode: "edit", confirmedDigest: digest });
    expect(await serverIs("everything", "connected")).toMatchObject({ commandLine });
    expect(JSON.parse(await fileText())).toMatchObject({
      mcpServers: { everything: { env: { EXAMPLE_FLAG: "on" } } },
    });

    await ok("mcp.setEnabled", { name: "everything", enabled: false });
    const off = (await status()).mcpServers.find((s) => s.name === "everything");
    expect(off).toMatchObject({
      state: "disabled",
      disabledInSettings: true,
      canRestart: false,
      commandLine,
    });
    expect((await status()).disabled.find((d) => d.id === "everything")?.fix).toBe(
      "Enable it under MCP servers.",
    );
    expect(await toolIds()).not.toContain("echo");
    expect(await refused("mcp.restart", { name: "everything" })).toMatch(/not running in this window/);
    // Its log stays readable from the file.
    expect((await ok("mcp.log", { name: "everything", lines: 10 })).lines.length).toBeGreaterThan(0);

    await ok("mcp.setEnabled", { name: "everything", enabled: true });
    await serverIs("everything", "connected");

    await ok("mcp.remove", { name: "everything" });
    expect((await status()).mcpServers).toEqual([]);
    expect(JSON.parse(await fileText())).toEqual({ mcpServers: {} });
    expect(await refused("mcp.remove", { name: "everything" })).toMatch(
      /no MCP server "everything" in your settings/,
    );
  });

  it("keeps a saved header value the form left empty, and never sends header values to the page", async () => {
    await writeFile(
      settingsFile,
      JSON.stringify({
        mcpServers: {
          remote: {
            url: "http://127.0.0.1:9/mcp",
            headers: { Authorization: "Bearer secret" },
            disabled: true,
          },
        },
      }),
    );
    await start();
    const remote = (await status()).mcpServers.find((s) => s.name === "remote");
    expect(remote?.config).toEqual({
      transport: "http",
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: null },
    });
    expect(JSON.stringify(await status())).not.toContain("secret");

    const form = {
      transport: "http" as const,
      url: "http://127.0.0.1:9/v2",
      headers: { Authorization: null },
    };
    const { commandLine, digest } = await ok("mcp.preview", { name: "remote", server: form });
    expect(commandLine).toBe("http://127.0.0.1:9/v2 (headers: Authorization)");
    expect(digest).not.toContain("secret");
    await ok("mcp.save", { name: "remote", server: form, mode: "edit", confirmedDigest: digest });
    expect(JSON.parse(await fileText())).toEqual({
      mcpServers: {
        remote: { url: "http://127.0.0.1:9/v2", headers: { Authorization: "Bearer secret" }, disabled: true },
      },
    });
    expect(
      await refused("mcp.preview", {
        name: "other",
        server: { transport: "http", url: "http://127.0.0.1:9/x", headers: { "X-Key": null } },
      }),
    ).toMatch(/Enter a value for the header X-Key/);
  });
});

describe("confirming an MCP server whose line masks a value", () => {
  const stdio = (args: string[], env: Record<string, string>) => ({
    transport: "stdio" as const,
    command: "node",
    args,
    env,
  });
  const http = (authorization: string) => ({
    transport: "http" as const,
    url: "http://127.0.0.1:9/mcp",
    headers: { Authorization: authorization },
  });
  // Each row: the secret as reviewed, the same secret changed afterwards, and the form around it.
  it.each([
    [
      "a token in its environment",
      "ghp_reviewed",
      "ghp_other",
      (v: string) => stdio(["s.js"], { GITHUB_TOKEN: v }),
    ],
    [
      "a --token argument",
      "abcdef1234567890abcdef",
      "fedcba0987654321fedcba",
      (v: string) => stdio(["s.js", "--token", v], {}),
    ],
    ["a header value", "Bearer reviewed", "Bearer other", http],
  ])("does not save %s changed after the review as confirmed", async (_what, before, after, form) => {
    await start();
    const shown = await ok("mcp.preview", { name: "mine", server: form(before) });
    // Positive control: the line the person reviewed is the line the changed form shows too.
    expect((await ok("mcp.preview", { name: "mine", server: form(after) })).commandLine).toBe(
      shown.commandLine,
    );
    expect(
      await refused("mcp.save", {
        name: "mine",
        server: form(after),
        mode: "add",
        confirmedDigest: shown.digest,
      }),
    ).toMatch(/not saved: the command you confirmed is not the one that would run/);
    expect(existsSync(settingsFile)).toBe(false);
    // What was reviewed is saved as it was.
    await ok("mcp.save", { name: "mine", server: form(before), mode: "add", confirmedDigest: shown.digest });
    expect(await fileText()).toContain(before);
  });
});

describe("project plugins and trust", () => {
  async function writeGreet(greeting: string): Promise<void> {
    const dir = path.join(root, ".lathe", "tools", "greet");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      "name: greet\nversion: 1.0.0\ndescription: Greet.\ninput_schema:\n  type: object\n  properties: {}\nreadOnly: true\ngated: false\n",
    );
    await writeFile(
      path.join(dir, "index.js"),
      `export async function execute() { return "${greeting}"; }\n`,
    );
  }

  it("lists them as untrusted, loads them once trusted, and asks again after a change — approving only what was shown", async () => {
    await writeGreet("hello");
    await mkdir(path.join(root, ".lathe"), { recursive: true });
    await writeFile(
      path.join(root, ".lathe", "settings.json"),
      JSON.stringify({ mcpServers: { local: { command: "node", args: ["local-server.js"] } } }),
    );
    await start();
    const before = await status();
    expect(before.plugins.find((p) => p.name === "greet")).toMatchObject({
      layer: "project",
      approval: "untrusted",
    });
    // The project's server is shown with the exact command it would run, before anything starts.
    expect(before.mcpServers.find((s) => s.name === "local")).toMatchObject({
      layer: "project",
      state: "disabled",
      commandLine: `cd ${root} && node local-server.js`,
      editable: false,
      canRestart: false,
    });

    // Trusting pins the plugin; the project's server is approved too (it fails to start here).
    await ok("project.trust", undefined);
    await expect.poll(toolIds, { timeout: 10_000 }).toContain("greet");
    expect((await status()).plugins.find((p) => p.name === "greet")).toMatchObject({
      state: "loaded",
      approval: "approved",
    });

    const shownBefore = (await status()).plugins.find((p) => p.name === "greet")?.hash as string;
    await writeGreet("changed");
    await expect
      .poll(async () => (await status()).plugins.find((p) => p.name === "greet")?.approval, {
        timeout: 10_000,
      })
      .toBe("changed");
    const changed = (await status()).plugins.find((p) => p.name === "greet")!;
    expect(changed.state).toBe("disabled");
    expect(changed.hash).not.toBe(shownBefore);
    expect((await status()).disabled.find((d) => d.id === "greet")?.fix).toMatch(/approve it under Plugins/);
    // The panel shows why and the command that re-approves it; a call says the same.
    expect(changed.reason).toMatch(/changed since you trusted this project/);
    expect(changed.fix).toBe(
      `review ${path.join(root, ".lathe", "tools", "greet")}, then run \`lathe trust --root ${root}\` (or approve it in the app's Plugins panel)`,
    );
    expect(await ok("tools.call", { toolId: "greet", args: {} })).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/^Tool "greet" \(project plugin "greet"\) is disabled/),
    });

    expect(await refused("plugins.approve", { name: "greet", hash: shownBefore })).toMatch(/changed again/);
    const approved = await ok("plugins.approve", { name: "greet", hash: changed.hash as string });
    expect(approved.plugins.find((p) => p.name === "greet")).toMatchObject({
      state: "loaded",
      approval: "approved",
    });
    const call = await ok("tools.call", { toolId: "greet", args: {} });
    expect(call).toMatchObject({ type: "output", data: "changed" });
  });
});

describe("plugins.log", () => {
  it("reads the tail of a plugin's log file: its lines, and Lathe's note of a failed call with the file and line", async () => {
    const dir = path.join(latheHome, "tools", "noisy");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      "name: noisy\nversion: 1.0.0\ndescription: Logs, then fails.\ninput_schema:\n  type: object\n  properties: {}\nreadOnly: true\ngated: false\n",
    );
    await writeFile(
      path.join(dir, "index.js"),
      'export async function execute(args, runtime) {\n  runtime.log("about to fail");\n  throw new Error("nope");\n}\n',
    );
    await start();
    const listed = (await status()).plugins.find((p) => p.name === "noisy");
    expect(listed?.logFile).toBe(path.join(latheHome, "logs", "plugins", "noisy.log"));
    expect(await ok("plugins.log", { layer: "global", name: "noisy", lines: 10 })).toEqual({
      name: "noisy",
      layer: "global",
      file: listed?.logFile,
      lines: [],
    });

    expect(await ok("tools.call", { toolId: "noisy", args: {} })).toMatchObject({ type: "error" });
    await expect
      .poll(async () => (await ok("plugins.log", { layer: "global", name: "noisy", lines: 10 })).lines)
      .toEqual([
        expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[global\] about to fail$/),
        expect.stringMatching(
          new RegExp(`\\[global\\] lathe: call failed: nope \\(thrown at ${dir}/index\\.js:3:9\\)$`),
        ),
      ]);
    expect(await refused("plugins.log", { layer: "project", name: "noisy", lines: 10 })).toMatch(
      /There is no project plugin "noisy"/,
    );
  });
});
