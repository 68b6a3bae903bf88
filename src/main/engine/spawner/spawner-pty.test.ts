import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { spawn } from "node-pty";
import { pbkdf2 } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ptyScript } from "../builtin/pty-runner.ts";
import type { SpawnerEvent } from "./spawner-protocol.ts";
import { startPty } from "./spawner-pty.ts";

// The spawner's side of a pty command, run in this process: what it captures, and that a
// sidecar slow to open (reading paused) loses nothing of a command that exits meanwhile.

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-spawner-pty-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Exit = Extract<SpawnerEvent, { type: "exit" }>;

/** Start `command` as the spawner would; resolves with its exit event. */
async function exitOf(
  command: string,
  maxBytes: number,
  openDelayMs = 0,
  maxSidecarBytes?: number,
): Promise<Exit> {
  let exited: (event: Exit) => void = () => undefined;
  const exit = new Promise<Exit>((resolve) => (exited = resolve));
  const env = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  await startPty(
    {
      type: "pty",
      id: 1,
      script: ptyScript(command),
      cwd: dir,
      env,
      output: {
        maxBytes,
        sidecarPath: path.join(dir, "sidecar.txt"),
        root: dir,
        ...(maxSidecarBytes === undefined ? {} : { maxSidecarBytes }),
      },
    },
    new AbortController().signal,
    {
      send: (event) => event.type === "exit" && exited(event),
      handOver: () => expect.unreachable("a pty request hands over no pipe"),
    },
    async (file) => {
      await sleep(openDelayMs);
      return file;
    },
  );
  return exit;
}

describe("startPty", () => {
  it.each([
    ["printf xy; exit 3", "xy", 3],
    ["head -c 6000 /dev/zero | tr '\\0' q; exit 4", "q".repeat(6000), 4],
  ])(
    "loses nothing of `%s` when the sidecar opens only after it exited (node-pty drops unread output 200 ms after exit)",
    async (command, want, code) => {
      // Past the one-byte cap, reading pauses until the sidecar is open: 600 ms, long after the exit.
      const exit = await exitOf(command, 1, 600);
      expect(exit.exitCode).toBe(code);
      expect(exit.output).toEqual({
        text: want.slice(0, 1),
        sidecarPath: path.join(dir, "sidecar.txt"),
        tail: want,
        totalBytes: want.length,
        totalLines: 1,
        printedBytes: want.length,
      });
      expect(await readFile(path.join(dir, "sidecar.txt"), "utf8")).toBe(want);
    },
  );

  it("stops a command that prints without end once its sidecar holds the most kept", async () => {
    // Positive control: without the bound, the same command keeps writing (here, to its end).
    const unbounded = await exitOf("yes | head -c 3000000", 1024);
    expect(unbounded.output).toMatchObject({ totalBytes: 3_000_000 });
    expect(unbounded.outputCapped).toBeUndefined();

    // (Bounded here too, so that a failure ends by itself rather than filling the disk.)
    const exit = await exitOf("yes | head -c 50000000; echo after", 1024, 0, 1_000_000);
    expect(exit.outputCapped).toBe(true);
    // Stopped: the command after the pipeline never ran.
    expect(exit.exitCode).toBeGreaterThan(128);
    expect(exit.output).toMatchObject({ totalBytes: 1_000_000, sidecarPath: path.join(dir, "sidecar.txt") });
    expect((await readFile(path.join(dir, "sidecar.txt"))).length).toBe(1_000_000);
  });

  it("sends the head within the cap as text, and makes no sidecar", async () => {
    const exit = await exitOf("echo one; echo two", 1024);
    expect(exit.output).toEqual({ text: "one\ntwo\n", totalBytes: 8, totalLines: 2, printedBytes: 8 });
  });
});

/** Keep every thread of libuv's pool busy (hashing) until the returned function is called. */
function busyThreadPool(): () => Promise<void> {
  let busy = true;
  const running: Promise<void>[] = [];
  const hash = (): Promise<void> =>
    new Promise<void>((resolve) => pbkdf2("x", "y", 20_000, 32, "sha256", () => resolve())).then(() =>
      busy ? hash() : undefined,
    );
  for (let i = 0; i < 16; i++) running.push(hash());
  return async () => {
    busy = false;
    await Promise.all(running);
  };
}

describe("end-of-file typed on the terminal of a command that ends at once", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("prints nothing on the spawner's stderr, even with the thread pool busy", async () => {
    const printed: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void printed.push(args));
    const stop = busyThreadPool();
    try {
      // Positive control: node-pty's own write, queued behind the busy pool, reaches a terminal
      // already closed, and node-pty prints the failure.
      for (let i = 0; i < 3; i++) {
        const pty = spawn("/bin/bash", ["-c", "true"], { encoding: null });
        pty.write("\x04");
        await new Promise((resolve) => pty.onExit(resolve));
        await sleep(50);
      }
      expect(printed.map((args) => String(args[0]))).toContain("Unhandled pty write error");
      printed.length = 0;

      for (let i = 0; i < 3; i++) {
        const exit = await exitOf("true", 1024);
        expect(exit.exitCode).toBe(0);
        await sleep(50);
      }
      expect(printed).toEqual([]);
    } finally {
      await stop();
    }
  });
});
