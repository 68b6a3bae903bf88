// The packaged app's smoke test (`Lathe --smoke-test`, run by the release workflow on every
// installer): one engine on a temp folder, driven through the same router a window's requests go
// through, so a broken package (a native module built for the wrong ABI or left inside app.asar,
// the bundled plugins not shipped) fails the release instead of a user's first click.
// Plain Node: no electron import; main.ts adds its window check as an extra check.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type * as NodePty from "node-pty";
import { EnvelopeSchema, type Envelope } from "../../shared/envelope-schema.ts";
import { EngineHost, createLoggedEngine } from "../api/engine-host.ts";
import { UiConnection } from "../api/ui-connection.ts";
import type { Engine } from "../engine/index.ts";
import { errorMessage } from "../engine/light.ts";

export const SMOKE_TEST_FLAG = "--smoke-test";

/** Whether the app was started as `Lathe --smoke-test` (Chromium's own switches may sit beside it). */
export function hasSmokeTestFlag(argv: readonly string[]): boolean {
  return argv.includes(SMOKE_TEST_FLAG);
}

/** One more thing to check once the engine checks passed (main.ts: the window loads). */
interface SmokeCheck {
  /** Named in the result line. */
  name: string;
  /** Rejects with what is wrong. */
  run(): Promise<void>;
}

interface SmokeTestOptions {
  /** The bundled plugins folder the app uses (resources/plugins in a packaged app). */
  bundledPluginsDir: string;
  /** Where the temporary workspace and LATHE_HOME go (default: the OS's temp folder). */
  tmpDir?: string;
  /** Give up after this long (default 90 s): a hang fails the smoke test rather than the job. */
  timeoutMs?: number;
  /** Run after the engine checks, in order. */
  extraChecks?: readonly SmokeCheck[];
  /** Where the one result line goes (default: console.log). */
  print?: (line: string) => void;
}

interface SmokeTestResult {
  exitCode: 0 | 1;
  /** `lathe smoke-test: ok in … ms (…)` or `lathe smoke-test: FAILED — …`. */
  line: string;
}

const DEFAULT_TIMEOUT_MS = 90_000;
const FILE = "smoke.txt";
/** A plugin shipped in plugins/; calling it runs plugin code in an isolated-vm isolate. */
const BUNDLED_TOOL = "word_count";

class SmokeFailure extends Error {}
class SmokeTimeout extends SmokeFailure {}

function fail(message: string): never {
  throw new SmokeFailure(message);
}

/** Runs every check; never throws: the result carries the exit code and the line it printed. */
export async function runSmokeTest(options: SmokeTestOptions): Promise<SmokeTestResult> {
  const print = options.print ?? ((line: string) => console.log(line));
  const started = performance.now();
  const dir = await mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), "lathe-smoke-"));
  const work = checkAll(dir, options);
  let result: SmokeTestResult;
  let timedOut = false;
  try {
    const passed = await withTimeout(work, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const ms = Math.round(performance.now() - started);
    result = { exitCode: 0, line: `lathe smoke-test: ok in ${ms} ms (${passed.join(", ")})` };
  } catch (error) {
    timedOut = error instanceof SmokeTimeout;
    const reason = error instanceof SmokeFailure ? error.message : errorMessage(error);
    result = { exitCode: 1, line: `lathe smoke-test: FAILED — ${reason}` };
  }
  // The temporary folder goes once the checks have stopped; after a timeout they may still be
  // running, and the caller (about to exit) is not kept waiting for them.
  const cleanup = work
    .catch(() => undefined)
    .then(() => rm(dir, { recursive: true, force: true }))
    .catch((error: unknown) => console.error(`lathe smoke-test: could not remove ${dir}:`, error));
  if (!timedOut) await cleanup;
  print(result.line);
  return result;
}

async function checkAll(dir: string, options: SmokeTestOptions): Promise<string[]> {
  const root = path.join(dir, "workspace");
  const latheHome = path.join(dir, "home");
  await mkdir(root);
  await mkdir(latheHome);
  const token = randomBytes(6).toString("hex");
  const text = `Lathe smoke test ${token}\nopened by the packaged app\n`;
  await writeFile(path.join(root, FILE), text);

  let engine: Engine | undefined;
  let host: EngineHost | undefined;
  let connection: UiConnection | undefined;
  try {
    try {
      engine = await createLoggedEngine(root, { latheHome, bundledPluginsDir: options.bundledPluginsDir });
    } catch (error) {
      fail(`the engine did not start on ${root}: ${errorMessage(error)}`);
    }
    host = new EngineHost({ engine, watchIntervalMs: 0 });
    connection = new UiConnection({ host, send: () => undefined });
    const passed: string[] = [];

    const read = await callTool(connection, "read", { path: FILE });
    const content = (read.data as { content?: unknown } | null)?.content;
    if (typeof content !== "string" || !content.includes(token)) {
      fail(`read returned ${JSON.stringify(read.data).slice(0, 200)}, not the file's text`);
    }
    passed.push("read");

    const bundled = engine
      .listTools()
      .filter((tool) => tool.origin.layer === "bundled")
      .map((tool) => tool.id);
    if (!bundled.includes(BUNDLED_TOOL)) {
      fail(
        `the bundled plugins were not loaded from ${options.bundledPluginsDir} ` +
          `(bundled tools: ${bundled.join(", ") || "none"})`,
      );
    }
    const counted = await callTool(connection, BUNDLED_TOOL, { paths: [FILE] });
    const words = (counted.data as { total?: { words?: unknown } } | null)?.total?.words;
    const expectedWords = text.split(/\s+/).filter(Boolean).length;
    if (words !== expectedWords) {
      fail(`${BUNDLED_TOOL} counted ${String(words)} words in ${FILE}, not ${expectedWords}`);
    }
    passed.push(`bundled plugin ${BUNDLED_TOOL} (isolated-vm)`);

    const audited = engine
      .audit()
      .query({ limit: 10 })
      .map((row) => row.toolId);
    if (!audited.includes("read") || !audited.includes(BUNDLED_TOOL)) {
      fail(`the audit trail holds ${audited.join(", ") || "nothing"}, not the two calls just made`);
    }
    passed.push("audit (better-sqlite3)");

    await checkTerminal();
    passed.push("node-pty");
    await checkLlama();
    passed.push("llama.cpp");

    for (const check of options.extraChecks ?? []) {
      try {
        await check.run();
      } catch (error) {
        fail(`${check.name}: ${errorMessage(error)}`);
      }
      passed.push(check.name);
    }
    return passed;
  } finally {
    await closeQuietly(connection, host, engine);
  }
}

/** One `tools.call` through the router, exactly as a window sends it; the envelope must be output. */
async function callTool(
  connection: UiConnection,
  toolId: string,
  args: unknown,
): Promise<Extract<Envelope, { type: "output" }>> {
  const result = await connection.router.dispatch("tools.call", { toolId, args });
  if (!result.ok) fail(`${toolId} was refused by the router: ${result.error.message}`);
  const parsed = EnvelopeSchema.safeParse(result.data);
  if (!parsed.success) fail(`${toolId} returned something that is not an envelope: ${parsed.error.message}`);
  const envelope = parsed.data;
  if (envelope.type === "error") fail(`${toolId} returned an error envelope: ${envelope.error_text}`);
  return envelope;
}

/** node-pty's addon loads and starts a process through a pseudo-terminal (its spawn-helper on macOS). */
async function checkTerminal(): Promise<void> {
  let pty: typeof NodePty;
  try {
    pty = await import("node-pty");
  } catch (error) {
    fail(`node-pty did not load: ${errorMessage(error)}`);
  }
  const [file, args] =
    process.platform === "win32" ? ["cmd.exe", ["/c", "exit 0"]] : ["/bin/sh", ["-c", "exit 0"]];
  let exitCode: number;
  try {
    exitCode = await new Promise<number>((resolve) => {
      const child = pty.spawn(file, args, { cols: 80, rows: 24, cwd: os.tmpdir(), env: process.env });
      child.onExit((event) => resolve(event.exitCode));
    });
  } catch (error) {
    fail(`node-pty could not start ${file}: ${errorMessage(error)}`);
  }
  if (exitCode !== 0) fail(`node-pty ran \`${file} ${args.join(" ")}\`, which exited ${exitCode}`);
}

/** node-llama-cpp finds and loads its prebuilt CPU binary (nothing is downloaded or built). */
async function checkLlama(): Promise<void> {
  try {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    const llama = await getLlama({
      gpu: false,
      build: "never",
      skipDownload: true,
      usePrebuiltBinaries: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
    });
    await llama.dispose();
  } catch (error) {
    fail(`node-llama-cpp could not load its binary: ${errorMessage(error)}`);
  }
}

async function closeQuietly(
  connection: UiConnection | undefined,
  host: EngineHost | undefined,
  engine: Engine | undefined,
): Promise<void> {
  for (const close of [() => connection?.close(), () => host?.close(), () => engine?.close()]) {
    try {
      await close();
    } catch (error) {
      console.error("lathe smoke-test: closing after the checks failed:", error);
    }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new SmokeTimeout(`the checks did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
