// Processes the engine starts while the host is at its largest: a user's pre-tool hook (before
// every call it matches) and an MCP stdio server (added in the app mid-session, or restarted
// after a crash). The host is grown to about 1.5 GB resident, then starts each one through Lathe
// (the process spawner starts it) and started by the host itself, as Lathe did before, in the
// same run. Starting a process from a large one blocks its event loop for as long as copying its
// page tables takes. Goal: no block over 50 ms, as for the hostile loads (event-loop.bench.ts).
// Run alone with `node bench/large-host.bench.ts`.
import { spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadMcpSdk } from "../src/main/engine/mcp/mcp-sdk.ts";
import { SpawnedStdioTransport } from "../src/main/engine/mcp/spawned-stdio-transport.ts";
import { runUserHook } from "../src/main/engine/policy/user-hook.ts";
import { processSpawner } from "../src/main/engine/spawner/process-spawner.ts";
import { compare, heading } from "./lib/report.ts";

const GOAL_MS = 50;
const RUNS = 20;
const COMMAND = `cat >/dev/null; echo '{"decision":"allow"}'`;

// Touched memory, as a long session's heap and buffers are: what a fork has to map.
const ballast: Buffer[] = [];
for (let i = 0; i < 24; i++) ballast.push(Buffer.alloc(64 * 1024 * 1024, 1));
const rssGb = process.memoryUsage().rss / 2 ** 30;

/** The longest the event loop went without a turn while `fn` ran (a 1 ms interval probe). */
async function maxBlock(fn: () => Promise<void>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  try {
    await fn();
  } finally {
    clearInterval(probe);
  }
  return Math.max(0, worst);
}

const input = {
  tool: "read",
  args: { path: "a.txt" },
  session_id: "s",
  agent: "default",
  cwd: process.cwd(),
};
const hook = { command: COMMAND, timeoutMs: 10_000, source: "bench" };

/** The same hook started by this process itself (detached, input on stdin), as before the spawner. */
function hostStarted(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", COMMAND], { detached: true, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", reject);
    child.on("close", () =>
      out.includes('"allow"') ? resolve() : reject(new Error(`the hook answered ${out}`)),
    );
    child.stdin.end(JSON.stringify(input));
  });
}

async function throughLathe(): Promise<void> {
  const verdict = await runUserHook(hook, input);
  if (verdict.decision !== "allow") throw new Error(`the hook refused: ${JSON.stringify(verdict)}`);
}

/** The longest block of each way over `runs` runs, after one warm-up run each (the spawner starts then). */
async function longestBlocks(
  runs: number,
  ours: () => Promise<void>,
  theirs: () => Promise<void>,
): Promise<{ ours: number; theirs: number }> {
  await ours();
  await theirs();
  const repeated = (fn: () => Promise<void>) => async (): Promise<void> => {
    for (let i = 0; i < runs; i++) await fn();
  };
  return { ours: await maxBlock(repeated(ours)), theirs: await maxBlock(repeated(theirs)) };
}

/** One section: Lathe's way against the host starting the process itself. */
function report(title: string, theirsLabel: string, blocks: { ours: number; theirs: number }): void {
  heading(title);
  compare({
    what: "longest event-loop block",
    ours: { label: "started by the process spawner", value: blocks.ours },
    theirs: { label: theirsLabel, value: blocks.theirs },
    goal: `≤ ${GOAL_MS} ms`,
    met: blocks.ours <= GOAL_MS,
  });
}

report(
  `A pre-tool hook per call, the host at ${rssGb.toFixed(2)} GB resident (${RUNS} calls each)`,
  "started by the host itself",
  await longestBlocks(RUNS, throughLathe, hostStarted),
);

// An MCP stdio server: started, connected (initialize) and closed, SERVER_RUNS times each way.
const SERVER_RUNS = 5;
const sdk = await loadMcpSdk();
const fixture = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../test/fixtures/scripted-mcp-server.ts",
);
const script = path.join(os.tmpdir(), `lathe-bench-mcp-${process.pid}.json`);
await writeFile(script, JSON.stringify({ tools: [] }));
const args = [fixture, script];

/** Start, connect to and close one MCP server over `transport`. */
async function connectOnce(transport: Parameters<Client["connect"]>[0]): Promise<void> {
  const client = new Client({ name: "bench", version: "0" }, { capabilities: {} });
  await client.connect(transport);
  await client.close();
}
const throughSpawner = (): Promise<void> =>
  connectOnce(
    new SpawnedStdioTransport(
      () =>
        processSpawner().server({
          file: process.execPath,
          args,
          line: "",
          cwd: os.tmpdir(),
          env: sdk.getDefaultEnvironment(),
        }),
      sdk,
    ),
  );
const forkedByHost = (): Promise<void> =>
  connectOnce(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
const serverBlocks = await longestBlocks(SERVER_RUNS, throughSpawner, forkedByHost);
await rm(script, { force: true });
report(
  `An MCP stdio server started, connected and closed, the host at ${rssGb.toFixed(2)} GB (${SERVER_RUNS} each)`,
  "started by the host itself (the SDK's transport)",
  serverBlocks,
);
ballast.length = 0;
process.exit(0);
