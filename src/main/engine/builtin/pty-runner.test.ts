import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sleepers, sleepMarker } from "../../../../test/support/sleep-markers.ts";
import { runInPty } from "./pty-runner.ts";

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-pty-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run a command; its output past `maxBytes` (1 MiB unless said) comes back from the sidecar file. */
async function run(
  command: string,
  options: { maxBytes?: number; signal?: AbortSignal } = {},
): Promise<{ text: string; sidecar?: Buffer; totalBytes: number; exitCode: number }> {
  const proc = await runInPty({
    command,
    cwd: dir,
    signal: options.signal ?? new AbortController().signal,
    output: { maxBytes: options.maxBytes ?? 1 << 20, sidecarPath: path.join(dir, "sidecar.txt"), root: dir },
  });
  const { exitCode, output } = await proc.exited;
  const sidecar = output.sidecarPath === undefined ? undefined : await readFile(output.sidecarPath);
  return { text: output.text, totalBytes: output.totalBytes, exitCode, ...(sidecar ? { sidecar } : {}) };
}

describe("runInPty", () => {
  it("delivers raw bytes with \\n newlines and the exit code", async () => {
    // Past a one-byte cap, every byte goes to the sidecar as the terminal gave it.
    const { sidecar, totalBytes, exitCode } = await run("printf 'a\\nb\\xff\\n'; exit 9", { maxBytes: 1 });
    expect(sidecar).toEqual(Buffer.from([0x61, 0x0a, 0x62, 0xff, 0x0a]));
    // As the model reads it, the stray 0xff is U+FFFD: three bytes.
    expect(totalBytes).toBe(7);
    expect(exitCode).toBe(9);
  });

  it("returns output within the cap as text, and makes no sidecar", async () => {
    const { text, sidecar } = await run("echo hello; echo there >&2");
    expect(text).toBe("hello\nthere\n");
    expect(sidecar).toBeUndefined();
    expect(existsSync(path.join(dir, "sidecar.txt"))).toBe(false);
  });

  // A program that closes its stdout and stderr before it exits (coreutils' ls, cat and the rest
  // do, at exit) left no process holding the terminal: its hang-up then killed the program, and
  // a command that succeeded reported 129 (SIGHUP), or lost its output.
  it.each([
    ["the last command, exec'd by bash", "exec 1>&- 2>&-; sleep 0.3"],
    ["an explicit exec", "exec sleep 0.3 1>&- 2>&-"],
  ])("keeps the exit code of a program that closes its output before it exits (%s)", async (_, command) => {
    const { exitCode } = await run(command);
    expect(exitCode).toBe(0);
  });

  it("keeps the output and exit code of a quick coreutils command, run after run", async () => {
    await writeFile(path.join(dir, "a.txt"), "hi\n");
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await run("ls"));
    expect(results.map((r) => [r.text, r.exitCode])).toEqual(Array(8).fill(["a.txt\n", 0]));
  });

  it("refuses to start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stopped before start"));
    await expect(run("touch started", { signal: controller.signal })).rejects.toThrow("stopped before start");
    expect(existsSync(path.join(dir, "started"))).toBe(false);
  });

  it("stops the command's process group when aborted, and rejects with the reason", async () => {
    const controller = new AbortController();
    const marker = sleepMarker();
    const result = run(`sleep ${marker} & sleep ${marker}`, { signal: controller.signal });
    await vi.waitFor(() => expect(sleepers(marker)).toHaveLength(2), { timeout: 10_000 });
    controller.abort(new Error("stopped by the test"));
    await expect(result).rejects.toThrow("stopped by the test");
    await vi.waitFor(() => expect(sleepers(marker)).toEqual([]), { timeout: 10_000 });
  });
});

describe("the environment bash starts with", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
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

    for (const [name, value] of Object.entries(steering)) vi.stubEnv(name, value);
    const { text } = await run("ls >/dev/null; cd etc 2>/dev/null && echo went-to-slash-etc; echo done");
    expect(text).toContain("done");
    expect(text).not.toContain("went-to-slash-etc");
    expect(existsSync(path.join(dir, "sourced"))).toBe(false);
    expect(existsSync(path.join(dir, "function-ran"))).toBe(false);
  });
});
