import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import { McpManager } from "../src/main/engine/mcp/mcp-manager.ts";
import { TrustStore } from "../src/main/engine/policy/trust-store.ts";

// A stdio MCP server that fails as it starts is described by what it last wrote on stderr. That
// was the last line read at the moment the start failed: for a Node server that threw, its
// runtime's sign-off ("Node.js v24.…") rather than the error; and for one whose stderr was
// still draining (a helper it started finishing the message), a line from before the reason.

let base: string;
let cleanups: Array<() => Promise<void>>;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-start-"));
  cleanups = [];
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

/** The error a server failed to start with, its script `code` run by node, sandboxed or not. */
async function startFailure(code: string, sandbox: boolean): Promise<string | undefined> {
  const root = path.join(base, "project");
  const home = path.join(base, "home");
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  await mkdir(home, { recursive: true });
  const server = path.join(root, "server.mjs");
  await writeFile(server, code);
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      mcpServers: { broken: { command: process.execPath, args: [server] } },
      sandbox: { enabled: sandbox },
    }),
  );
  const engine = await Engine.create({ root, latheHome: home });
  const manager = new McpManager({
    registry: engine.registry,
    servers: engine.policy.mcpServers,
    trust: new TrustStore(engine.latheHome),
    root: engine.root,
    latheHome: engine.latheHome,
    sandbox: engine.sandbox,
    approveUnsandboxed: () => Promise.resolve(true),
  });
  cleanups.push(async () => {
    await manager.close();
    await engine.close();
  });
  manager.start();
  await manager.ready();
  const [status] = manager.status();
  expect(status?.state).toBe("failed");
  return status?.lastError;
}

describe("an MCP server that fails as it starts", () => {
  it("is described by its error, not by the runtime's closing line or its stack", async () => {
    const error = await startFailure(
      'process.stderr.write("loading config\\n");\nthrow new Error("GITHUB_TOKEN is not set: export it first");\n',
      true,
    );
    expect(error).toBe(
      "the server exited before it finished starting (its last output: Error: GITHUB_TOKEN is not set: export it first)",
    );
  });

  it("says the line it ended with, and the error line before it when that one tells why", async () => {
    const error = await startFailure(
      'console.error("error: no config file at ./conf.json");\nconsole.error("shutting down");\nprocess.exit(3);\n',
      true,
    );
    expect(error).toBe(
      "the server exited before it finished starting (its last output: shutting down; before that: error: no config file at ./conf.json)",
    );
  });

  it("waits briefly for its stderr to be read to the end before saying what it wrote", async () => {
    // The server exits at once; a helper it started, holding only its stderr, writes the reason
    // a moment later (as a wrapper's child, or a pipe still draining, does). Unconfined: in the
    // sandbox the helper would end with the server.
    const helper =
      'setTimeout(() => { process.stderr.write("fatal: cannot open database /var/db/app.sqlite\\n"); }, 300);';
    const error = await startFailure(
      [
        'import { spawn } from "node:child_process";',
        'process.stderr.write("starting up\\n");',
        `spawn(process.execPath, ["-e", ${JSON.stringify(helper)}], { stdio: ["ignore", "ignore", "inherit"] });`,
        "process.exit(1);",
        "",
      ].join("\n"),
      false,
    );
    expect(error).toBe(
      "the server exited before it finished starting (its last output: fatal: cannot open database /var/db/app.sqlite)",
    );
  });
});
