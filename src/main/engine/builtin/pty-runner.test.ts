import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInPty } from "./pty-runner.ts";

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-pty-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(
  command: string,
  options: { pauseAtStartMs?: number; signal?: AbortSignal } = {},
): Promise<{ output: Buffer; exitCode: number }> {
  const chunks: Buffer[] = [];
  const proc = await runInPty({
    command,
    cwd: dir,
    signal: options.signal ?? new AbortController().signal,
    onData: (chunk) => chunks.push(chunk),
  });
  if (options.pauseAtStartMs !== undefined) {
    proc.pause();
    setTimeout(() => proc.resume(), options.pauseAtStartMs);
  }
  const { exitCode } = await proc.exited;
  return { output: Buffer.concat(chunks), exitCode };
}

describe("runInPty", () => {
  it("delivers raw bytes with \\n newlines and the exit code", async () => {
    const { output, exitCode } = await run("printf 'a\\nb\\xff\\n'; exit 9");
    expect(output).toEqual(Buffer.from([0x61, 0x0a, 0x62, 0xff, 0x0a]));
    expect(exitCode).toBe(9);
  });

  it.each([
    ["printf x; exit 3", "x", 3],
    ["head -c 6000 /dev/zero | tr '\\0' q; exit 4", "q".repeat(6000), 4],
  ])(
    "loses nothing when the reader is paused past the exit of `%s` (node-pty drops unread output 200 ms after exit)",
    async (command, want, code) => {
      const { output, exitCode } = await run(command, { pauseAtStartMs: 600 });
      expect(output.toString()).toBe(want);
      expect(exitCode).toBe(code);
    },
  );

  it("refuses to start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stopped before start"));
    await expect(
      runInPty({ command: "touch started", cwd: dir, signal: controller.signal, onData: () => undefined }),
    ).rejects.toThrow("stopped before start");
  });

  it("settles with 128 + SIGTERM when aborted", async () => {
    const controller = new AbortController();
    const result = run("sleep 100", { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await result).exitCode).toBe(128 + 15);
  });
});

describe("the environment bash starts with", () => {
  const KEYS = ["BASH_ENV", "CDPATH", "BASH_FUNC_ls%%"];
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const key of KEYS) saved.set(key, process.env[key]);
  });
  afterEach(() => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it("leaves out what would make bash run code the policy never saw (BASH_ENV, exported functions, CDPATH)", async () => {
    const rc = path.join(dir, "rc.sh");
    await writeFile(rc, `touch ${path.join(dir, "sourced")}\n`);
    const steering = {
      BASH_ENV: rc,
      "BASH_FUNC_ls%%": `() { touch ${path.join(dir, "function-ran")}; }`,
      CDPATH: "/",
    };
    // Positive control: plain bash with this environment sources the file and runs the function.
    spawnSync("/bin/bash", ["--noprofile", "--norc", "-c", "ls >/dev/null"], {
      cwd: dir,
      env: { ...process.env, ...steering },
    });
    expect(existsSync(path.join(dir, "sourced"))).toBe(true);
    expect(existsSync(path.join(dir, "function-ran"))).toBe(true);
    await rm(path.join(dir, "sourced"));
    await rm(path.join(dir, "function-ran"));

    Object.assign(process.env, steering);
    const { output } = await run("ls >/dev/null; cd etc 2>/dev/null && echo went-to-slash-etc; echo done");
    expect(output.toString()).toContain("done");
    expect(output.toString()).not.toContain("went-to-slash-etc");
    expect(existsSync(path.join(dir, "sourced"))).toBe(false);
    expect(existsSync(path.join(dir, "function-ran"))).toBe(false);
  });
});
