// How soon `lathe run` notices a model server that went silent, against the timeouts configured
// for its endpoint (providers.<name>.timeouts: firstByteMs and idleMs, 2 s each here). A real
// `lathe run` talks to the loopback fixture server, which misbehaves three ways:
//   1. it accepts the request and never answers (not even headers),
//   2. it sends headers and an empty first chunk, then nothing,
//   3. it stops in the middle of the answer.
// "Stall detected after" is from the request's arrival (1, 2) or the server's last write (3) to
// the moment the client gives the request up; "run ends" is to the exit of `lathe run` with its
// message. Goal: detected within 1 s of the configured timeout. Then: Ctrl-C or SIGTERM while the
// model is silent, from the signal to the exit of `lathe run`. Goal: within 1 s.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startOpenAICompatibleServer, type FixtureReply } from "../test/fixtures/openai-compatible-server.ts";
import { heading, median } from "./lib/report.ts";

const TIMEOUT_MS = 2_000;
const RUNS = 3;
const bin = fileURLToPath(new URL("../bin/lathe.mjs", import.meta.url));
const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-bench-stall-")));
const home = path.join(base, "home");
const root = path.join(base, "ws");
await mkdir(home, { recursive: true });
await mkdir(root, { recursive: true });

interface Sample {
  detectedMs: number;
  exitMs: number;
  message: string;
}

async function once(reply: FixtureReply, kind: "first-byte" | "idle"): Promise<Sample> {
  const server = await startOpenAICompatibleServer({ models: ["m"], replies: [reply] });
  try {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({
        providers: {
          "openai-compatible": {
            baseURL: server.baseURL,
            timeouts: { firstByteMs: TIMEOUT_MS, idleMs: TIMEOUT_MS },
          },
        },
      }),
    );
    const child = spawn(process.execPath, [bin, "run", "Say hello", "--model", "openai-compatible:m"], {
      cwd: root,
      env: { ...process.env, LATHE_HOME: home },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    const exitedAt = await new Promise<number>((resolve) => child.on("close", () => resolve(Date.now())));
    const timing = server.timings[0];
    if (!timing?.clientGoneAt) throw new Error(`the request was never given up:\n${stderr}`);
    const from = kind === "idle" ? (timing.lastWriteAt ?? timing.arrivedAt) : timing.arrivedAt;
    const message = /error: (.*)/.exec(stderr)?.[1] ?? stderr.trim();
    return { detectedMs: timing.clientGoneAt - from, exitMs: exitedAt - from, message };
  } finally {
    await server.close();
  }
}

const CASES: Array<{ what: string; reply: FixtureReply; kind: "first-byte" | "idle"; setting: string }> = [
  {
    what: "server accepts and never answers",
    reply: { silent: true },
    kind: "first-byte",
    setting: "firstByteMs",
  },
  {
    what: "headers and an empty chunk, then silence",
    reply: { text: "never", stallAfterEvents: 1 },
    kind: "first-byte",
    setting: "firstByteMs",
  },
  {
    what: "stops mid-answer",
    reply: { text: "Half of an answer", stallAfterEvents: 4 },
    kind: "idle",
    setting: "idleMs",
  },
];

const signed = (n: number): string => `${n >= 0 ? "+" : "−"}${Math.abs(n)}`;

heading(`Model stall detection by lathe run (timeouts ${TIMEOUT_MS} ms, median of ${RUNS} runs)`);
let allMet = true;
for (const c of CASES) {
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await once(c.reply, c.kind));
  const detected = median(samples.map((s) => s.detectedMs));
  const worst = Math.max(...samples.map((s) => s.detectedMs));
  const exit = median(samples.map((s) => s.exitMs));
  // Measured from the server's side, the request arrives a little after the client sent it, so a
  // figure slightly under the timeout is expected; far under it would be a guard firing early.
  const met =
    worst - TIMEOUT_MS <= 1_000 && Math.min(...samples.map((s) => s.detectedMs)) >= TIMEOUT_MS - 500;
  allMet &&= met;
  console.log(
    `${c.what}: stall detected after ${detected} ms (worst ${worst} ms) | configured ${c.setting} ${TIMEOUT_MS} ms | ratio ${(detected / TIMEOUT_MS).toFixed(2)}× | difference ${signed(detected - TIMEOUT_MS)} ms | run ends after ${exit} ms  goal: within 1 s of the timeout ${met ? "(met)" : "(NOT met)"}`,
  );
  console.log(`  message: ${samples[0]?.message}`);
}
console.log(`\nstall detection: ${allMet ? "MET" : "NOT MET"}`);

// Stop works at any moment: Ctrl-C while the model is silent (long timeouts: the stop, not a
// timeout, ends the run), from the signal to the exit of `lathe run`.
async function stopWhileSilent(signal: NodeJS.Signals): Promise<number> {
  const server = await startOpenAICompatibleServer({ models: ["m"], replies: [{ silent: true }] });
  try {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL: server.baseURL } } }),
    );
    const child = spawn(process.execPath, [bin, "run", "Say hello", "--model", "openai-compatible:m"], {
      cwd: root,
      env: { ...process.env, LATHE_HOME: home },
      stdio: "ignore",
    });
    const exited = new Promise<number>((resolve) => child.on("close", () => resolve(Date.now())));
    await server.requestArrived(1);
    await new Promise((r) => setTimeout(r, 500));
    const sent = Date.now();
    child.kill(signal);
    return (await exited) - sent;
  } finally {
    await server.close();
  }
}
heading(`Stop while the model is silent (median of ${RUNS} runs)`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await stopWhileSilent(signal));
  const stop = median(samples);
  console.log(
    `${signal} → lathe run exits after ${stop} ms (worst ${Math.max(...samples)} ms) | goal 1000 ms | ratio ${(stop / 1000).toFixed(2)}×  goal: within 1 s ${Math.max(...samples) <= 1000 ? "(met)" : "(NOT met)"}`,
  );
}
await rm(base, { recursive: true, force: true });
