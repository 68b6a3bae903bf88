import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// `lathe call read` in a folder with many plugins took three times as long as with a few (1.07 s
// with 300, 0.34 s with 10): every plugin folder was read, hashed and checked, and every MCP
// server started, for a call no plugin or server can take part in (a locked built-in's name
// cannot be taken). It also repeated every disabled plugin's notice on stderr. Such a call now
// loads neither; a call that can reach them (a plugin's tool, tool_search) still does.

const world = useCliWorld("lathe-call-builtin-");

/** A global plugin whose manifest is wrong, and an MCP server whose command does not exist. */
async function brokenExtensions(): Promise<void> {
  const dir = path.join(world.home, "tools", "broken");
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "tool.yaml"),
    "name: broken\nversion: 1.0.0\ndescription: Broken.\ntimeout: 100\ninput_schema: { type: object }\n",
  );
  await writeFile(path.join(dir, "index.js"), "export async function execute() { return {}; }\n");
  await writeFile(
    path.join(world.home, "settings.json"),
    JSON.stringify({ mcpServers: { ghost: { command: "lathe-no-such-mcp-server" } } }),
  );
  await writeFile(path.join(world.root, "note.txt"), "hello\n");
}

describe("lathe call of a built-in no plugin or MCP server can reach", () => {
  it("neither loads the plugins nor starts the MCP servers (no notice about either)", async () => {
    await brokenExtensions();
    const read = await world.lathe(["call", "read", '{"path":"note.txt"}']);
    expect(read.code, read.stderr).toBe(0);
    expect(envelopeOf(read)).toMatchObject({ type: "output", data: { content: "hello\n" } });
    expect(read.stderr).not.toMatch(/broken|ghost/);
  });

  it("a call that can reach them (tool_search, a plugin's tool) still loads them and says what is broken", async () => {
    await brokenExtensions();
    const search = await world.lathe(["call", "tool_search", '{"query":"broken"}']);
    expect(search.stderr).toMatch(
      /lathe: broken \(global plugin "broken"\) is disabled: .*"timeout" is not a known field/,
    );
    expect(search.stderr).toMatch(
      /lathe: ghost \(global mcp "ghost"\) is disabled: MCP server "ghost" is not connected/,
    );
    const plugin = await world.lathe(["call", "broken", "{}"]);
    expect(envelopeOf(plugin).error_text).toMatch(/^Tool "broken" \(global plugin "broken"\) is disabled/);
  });
});
