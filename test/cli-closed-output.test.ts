import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { LATHE_BIN } from "./support/lathe-cli.ts";

// `lathe … | head`: the reader of stdout goes away while (or before) the CLI writes. Every
// command ends quietly — no EPIPE, no stack trace — with its usual exit code.

const world = useCliWorld("lathe-pipe-", {
  setup: async () => {
    for (let i = 0; i < 200; i++) await writeFile(path.join(world.root, `file-${i}.txt`), `line ${i}\n`);
  },
});

interface Closed {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** What stdout carried before it was closed. */
  read: string;
}

/** Run `lathe <args>` and close its stdout once it has written `afterBytes` bytes (0: at once). */
function closeStdout(args: readonly string[], afterBytes = 0): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, LATHE_HOME: world.home };
    delete env.LATHE_DEBUG;
    const child = spawn(process.execPath, [LATHE_BIN, ...args], {
      cwd: world.root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let read = "";
    let stderr = "";
    if (afterBytes === 0) child.stdout.destroy();
    else {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        read += chunk;
        if (read.length >= afterBytes) child.stdout.destroy();
      });
    }
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stderr, read }));
  });
}

function expectQuiet(run: Closed): void {
  expect(run.signal).toBeNull();
  expect(run.stderr).not.toMatch(/EPIPE|Unhandled 'error' event|^\s+at /m);
}

describe("a closed stdout ends the CLI quietly", () => {
  it.each<[string, string[], number]>([
    ["tools", ["tools"], 0],
    ["call with a large envelope", ["call", "glob", '{"pattern":"**/*.txt"}'], 0],
    ["call whose envelope is an error", ["call", "read", '{"path":"missing.txt"}'], 1],
    ["--help", ["--help"], 0],
    ["--version", ["--version"], 0],
    ["a command's help", ["run", "--help"], 0],
    ["a usage error", ["call"], 2],
  ])("%s", async (_label, args, code) => {
    const run = await closeStdout(args);
    expectQuiet(run);
    expect(run.code).toBe(code);
  });

  it("audit, with its reader gone after the first line (lathe audit | head -1)", async () => {
    for (let i = 0; i < 3; i++) await world.lathe(["call", "glob", '{"pattern":"*.txt"}']);
    const run = await closeStdout(["audit", "--limit", "1000"], 1);
    expectQuiet(run);
    expect(run.code).toBe(0);
  });

  it("run stops its work when the reader goes, and the session stays resumable", async () => {
    // A long answer, slowly: the reader leaves after a few lines of JSON events.
    const server = await world.serve({
      models: ["m"],
      replies: [{ text: "word ".repeat(400), eventDelayMs: 5 }, { text: "again" }],
      chunkChars: 5,
    });
    const run = await closeStdout(["run", "Talk", "--model", "openai-compatible:m", "--json"], 1_500);
    expectQuiet(run);
    // Stopped early, as a Ctrl-C would: exit 1, and the model's request was given up.
    expect(run.code).toBe(1);
    await expect.poll(() => server?.timings[0]?.clientGoneAt).toBeDefined();
    const sessionId = (JSON.parse(run.read.split("\n")[0] as string) as { sessionId: string }).sessionId;
    const resumed = await world.lathe(["run", "Go on", "--resume", sessionId]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("again\n");
    const history = server.requests[1]?.messages.map((m) => m.role);
    expect(history).toEqual(["system", "user", "assistant", "user"]);
  });

  it("run --replay", async () => {
    await world.serve({ models: ["m"], replies: [{ text: "x ".repeat(2000) }] });
    const first = await world.lathe(["run", "Talk", "--model", "openai-compatible:m", "--json"]);
    const sessionId = (JSON.parse(first.stdout.split("\n")[0] as string) as { sessionId: string }).sessionId;
    const run = await closeStdout(["run", "--resume", sessionId, "--replay", "--json"]);
    expectQuiet(run);
    expect(run.code).toBe(0);
  });
});
