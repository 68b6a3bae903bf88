import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import type { McpEvent } from "../src/main/engine/mcp/mcp-event.ts";
import { McpManager } from "../src/main/engine/mcp/mcp-manager.ts";
import { TrustStore } from "../src/main/engine/policy/trust-store.ts";
import { errorOf } from "./support/envelope-of.ts";

// A connected stdio MCP server that dies is described by what it last wrote on stderr. That was
// read the moment its exit was seen, so a reason written just after (by a helper it started, or
// still in the pipe) was left out: "the server process exited", and nothing of why. A server
// that fails as it starts already waited for its stderr (mcp-start-failure.test.ts).

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCRIPTED = path.join(repo, "test/fixtures/scripted-mcp-server.ts");
const REASON = "fatal: lost the database at /var/db/app.sqlite";

let base: string | undefined;
afterEach(async () => {
  if (base) await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A connected scripted server whose `exit_saying` tool kills it, and the engine and manager around it. */
async function lostServerWorld() {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-lost-"));
  const root = path.join(base, "project");
  const home = path.join(base, "home");
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  const script = path.join(base, "script.json");
  await writeFile(
    script,
    JSON.stringify({
      stderr: "serving\n",
      tools: [
        {
          name: "exit_saying",
          description: "Dies, saying why a moment later.",
          inputSchema: { type: "object" },
        },
      ],
    }),
  );
  // Unconfined: in the sandbox the helper holding its stderr would end with the server.
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } },
      sandbox: { enabled: false },
    }),
  );
  const engine = await Engine.create({ root, latheHome: home });
  const events: McpEvent[] = [];
  const manager = new McpManager({
    registry: engine.registry,
    servers: engine.policy.mcpServers,
    trust: new TrustStore(engine.latheHome),
    root: engine.root,
    latheHome: engine.latheHome,
    sandbox: engine.sandbox,
    approveUnsandboxed: () => Promise.resolve(true),
    // The retry comes after the reason is in: a new attempt's own output is not the old one's.
    backoff: { initialMs: 4_000, maxMs: 4_000 },
    onEvent: (e) => events.push(e),
  });
  manager.start();
  await manager.ready();
  manager.applyPendingChanges();
  expect(manager.status()[0]?.state).toBe("connected");
  return { home, engine, events, manager };
}

/** What Lathe noted in the server's log, without the time stamps. */
async function notesOf(home: string): Promise<string[]> {
  const log = await readFile(path.join(home, "logs", "mcp-scripted.log"), "utf8");
  return log
    .split("\n")
    .filter((line) => line.startsWith("[lathe "))
    .map((line) => line.replace(/^\[lathe [^\]]+\] /, ""));
}

it("quotes the reason a connected server wrote just after it exited, and reconnects as before", async () => {
  const { home, engine, events, manager } = await lostServerWorld();
  try {
    const session = await engine.openSession({ mode: "yolo" });
    const text = errorOf(await session.call("exit_saying", { text: `${REASON}\n`, ms: 300 }));
    await session.close();
    expect(text).toMatch(/^MCP server "scripted" disconnected during the call to exit_saying/);
    // The loss is seen at once (calls are refused, the retry is planned) ...
    await until("the loss", () => manager.status()[0]?.state === "reconnecting", 2_000);

    // ... and its message quotes the reason once it has been written.
    await until("the reason", () => manager.status()[0]?.lastError?.includes(REASON) === true);
    expect(manager.status()[0]).toMatchObject({
      state: "reconnecting",
      lastError: `the server process exited (its last output: ${REASON})`,
    });
    // The app is told too, and the server's log says it.
    const said = events.filter(
      (e) => e.type === "state" && e.server === "scripted" && e.state === "reconnecting",
    );
    expect(said.at(-1)).toMatchObject({ error: `the server process exited (its last output: ${REASON})` });
    await until("the reconnect", () => manager.status()[0]?.state === "connected", 10_000);
    // The log says the loss once, with its reason, then the retry (it said it twice: at the
    // exit without the reason, and again "once its stderr ended").
    const notes = await notesOf(home);
    const loss = notes.findIndex((n) => n.includes("exited"));
    expect(notes.filter((n) => n.includes("exited"))).toEqual([
      `the server process exited (its last output: ${REASON})`,
    ]);
    expect(notes.slice(loss, loss + 3)).toEqual([
      `the server process exited (its last output: ${REASON})`,
      "reconnecting in 4000 ms",
      expect.stringMatching(/^starting: /),
    ]);
  } finally {
    await manager.close();
    await engine.close();
  }
});

it("still notes the loss once when Lathe closes before the reason comes", async () => {
  const { home, engine, manager } = await lostServerWorld();
  try {
    const session = await engine.openSession({ mode: "yolo" });
    errorOf(await session.call("exit_saying", { text: `${REASON}\n`, ms: 600 }));
    await session.close();
    await until("the loss", () => manager.status()[0]?.state === "reconnecting", 2_000);
  } finally {
    await manager.close();
    await engine.close();
  }
  const notes = await notesOf(home);
  // Said before the close, with what the server had said by then (the reason came too late).
  const loss = "the server process exited (its last output: serving)";
  expect(notes.filter((n) => n.includes("exited"))).toEqual([loss]);
  expect(notes.slice(notes.indexOf(loss), notes.indexOf(loss) + 2)).toEqual([
    loss,
    "reconnecting in 4000 ms",
  ]);
});
