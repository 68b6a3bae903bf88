import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

// The CLI as a user runs it: `node bin/lathe.mjs …` in a child process, under this same Node 24.
export const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const LATHE_BIN = path.join(PACKAGE_ROOT, "bin", "lathe.mjs");

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliEnvelope {
  type: "output" | "error";
  data?: Record<string, unknown>;
  error_text?: string;
  metadata: { duration_ms: number; truncated?: boolean; output_path?: string };
}

export interface RunOptions {
  /** `LATHE_HOME` for the run. */
  home: string;
  cwd: string;
  input?: string;
  /** Variables to set; `undefined` removes one (e.g. LATHE_CLI, which vitest.config.ts sets). */
  env?: Record<string, string | undefined>;
  /** Another launcher than bin/lathe.mjs (a copy of it). */
  bin?: string;
}

/** What a child process prints to stdout and stderr, and how it ended, once it has closed. */
export function collected(child: ChildProcessByStdio<Writable | null, Readable, Readable>): Promise<Run> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Run `lathe <args>` to completion and collect what it printed. */
export function runLathe(args: readonly string[], options: RunOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, LATHE_HOME: options.home };
    delete env.LATHE_DEBUG;
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    const child = spawn(process.execPath, [options.bin ?? LATHE_BIN, ...args], { cwd: options.cwd, env });
    collected(child).then(resolve, reject);
    // A command that ends without reading its input (a usage error, a refusal) closes the pipe
    // first: that is its answer, not a failure of the run (seen once in CI as an uncaught EPIPE).
    child.stdin.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") reject(err);
    });
    if (options.input === undefined) child.stdin.end();
    else child.stdin.end(options.input);
  });
}

/** `stdout` must be exactly one line holding one JSON envelope. */
export function envelopeOf(run: Run): CliEnvelope {
  expect(run.stdout.endsWith("\n")).toBe(true);
  expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(run.stdout) as CliEnvelope;
}
