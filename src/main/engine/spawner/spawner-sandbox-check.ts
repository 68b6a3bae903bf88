// Whether this machine can run the OS sandbox, as the spawner finds out for the host
// (sandbox/sandbox-availability.ts): the sandbox library's dependency check, then one real
// sandboxed `true` in a fresh temp folder. Here rather than in the host because the check starts
// processes (the library's own lookups among them, some synchronous) and loads the library.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { confineWithManager } from "./spawner-confine.ts";
import { errorMessage } from "../errors/error-message.ts";
import { makeOwnedTempDir } from "../temp/owned-temp-dir.ts";

/** How long the trial command may take before it counts as failed. */
const TRIAL_TIMEOUT_MS = 10_000;

/** What the check found: the library's errors and warnings, and why the trial failed (if it did). */
export interface SandboxCheck {
  errors: string[];
  warnings: string[];
  /** Only when there were no errors and the trial did not run. */
  failure?: string;
}

/** Run a shell line and collect its stderr; resolves to undefined when it exits 0. */
function runLine(line: string, cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn("/bin/bash", ["-c", line], { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), TRIAL_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve(err.message);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const said = stderr.trim().split("\n")[0]?.slice(0, 300) ?? "";
      resolve(code === 0 ? undefined : said || `it exited with ${signal ?? code}`);
    });
  });
}

/** One sandboxed `true` in a temp folder: undefined when it ran, else what went wrong. */
async function trial(): Promise<string | undefined> {
  const dir = await makeOwnedTempDir("sandbox-probe");
  try {
    const confined = await confineWithManager(
      "true",
      { writable: [dir], readOnly: [], network: [], missingFiles: "leave" },
      new AbortController().signal,
    );
    try {
      return await runLine(confined.line, dir);
    } finally {
      confined.release();
    }
  } catch (err) {
    return errorMessage(err);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The library's dependency check, then (when it found nothing missing) the trial. */
export async function checkSandbox(): Promise<SandboxCheck> {
  const { SandboxManager } = await import("@anthropic-ai/sandbox-runtime");
  const { errors, warnings } = SandboxManager.checkDependencies();
  if (errors.length > 0) return { errors, warnings };
  const failure = await trial();
  return { errors, warnings, ...(failure === undefined ? {} : { failure }) };
}
