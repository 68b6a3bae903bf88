import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, PACKAGE_ROOT } from "./support/lathe-cli.ts";

// A person's MCP servers from the shell, through `node bin/lathe.mjs`: which commands start them,
// and what `lathe tools` says about one that is not there yet.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

let script: string;
const world = useCliWorld("lathe-mcp-cli-", {
  setup: async () => {
    script = path.join(world.home, "script.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [{ name: "echo", description: "Echo the text.", inputSchema: { type: "object" } }],
      }),
    );
  },
});

const lathe = (args: string[]) => world.lathe(args);

interface Tool {
  id: string;
  enabled: boolean;
  origin: { layer: string; kind: string; name?: string };
  reason?: string;
}

async function settings(value: unknown): Promise<void> {
  await writeFile(path.join(world.home, "settings.json"), JSON.stringify(value));
}

describe("commands that only read what Lathe recorded start no MCP server", () => {
  it.each([
    ["audit", ["audit", "--limit", "5"]],
    ["session close", ["session", "close", "s1"]],
    ["run --replay", ["run", "--resume", "s1", "--replay"]],
  ])("%s", async (_name, args) => {
    await settings({ mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } } });
    // Positive control: a command that uses the tools starts the server (and says so first);
    // tool_search, as a call of a built-in such as read reaches no server and starts none.
    const call = await lathe(["call", "tool_search", '{"query":"echo"}', "--session", "s1"]);
    expect(call.stderr).toContain("starting MCP server scripted (global)");

    const run = await lathe(args);
    expect(run.stderr).not.toContain("starting MCP server");
    expect(run.stderr).not.toContain("scripted");
  });
});

describe("the user's own MCP server after its command line changed", () => {
  it("is stopped, says to run lathe trust --mcp-server, and that approves the new command line", async () => {
    await settings({ mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } } });
    const first = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(first.find((t) => t.id === "echo")).toMatchObject({ enabled: true });

    // The person edits their settings: a new argument.
    await settings({
      mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script, "--verbose"] } },
    });
    const changed = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(changed.find((t) => t.id === "echo")).toBeUndefined();
    const stopped = changed.find((t) => t.id === "scripted");
    expect(stopped?.enabled).toBe(false);
    expect(stopped?.reason).toMatch(
      /changed since you approved it .*--verbose\)\. Review it, then run: lathe trust --mcp-server scripted$/,
    );

    const review = await lathe(["trust", "--dry-run"]);
    expect(review.stdout).toMatch(/mcp\s+scripted \(changed since you last trusted it\): .*--verbose/);
    expect(review.stdout).toContain("your own server");

    // What the reason says to run approves that server alone, not the folder.
    const trusted = await lathe(["trust", "--mcp-server", "scripted"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(
      /^Approved MCP server scripted \(global, .*--verbose\n {2}pinned with 1 tool: echo\n$/,
    );
    const after = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(after.find((t) => t.id === "echo")).toMatchObject({
      enabled: true,
      origin: { layer: "global", kind: "mcp", name: "scripted" },
    });
    expect(after.find((t) => t.id === "scripted")).toBeUndefined();
  });
});

describe("the user's own MCP server after one of its tools changed", () => {
  it("disables that tool, says to approve the server, and lathe trust --mcp-server does", async () => {
    await settings({ mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } } });
    const first = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(first.find((t) => t.id === "echo")).toMatchObject({ enabled: true });

    // The server is upgraded: its tool now says something else.
    await writeFile(
      script,
      JSON.stringify({
        tools: [
          { name: "echo", description: "Echo the text, then mail it.", inputSchema: { type: "object" } },
        ],
      }),
    );
    const hint =
      /changed since you approved it \(the description now reads: "Echo the text, then mail it\."\)\. Review it, then run: lathe trust --mcp-server scripted$/;
    const changed = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(changed.find((t) => t.id === "echo")).toMatchObject({
      enabled: false,
      reason: expect.stringMatching(hint),
    });

    // Trusting the folder does not approve it (it does not start the user's servers to look).
    expect((await lathe(["trust"])).code).toBe(0);
    const still = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(still.find((t) => t.id === "echo")?.enabled).toBe(false);

    // Approving starts and pins the server: with --revoke or --dry-run that is not what was asked.
    for (const flag of ["--revoke", "--dry-run"]) {
      const clash = await lathe(["trust", "--mcp-server", "scripted", flag]);
      expect(clash, flag).toMatchObject({ code: 2, stdout: "" });
      expect(clash.stderr).toContain(
        `--mcp-server approves the server now (it starts it and pins it), so it cannot be combined with ${flag}.`,
      );
      expect(clash.stderr).not.toContain("starting MCP server");
    }
    const unapproved = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(unapproved.find((t) => t.id === "echo")?.enabled).toBe(false);

    const approved = await lathe(["trust", "--mcp-server", "scripted"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(
      /^Approved MCP server scripted \(global, .*settings\.json\): .*scripted-mcp-server\.ts/,
    );
    expect(approved.stdout).toContain("pinned with 1 tool: echo");
    const after = JSON.parse((await lathe(["tools", "--json"])).stdout) as Tool[];
    expect(after.find((t) => t.id === "echo")).toMatchObject({ enabled: true });

    const unknown = await lathe(["trust", "--mcp-server", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `error: There is no MCP server "nope" in your settings or ${world.root}'s (there are: scripted). Check the name in the "mcpServers" of your settings.\n`,
    );
  });
});

describe("a call to a tool of an MCP server that is down", () => {
  it("is unknown, and the envelope says which server is down and why", async () => {
    await settings({
      mcpServers: {
        gone: { command: path.join(world.home, "no-such-server") },
        scripted: { command: process.execPath, args: [SCRIPTED, script] },
      },
    });
    const run = await lathe(["call", "lookup", "{}"]);
    expect(run.code).toBe(1);
    const text = envelopeOf(run).error_text ?? "";
    expect(text).toMatch(/^Unknown tool "lookup"\. Available tools: .*echo/);
    expect(text).toContain(
      `MCP server "gone" is not available, so its tools are not listed (a call to one of them is refused like this one until the user fixes it): MCP server "gone" is not connected: it failed to start (the command "${path.join(world.home, "no-such-server")}" was not found (there is no such file)`,
    );
    // Only servers that are down are named.
    expect(text).not.toContain('MCP server "scripted"');
  });
});
