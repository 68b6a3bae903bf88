import { execFileSync } from "node:child_process";
import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import type { FixtureReply, FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { useCliWorld } from "./support/cli-world.ts";
import {
  callsAndResultsMatch,
  readDatabase,
  useEndpoint,
  type LatheProcess,
} from "./support/lathe-process.ts";

// Ctrl-C (SIGINT) and SIGTERM at each stage of `lathe run`: the process ends within a second
// with exit 1, and the session can be resumed (a run stopped before it started records nothing).

const world = useCliWorld("lathe-signal-");
let cleanups: Array<() => Promise<void>>;
// Registered after the world's hooks: the silent servers close before the world is removed.
beforeEach(() => {
  cleanups = [];
});
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
});

const MODEL = ["--model", "openai-compatible:m"];
/** The goal is one second; the rest is room for a loaded machine (the CLI's backstop is 0.8 s). */
const STOP_WITHIN_MS = 2_000;

async function serve(replies: FixtureReply[]): Promise<FixtureServer> {
  return world.serve({ models: ["m"], replies, chunkChars: 5 });
}

/** A server that takes connections and never says a word (the preflight's /v1/models hangs). */
async function mute(): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
}

function sessionOf(events: readonly RunEvent[]): string {
  const start = events.find((e) => e.type === "start");
  if (start?.type !== "start") throw new Error("no start event");
  return start.sessionId;
}

function running(marker: string): boolean {
  try {
    execFileSync("pgrep", ["-f", marker]);
    return true;
  } catch {
    return false;
  }
}

async function stop(run: LatheProcess, signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
  const sent = Date.now();
  run.child.kill(signal);
  const exit = await run.exited;
  return { code: exit.code, ms: exit.at - sent };
}

/** The session resumes: a new prompt runs on its history, which has an answer for every call. */
async function expectResumable(sessionId: string, server: FixtureServer): Promise<void> {
  const resumed = await world.lathe(["run", "Go on", "--resume", sessionId]);
  expect(resumed.stderr).not.toMatch(/^\s+at |SQLITE_BUSY/m);
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toBe("Resumed.\n");
  expect(server.requests.at(-1)?.messages.at(-1)).toEqual({ role: "user", content: "Go on" });
  const db = readDatabase(world.home);
  expect(db.integrity).toBe("ok");
  expect(callsAndResultsMatch(db.messages(sessionId))).toBe(true);
}

describe.each<NodeJS.Signals>(["SIGINT", "SIGTERM"])("%s during lathe run", (signal) => {
  it("while it starts (the endpoint check hangs): exit 1, nothing recorded", async () => {
    await useEndpoint(world.home, await mute());
    const run = world.start(["run", "Hello", ...MODEL]);
    await new Promise((r) => setTimeout(r, 600));
    const { code, ms } = await stop(run, signal);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);
    expect(run.stderr()).toMatch(/^error: stopped before the run started; nothing was recorded\./m);
    expect(run.stderr()).not.toMatch(/^\s+at /m);
  });

  it("while waiting for the model's first byte: exit 1, resumable", async () => {
    const server = await serve([{ silent: true }, { text: "Resumed." }]);
    const run = world.start(["run", "Hello", ...MODEL, "--json"]);
    await server.requestArrived(1);
    const { code, ms } = await stop(run, signal);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);
    expect(run.events().at(-1)).toMatchObject({ type: "finish", status: "aborted" });
    await expectResumable(sessionOf(run.events()), server);
  });

  it("while the answer streams: exit 1, what was said is kept, resumable", async () => {
    const server = await serve([{ text: "word ".repeat(400), eventDelayMs: 10 }, { text: "Resumed." }]);
    const run = world.start(["run", "Hello", ...MODEL, "--json"]);
    await run.until("streamed text", () => run.events().filter((e) => e.type === "text").length >= 5);
    const { code, ms } = await stop(run, signal);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);
    const sessionId = sessionOf(run.events());
    const said = readDatabase(world.home).messages(sessionId)[1];
    expect(said?.role).toBe("assistant");
    expect(said?.parts[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^(word )+/) });
    await expectResumable(sessionId, server);
  });

  it("while a bash call runs: exit 1, the command is stopped, resumable", async () => {
    const marker = `sleep 32.${process.pid}${signal.length}`;
    const server = await serve([
      { toolCalls: [{ name: "bash", arguments: { command: marker } }] },
      { text: "Resumed." },
    ]);
    const run = world.start(["run", "Wait", ...MODEL, "--json", "--mode", "yolo"]);
    await run.until("the command", () => running(`^${marker}`));
    const { code, ms } = await stop(run, signal);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);
    await expect.poll(() => running(marker), { timeout: 3_000 }).toBe(false);
    const sessionId = sessionOf(run.events());
    const history = readDatabase(world.home).messages(sessionId);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    await expectResumable(sessionId, server);
  });
});
