import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hasSmokeTestFlag, runSmokeTest } from "./smoke-test.ts";

const bundledPluginsDir = path.resolve(import.meta.dirname, "../../../plugins");

let tmpDir: string;
let lines: string[];
const print = (line: string) => lines.push(line);

beforeEach(async () => {
  tmpDir = await mkdtemp(path.join(os.tmpdir(), "lathe-smoke-test-"));
  lines = [];
});
afterEach(async () => {
  await rm(tmpDir, { recursive: true, force: true });
});

describe("hasSmokeTestFlag", () => {
  it.each([
    { argv: ["/opt/Lathe/lathe", "--smoke-test"], expected: true },
    { argv: ["/opt/Lathe/lathe", "--no-sandbox", "--smoke-test", "--enable-logging"], expected: true },
    { argv: ["electron", ".", "--root", "/work"], expected: false },
    { argv: ["/opt/Lathe/lathe", "--smoke-test=1"], expected: false },
    { argv: ["/opt/Lathe/lathe", "--root", "--smoke-tests"], expected: false },
  ])("$argv → $expected", ({ argv, expected }) => {
    expect(hasSmokeTestFlag(argv)).toBe(expected);
  });
});

describe("runSmokeTest", () => {
  it("passes on a working install: read, a bundled plugin, the audit trail and the native modules", async () => {
    const result = await runSmokeTest({ bundledPluginsDir, tmpDir, print });
    expect(result.line).toMatch(
      /^lathe smoke-test: ok in \d+ ms \(read, bundled plugin word_count \(isolated-vm\), audit \(better-sqlite3\), node-pty, llama\.cpp\)$/,
    );
    expect(result.exitCode).toBe(0);
    expect(lines).toEqual([result.line]);
    // Its temporary workspace and LATHE_HOME are gone.
    expect(await readdir(tmpDir)).toEqual([]);
  });

  it("fails, naming the folder, when the bundled plugins are not where the app looks", async () => {
    const missing = path.join(tmpDir, "resources", "plugins");
    await mkdir(missing, { recursive: true });
    const result = await runSmokeTest({ bundledPluginsDir: missing, tmpDir, print });
    expect(result.exitCode).toBe(1);
    expect(result.line).toBe(
      `lathe smoke-test: FAILED — the bundled plugins were not loaded from ${missing} (bundled tools: none)`,
    );
    expect(lines).toEqual([result.line]);
    expect((await readdir(tmpDir)).filter((name) => name.startsWith("lathe-smoke-"))).toEqual([]);
  });

  it("runs the host's extra checks last and fails with the failing one's name and reason", async () => {
    const ran: string[] = [];
    const result = await runSmokeTest({
      bundledPluginsDir,
      tmpDir,
      print,
      extraChecks: [
        { name: "first", run: async () => void ran.push("first") },
        {
          name: "window",
          run: async () => {
            ran.push("window");
            throw new Error("the preload did not expose window.lathe");
          },
        },
        { name: "never", run: async () => void ran.push("never") },
      ],
    });
    expect(ran).toEqual(["first", "window"]);
    expect(result.exitCode).toBe(1);
    expect(result.line).toBe("lathe smoke-test: FAILED — window: the preload did not expose window.lathe");
  });

  it("fails rather than hangs when the checks take longer than allowed", async () => {
    let release = () => {};
    let released = false;
    const stuck = () =>
      new Promise<void>((resolve) => {
        release = resolve;
        if (released) resolve();
      });
    const result = await runSmokeTest({
      bundledPluginsDir,
      tmpDir,
      print,
      timeoutMs: 50,
      extraChecks: [{ name: "stuck", run: stuck }],
    });
    expect(result.exitCode).toBe(1);
    expect(result.line).toBe("lathe smoke-test: FAILED — the checks did not finish within 50 ms");
    expect(lines).toEqual([result.line]);
    // The checks go on in the background and their folder is removed once they stop.
    released = true;
    release();
    await vi.waitFor(async () => expect(await readdir(tmpDir)).toEqual([]), {
      timeout: 15_000,
      interval: 50,
    });
  });
});
