import { fork, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ripGrep as libraryRipGrep } from "@anthropic-ai/sandbox-runtime/dist/utils/ripgrep.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnerEntry } from "../spawner/process-spawner.ts";
import { SpawnerClient } from "../spawner/spawner-client.ts";
import { machineSandbox } from "./sandbox-availability.ts";
import { releaseMountPoints, wrapOffline } from "./linux-offline-wrap.ts";
import { NO_SCAN, ripGrep, whichSync } from "./sandbox-library-lookups.ts";
import { findProgram } from "./program-path.ts";

const LINUX = process.platform === "linux";
const machine = await machineSandbox();
if (!LINUX || !machine.active)
  console.log(
    `the spawner rows are skipped: they wrap a command with bubblewrap (${LINUX ? machine.reason : "Linux only"})`,
  );

let dir: string;
let savedPath: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "lathe-library-lookups-"));
  savedPath = process.env.PATH;
});
afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

/** An executable shell script `name` in `folder` (made if missing). */
function script(folder: string, name: string, body: string): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe.skipIf(process.platform === "win32")("whichSync, as the sandbox library's wrappers get it", () => {
  it("answers as `which` does, a missing program with null", () => {
    for (const program of ["bash", "sh", "env"]) {
      const which = spawnSync("which", [program], { encoding: "utf8" });
      expect(whichSync(program)).toBe(which.stdout.trim());
    }
    expect(whichSync("lathe-no-such-program")).toBeNull();
  });

  it("sees a changed PATH and a removed program at the next call (nothing is kept)", () => {
    const first = script(path.join(dir, "a"), "lathe-probe", "exit 0");
    const second = script(path.join(dir, "b"), "lathe-probe", "exit 0");
    process.env.PATH = `${path.join(dir, "a")}:${path.join(dir, "b")}`;
    expect(whichSync("lathe-probe")).toBe(first);
    process.env.PATH = path.join(dir, "b");
    expect(whichSync("lathe-probe")).toBe(second);
    rmSync(second);
    expect(whichSync("lathe-probe")).toBeNull();
    // A shell the wrappers look for that is gone: the library then refuses to wrap.
    process.env.PATH = dir;
    expect(whichSync("bash")).toBeNull();
  });
});

describe.skipIf(process.platform === "win32")("ripGrep, as the sandbox library's wrappers get it", () => {
  it("answers Lathe's no-scan command with no match without starting it", async () => {
    const signal = new AbortController().signal;
    // Positive control: the library starts the command, so with no `true` on PATH it fails.
    process.env.PATH = dir;
    await expect(libraryRipGrep(["--files"], dir, signal, { command: NO_SCAN })).rejects.toThrow(/ENOENT/);
    await expect(ripGrep(["--files"], dir, signal, { command: NO_SCAN })).resolves.toEqual([]);
  });

  it("runs any other command as the library does", async () => {
    const signal = new AbortController().signal;
    const listed = await ripGrep(["--files"], dir, signal, { command: "echo" });
    expect(listed).toEqual([`--files ${dir}`]);
  });

  it("refuses when aborted, as a started scan would", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stopped"));
    await expect(ripGrep([], dir, controller.signal, { command: NO_SCAN })).rejects.toThrow("stopped");
  });
});

describe("a confined command in the process spawner", () => {
  it.skipIf(!LINUX || !machine.active)(
    "is wrapped without starting `which` or the directory scan, and still runs confined",
    async () => {
      const log = path.join(dir, "started.log");
      const shims = path.join(dir, "shims");
      const realWhich = findProgram("which");
      expect(realWhich).toBeDefined();
      // `which` and `true` that note each start, found first on PATH.
      script(shims, "which", `echo "which $*" >> '${log}'\nexec '${realWhich}' "$@"`);
      script(shims, "true", `echo "true $*" >> '${log}'\nexit 0`);
      const PATH = `${shims}:${savedPath ?? ""}`;
      const workspace = path.join(dir, "ws");
      mkdirSync(workspace);

      // Positive control: the library's wrapper, called here, starts both.
      process.env.PATH = PATH;
      try {
        await wrapOffline({
          command: "exit 0",
          allowWrite: [workspace],
          denyWrite: [],
          denyRead: [],
          allowRead: [],
        });
      } finally {
        releaseMountPoints();
        process.env.PATH = savedPath;
      }
      const control = readFileSync(log, "utf8");
      expect(control).toMatch(/^which bash$/m);
      expect(control).toMatch(/^true --files/m);
      rmSync(log);

      const child = fork(spawnerEntry(), [], {
        execArgv: [],
        env: { ...process.env, PATH },
        serialization: "advanced",
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      });
      try {
        const client = new SpawnerClient(() => child);
        const outside = path.join(dir, "outside.txt");
        const line = `echo confined > '${path.join(workspace, "inside.txt")}'; echo escaped > '${outside}'; echo $$`;
        const result = await client.exec(
          {
            file: "/bin/sh",
            args: ["-c", line],
            line,
            cwd: workspace,
            // A home of its own: bash reads ~/.bashrc here (its stdin is a socket), and a person's
            // may take its time (pyenv's rehash waits for a lock it cannot take in the sandbox).
            env: { PATH, HOME: dir },
            confine: { writable: [workspace], readOnly: [], network: [], missingFiles: "undo" },
            timeoutMs: 30_000,
            maxBytes: 1024,
          },
          new AbortController().signal,
        );
        expect(existsSync(log)).toBe(false);
        // Still in the sandbox: it wrote in the workspace, not beside it, in a PID namespace of its own.
        expect(readFileSync(path.join(workspace, "inside.txt"), "utf8")).toBe("confined\n");
        expect(existsSync(outside)).toBe(false);
        expect(Number(result.stdout.toString("utf8").trim())).toBeLessThan(10);
      } finally {
        child.disconnect();
        await once(child, "exit");
      }
    },
  );
});
