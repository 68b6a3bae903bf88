import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it, vi } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import { McpManager } from "../src/main/engine/mcp/mcp-manager.ts";
import { TrustStore } from "../src/main/engine/policy/trust-store.ts";
import { outputOf } from "./support/envelope-of.ts";

// The handshake names the client: a server may log it or adapt to it, so it must be Lathe's real
// version (it was a fixed "0.1.0"). A version no release has is put in place of package.json's,
// so the test tells the two apart.
vi.mock(import("../src/main/engine/config/install-root.ts"), async (original) => ({
  ...(await original()),
  latheVersion: () => "9.8.7-test",
}));

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCRIPTED = path.join(repo, "test/fixtures/scripted-mcp-server.ts");

let base: string | undefined;
afterEach(async () => {
  if (base) await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

it("names itself to an MCP server as lathe with its own version, in the handshake", async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-client-"));
  const root = path.join(base, "project");
  const home = path.join(base, "home");
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  const script = path.join(base, "script.json");
  await writeFile(
    script,
    JSON.stringify({
      tools: [{ name: "client", description: "Says who the client is.", inputSchema: { type: "object" } }],
    }),
  );
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({ mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } } }),
  );
  const engine = await Engine.create({ root, latheHome: home });
  const manager = new McpManager({
    registry: engine.registry,
    servers: engine.policy.mcpServers,
    trust: new TrustStore(engine.latheHome),
    root: engine.root,
    latheHome: engine.latheHome,
    sandbox: engine.sandbox,
  });
  try {
    manager.start();
    await manager.ready();
    manager.applyPendingChanges();
    const session = await engine.openSession({ mode: "yolo" });
    const answer = outputOf<{ content: string }>(await session.call("client", {}));
    await session.close();
    expect(JSON.parse(answer.content)).toEqual({ name: "lathe", version: "9.8.7-test" });
  } finally {
    await manager.close();
    await engine.close();
  }
});
