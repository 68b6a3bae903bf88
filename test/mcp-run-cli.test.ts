import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOpenAICompatibleServer, type FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { PACKAGE_ROOT, runLathe } from "./support/lathe-cli.ts";
import { startLathe } from "./support/lathe-process.ts";

// `lathe run` with MCP servers in settings, as `lathe call` has them: the run waits for them to
// start (as every one-shot command does), so the model is offered their tools and can call them,
// and a server that cannot start is named on stderr with why.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

let home: string;
let root: string;
let server: FixtureServer | undefined;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-run-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-run-root-")));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

describe("lathe run with MCP servers", () => {
  it("offers the model their tools, runs its call on the server, and names a server that cannot start", async () => {
    const script = path.join(home, "script.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [
          {
            name: "lookup_ticket",
            description: "Look up a ticket.",
            inputSchema: { type: "object", properties: { id: { type: "string" } } },
          },
        ],
      }),
    );
    server = await startOpenAICompatibleServer({
      models: ["fixture-model"],
      replies: (_request, index) =>
        index === 0
          ? { toolCalls: [{ name: "lookup_ticket", arguments: { id: "T-7" } }] }
          : { text: "Found it." },
    });
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({
        providers: { "openai-compatible": { baseURL: server.baseURL } },
        mcpServers: {
          tickets: { command: process.execPath, args: [SCRIPTED, script] },
          ghost: { command: "lathe-no-such-mcp-server" },
        },
      }),
    );
    const run = await runLathe(
      ["run", "Look up T-7", "--model", "openai-compatible:fixture-model", "--mode", "yolo"],
      { home, cwd: root },
    );
    expect(run.stderr).toContain(`lathe: starting MCP server tickets (global): cd ${root} && `);
    expect(run.stderr).toMatch(
      /lathe: ghost \(global mcp "ghost"\) is disabled: MCP server "ghost" is not connected: it failed to start \(the command "lathe-no-such-mcp-server" was not found/,
    );
    expect(run.code, run.stderr).toBe(0);
    const [first, second] = server.requests;
    expect(first?.tools?.map((t) => t.function.name)).toContain("lookup_ticket");
    const answer = second?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(answer?.content))).toEqual({
      type: "output",
      data: { content: 'called lookup_ticket with {"id":"T-7"}' },
      metadata: expect.any(Object),
    });
    expect(run.stdout).toBe("Found it.\n");
  }, 60_000);
});

describe("Ctrl-C while an MCP tool call is running", () => {
  it.each([
    ["lathe call", "off", ["call", "hang", "{}", "--mode", "yolo"]],
    ["lathe call", "on", ["call", "hang", "{}", "--mode", "yolo"]],
    ["lathe run", "off", ["run", "Wait.", "--model", "openai-compatible:fixture-model", "--mode", "yolo"]],
  ] as const)(
    "%s (daemon %s): the server is told the request is cancelled before it is shut down",
    async (_command, daemon, args) => {
      // The server appends to this log (in the workspace: a confined server may write there).
      const log = path.join(root, "calls.log");
      const script = path.join(home, "script.json");
      await writeFile(
        script,
        JSON.stringify({
          tools: [{ name: "hang", description: "Never answers.", inputSchema: { type: "object" } }],
          callLog: log,
        }),
      );
      server = await startOpenAICompatibleServer({
        models: ["fixture-model"],
        replies: () => ({ toolCalls: [{ name: "hang", arguments: {} }] }),
      });
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          providers: { "openai-compatible": { baseURL: server.baseURL } },
          mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } },
        }),
      );
      const env = { LATHE_DAEMON: daemon, CI: "" };
      if (daemon === "on") await runLathe(["daemon", "start"], { home, cwd: root, env });
      try {
        const running = startLathe(args, { home, cwd: root, env });
        const lines = (): string[] => (existsSync(log) ? readFileSync(log, "utf8").split("\n") : []);
        await running.until(
          "the call to reach the server",
          () => lines().some((l) => l.startsWith("started ")),
          30_000,
        );
        running.child.kill("SIGINT");
        const { code } = await running.exited;
        expect(code, running.stderr()).toBe(1);
        const id = lines()[0]?.slice("started ".length);
        // The reason is the one Lathe's abort gave, sent in notifications/cancelled: a server
        // stopped without it would log only `started` (or another reason, had its input closed).
        expect(lines()).toEqual([`started ${id}`, `cancelled ${id}: Error: interrupted (SIGINT)`, ""]);
      } finally {
        if (daemon === "on") await runLathe(["daemon", "stop"], { home, cwd: root, env });
      }
    },
    60_000,
  );
});
