import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// `lathe run` on the embedded GGUF runner: the tiny random model from ../shared/models writes
// gibberish, but its grammar-forced tool calls must still go through the whole loop — the
// engine runs them, the envelopes go back, and the run stops at the agent's budget.

const MODEL = path.resolve(PACKAGE_ROOT, "../shared/models/llama-2-tiny-random.gguf");
const present = existsSync(MODEL);
if (!present)
  console.log(
    `skipping the embedded GGUF run: ${MODEL} is not there (../shared/models sits beside the checkout)`,
  );

const world = useCliWorld("lathe-gguf-", {
  per: "file",
  setup: async () => {
    await writeFile(path.join(world.root, "a.txt"), "a\n");
    await mkdir(path.join(world.home, "agents"));
    // The output budget must fit one whole grammar-forced glob call: the random model writes each
    // string to its bound (LATHE_GGUF_MAX_STRING) and an integer (glob's limit) at length, since
    // the grammar bounds strings but not numbers.
    await writeFile(
      path.join(world.home, "agents/tiny.md"),
      "---\ndescription: A minimal agent for tiny local models\ntools:\n  allow: [glob]\nbudgets:\n  maxRounds: 2\n  maxOutputTokens: 160\n---\nUse glob.\n",
    );
    // One that goes on for minutes: the random model never ends its turn by itself.
    await writeFile(
      path.join(world.home, "agents/long.md"),
      "---\ndescription: An agent that keeps the tiny model busy\ntools:\n  allow: [glob]\nbudgets:\n  maxRounds: 200\n  maxOutputTokens: 4000\n---\nUse glob.\n",
    );
  },
});

describe.skipIf(!present)("lathe run on an embedded GGUF model", () => {
  it("streams steps whose grammar-forced tool calls the engine runs, until the budget stops it", async () => {
    const run = await world.lathe(
      ["run", "list the files", "--agent", "tiny", "--model", `gguf:${MODEL}`, "--mode", "yolo", "--json"],
      { env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_MAX_STRING: "8" } },
    );
    const events = run.stdout
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as { type: string; toolName?: string; envelope?: { type: string }; status?: string },
      );
    expect(events[0]).toMatchObject({ type: "start", agent: "tiny" });
    const calls = events.filter((e) => e.type === "tool-call");
    const results = events.filter((e) => e.type === "tool-result");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.every((c) => c.toolName === "glob")).toBe(true);
    expect(results).toHaveLength(calls.length);
    expect(results.every((r) => r.envelope?.type === "output" || r.envelope?.type === "error")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "max-rounds" });
    expect(run.code).toBe(1);
  }, 120_000);

  // node-llama-cpp loads signal-exit, which re-raised a signal nobody else listened to: the first
  // Ctrl-C killed the process outright, with nothing said and the run never marked as stopped.
  it.each<NodeJS.Signals>(["SIGINT", "SIGTERM"])(
    "%s while the model writes stops the run (exit 1, the run recorded as stopped)",
    async (signal) => {
      const run = world.start(
        ["run", "list the files", "--agent", "long", "--model", `gguf:${MODEL}`, "--mode", "yolo", "--json"],
        { env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_MAX_STRING: "8" } },
      );
      await run.until(
        "the model's first words",
        () => run.events().some((e) => e.type === "text" || e.type === "tool-call"),
        60_000,
      );
      run.child.kill(signal);
      const exit = await run.exited;
      expect(exit).toMatchObject({ code: 1, signal: null });
      expect(run.events().at(-1)).toMatchObject({ type: "finish", status: "aborted" });
      expect(run.stderr()).not.toMatch(/^\s+at /m);
    },
    120_000,
  );

  // The memory check ran on the first model call: the run started, failed mid-way and offered
  // `--resume` on a session that could only fail the same way.
  it("refuses a context too large for the memory before the run starts, leaving no session", async () => {
    const empty = await world.folder("empty"); // a folder no run used
    const run = await world.lathe(["run", "hi", "--model", `gguf:${MODEL}`], {
      cwd: empty,
      env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_CONTEXT_SIZE: "2000000000" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: A context of 2000000000 tokens needs about [\d.]+ [GM]B of memory on this model, and [\d.]+ [GM]B is free: set LATHE_GGUF_CONTEXT_SIZE to at most \d+/m,
    );
    expect(run.stderr).not.toContain("--resume");
    expect(run.stdout).toBe("");
    const sessions = await world.lathe(["session", "list", "--json"], { cwd: empty });
    expect(sessions.stdout).toBe("");
  }, 60_000);

  it("says, before the run starts, that a context beyond the model's trained size may turn its answers to nonsense", async () => {
    const run = await world.lathe(
      ["run", "list the files", "--agent", "tiny", "--model", `gguf:${MODEL}`, "--mode", "yolo", "--json"],
      {
        env: { LATHE_GGUF_THREADS: "1", LATHE_GGUF_MAX_STRING: "8", LATHE_GGUF_CONTEXT_SIZE: "100000" },
      },
    );
    const events = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; message?: string });
    const notices = events.filter((e) => e.message?.includes("was trained for"));
    expect(notices).toEqual([
      {
        type: "notice",
        message: expect.stringMatching(
          /^LATHE_GGUF_CONTEXT_SIZE=100000 is more than the 4096 tokens .* was trained for: .* Set LATHE_GGUF_CONTEXT_SIZE to 4096 or less/,
        ),
      },
    ]);
    expect(events.findIndex((e) => e.type === "notice")).toBeLessThan(
      events.findIndex((e) => e.type === "start"),
    );
    expect(events.at(-1)).toMatchObject({ type: "finish" });
  }, 120_000);
});
