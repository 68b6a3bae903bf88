// A user's pre-tool hook runs before every call it matches, so it runs while the host is at its
// largest: here the host is grown to about 1.5 GB resident, then runs the same hook 20 times
// through Lathe (the process spawner starts it) and 20 times started by the host itself, as
// Lathe did before, in the same run. Starting a process from a large one blocks its event loop
// for as long as copying its page tables takes. Goal: no block over 50 ms, as for the hostile
// loads (event-loop.bench.ts). Run alone with `node bench/hooks.bench.ts`.
import { spawn } from "node:child_process";
import { runUserHook } from "../src/main/engine/policy/user-hook.ts";
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

// Warm both ways first (the spawner starts with the first hook).
await throughLathe();
await hostStarted();
const ours = await maxBlock(async () => {
  for (let i = 0; i < RUNS; i++) await throughLathe();
});
const theirs = await maxBlock(async () => {
  for (let i = 0; i < RUNS; i++) await hostStarted();
});

heading(`A pre-tool hook per call, the host at ${rssGb.toFixed(2)} GB resident (${RUNS} calls each)`);
compare({
  what: "longest event-loop block",
  ours: { label: "started by the process spawner", value: ours },
  theirs: { label: "started by the host itself", value: theirs },
  goal: `≤ ${GOAL_MS} ms`,
  met: ours <= GOAL_MS,
});
ballast.length = 0;
process.exit(0);
