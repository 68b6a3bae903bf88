import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// `lathe run` with MCP servers in settings, as `lathe call` has them: the run waits for them to
// start (as every one-shot command does), so the model is offered their tools and can call them,
// and a server that cannot start is named on stderr with why.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

const world = useCliWorld("lathe-mcp-run-");

describe("lathe run with MCP servers", () => {
  it("offers the model their tools, runs its call on the server, and names a server that cannot start", async () => {
    const script = path.join(world.home, "script.json");
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
    const server = await world.serve(
      {
        models: ["fixture-model"],
        replies: (_request, index) =>
          index === 0
            ? { toolCalls: [{ name: "lookup_ticket", arguments: { id: "T-7" } }] }
            : { text: "Found it." },
      },
      {
        endpoint: false,
      },
    );
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({
        providers: { "openai-compatible": { baseURL: server.baseURL } },
        mcpServers: {
          tickets: { command: process.execPath, args: [SCRIPTED, script] },
          ghost: { command: "lathe-no-such-mcp-server" },
        },
      }),
    );
    const run = await world.lathe([
      "run",
      "Look up T-7",
      "--model",
      "openai-compatible:fixture-model",
      "--mode",
      "yolo",
    ]);
    expect(run.stderr).toContain(`lathe: starting MCP server tickets (global): cd ${world.root} && `);
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

describe("lathe run with stdio MCP servers that fails before it starts", () => {
  // The process spawner that starts the servers is started before the agent's code loads: a run
  // that then fails (an agent that does not exist, a model that names none) must still end,
  // saying what it says without servers.
  it("fails as it does without servers, and exits", async () => {
    const server = await world.serve({ models: ["fixture-model"], replies: [{ text: "unused" }] });
    const providers = { "openai-compatible": { baseURL: server.baseURL } };
    const failures = async (): Promise<Array<{ code: number | null; stderr: string }>> => [
      await world.lathe(["run", "hi", "--agent", "ghost", "--model", "openai-compatible:fixture-model"]),
      await world.lathe(["run", "hi", "--model", "ollama:"]),
    ];
    await writeFile(path.join(world.home, "settings.json"), JSON.stringify({ providers }));
    const without = await failures();
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({
        providers,
        mcpServers: {
          tickets: { command: process.execPath, args: [SCRIPTED, path.join(world.home, "none.json")] },
        },
      }),
    );
    const withServers = await failures();
    expect(without.map((r) => r.code)).toEqual([1, 2]);
    expect(withServers.map((r) => ({ code: r.code, stderr: r.stderr }))).toEqual(
      without.map((r) => ({ code: r.code, stderr: r.stderr })),
    );
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
      const log = path.join(world.root, "calls.log");
      const script = path.join(world.home, "script.json");
      await writeFile(
        script,
        JSON.stringify({
          tools: [{ name: "hang", description: "Never answers.", inputSchema: { type: "object" } }],
          callLog: log,
        }),
      );
      const server = await world.serve(
        { models: ["fixture-model"], replies: () => ({ toolCalls: [{ name: "hang", arguments: {} }] }) },
        { endpoint: false },
      );
      await writeFile(
        path.join(world.home, "settings.json"),
        JSON.stringify({
          providers: { "openai-compatible": { baseURL: server.baseURL } },
          mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } },
        }),
      );
      const env = { LATHE_DAEMON: daemon, CI: "" };
      if (daemon === "on") await world.lathe(["daemon", "start"], { env });
      try {
        const running = world.start(args, { env });
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
        if (daemon === "on") await world.lathe(["daemon", "stop"], { env });
      }
    },
    60_000,
  );
});
