import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sleepers, sleepMarker } from "../../../../test/support/sleep-markers.ts";
import { processSpawner } from "../spawner/process-spawner.ts";
import { runUserHook } from "./user-hook.ts";

const LINUX = process.platform === "linux";
if (!LINUX)
  console.log(
    "the process-group rows are skipped: they look for the hook's processes in /proc, which only Linux has",
  );

let dir: string;
const input = () => ({ tool: "bash", args: { command: "ls" }, session_id: "s1", agent: "default", cwd: dir });
const hook = (command: string, timeoutMs = 5_000) => ({ command, timeoutMs, source: "test settings" });

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-hook-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("runUserHook", () => {
  it("hands the call to the hook as JSON on stdin", async () => {
    await runUserHook(hook(`cat > ${dir}/seen.json; echo '{"decision":"allow"}'`), input());
    expect(JSON.parse(await readFile(path.join(dir, "seen.json"), "utf8"))).toMatchObject({
      tool: "bash",
      args: { command: "ls" },
      session_id: "s1",
    });
  });

  it.each([
    ["allow", `echo '{"decision":"allow"}'`, { decision: "allow" }],
    [
      "deny with a reason",
      `echo '{"decision":"deny","reason":"no ls on Fridays"}'`,
      { decision: "deny", reason: "no ls on Fridays" },
    ],
    ["ask", `echo '{"decision":"ask","reason":"check"}'`, { decision: "ask", reason: "check" }],
    [
      "exit 2 with stderr",
      "echo 'blocked by policy' >&2; exit 2",
      { decision: "deny", reason: "blocked by policy" },
    ],
    ["a crash", "exit 7", { decision: "deny", reason: expect.stringMatching(/failed with exit code 7/) }],
    ["nonsense", "echo maybe", { decision: "deny", reason: expect.stringMatching(/not JSON/) }],
    [
      "a missing program",
      "/no/such/hook",
      { decision: "deny", reason: expect.stringMatching(/exit code 127/) },
    ],
  ])("treats %s", async (_name, command, expected) => {
    expect(await runUserHook(hook(command), input())).toEqual(expected);
  });

  it("runs in the process spawner, never forked from this process", async () => {
    const verdict = await runUserHook(
      hook(`echo $PPID > ${dir}/parent; echo '{"decision":"allow"}'`),
      input(),
    );
    expect(verdict).toEqual({ decision: "allow" });
    const parent = Number(await readFile(path.join(dir, "parent"), "utf8"));
    expect(parent).toBe(processSpawner().pid);
    expect(parent).not.toBe(process.pid);
  });

  it("refuses the call when the hook prints more than it may", async () => {
    expect(await runUserHook(hook("yes"), input())).toEqual({
      decision: "deny",
      reason: expect.stringMatching(/printed more than 65536 bytes/),
    });
  });

  it.skipIf(!LINUX)("ends everything the hook started when it times out", async () => {
    const marker = sleepMarker();
    const verdict = runUserHook(hook(`sleep ${marker} & sleep ${marker}`, 1_500), input());
    // Positive control: the hook and what it started run.
    await vi.waitFor(() => expect(sleepers(marker)).toHaveLength(2), { timeout: 1_000 });
    expect(await verdict).toMatchObject({
      decision: "deny",
      reason: expect.stringMatching(/stopped after 1500 ms/),
    });
    await vi.waitFor(() => expect(sleepers(marker)).toEqual([]), { timeout: 5_000 });
  });

  it.skipIf(!LINUX)("ends everything the hook started when the call is aborted", async () => {
    const marker = sleepMarker();
    const controller = new AbortController();
    const verdict = runUserHook(hook(`sleep ${marker} & sleep ${marker}`), input(), controller.signal);
    await vi.waitFor(() => expect(sleepers(marker)).toHaveLength(2), { timeout: 5_000 });
    controller.abort();
    expect(await verdict).toMatchObject({ decision: "deny", reason: expect.stringMatching(/aborted/) });
    await vi.waitFor(() => expect(sleepers(marker)).toEqual([]), { timeout: 5_000 });
  });

  // A hook that answers and exits, but leaves a process behind that still holds its output open
  // (`notify &`, a logger): its answer counts as soon as it has exited. Before, the call waited
  // for the output to close until the hook's timeout, then refused it as "stopped after …".
  it.skipIf(!LINUX).each([
    [
      "a refusal",
      (m: string) => `sleep ${m} & echo 'not on Fridays' >&2; exit 2`,
      { decision: "deny", reason: "not on Fridays" },
    ],
    [
      "a long refusal",
      (m: string) => `sleep ${m} & yes 'not on Fridays' | head -c 30000 >&2; exit 2`,
      { decision: "deny", reason: expect.stringMatching(/^not on Fridays\n(not on Fridays\n){100}/) },
    ],
    ["an allow", (m: string) => `(sleep ${m} &); echo '{"decision":"allow"}'`, { decision: "allow" }],
  ])(
    "takes %s from a hook at its exit, not waiting for what it left running",
    async (_name, command, expected) => {
      const marker = sleepMarker();
      const t0 = Date.now();
      try {
        expect(await runUserHook(hook(command(marker), 8_000), input())).toEqual(expected);
        expect(Date.now() - t0).toBeLessThan(5_000);
        // Positive control: what it left behind really held its output, and still runs.
        expect(sleepers(marker)).toHaveLength(1);
      } finally {
        for (const pid of sleepers(marker)) process.kill(pid, "SIGKILL");
      }
    },
  );

  // A model's write of a large file reaches every hook as JSON on stdin: a hook that reads it
  // all gets all of it, and one that answers without reading it is not held up by it.
  it.each([
    ["reads all of it", `wc -c >&2; exit 2`, /^\d{7}$/],
    ["does not read it", `echo 'no writes today' >&2; exit 2`, /^no writes today$/],
  ])("takes a 5 MB write to a hook that %s", async (_name, command, reason) => {
    const content = "y".repeat(5 * 1024 * 1024);
    const t0 = Date.now();
    const verdict = await runUserHook(hook(command, 8_000), {
      ...input(),
      tool: "write",
      args: { path: "big.txt", content },
    });
    expect(verdict).toEqual({ decision: "deny", reason: expect.stringMatching(reason) });
    if (command.startsWith("wc"))
      expect(Number((verdict as { reason: string }).reason)).toBeGreaterThan(content.length);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it("refuses the call when the hook hangs past its timeout", async () => {
    const t0 = Date.now();
    const verdict = await runUserHook(hook("sleep 30", 300), input());
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(verdict).toMatchObject({ decision: "deny", reason: expect.stringMatching(/stopped/) });
  });
});
