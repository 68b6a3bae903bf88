import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ManagerLease } from "./sandbox-manager-lease.ts";
import { machineKey, type SandboxAvailabilityCache } from "./sandbox-availability-cache.ts";
import { sandboxLibrary } from "./sandbox-library.ts";

/** Whether the OS sandbox confines the processes Lathe starts, and if not, why and what to do. */
export interface SandboxStatus {
  active: boolean;
  /** What confines them when active: "bubblewrap" (Linux) or "Seatbelt" (macOS). */
  mechanism?: string;
  /** Why it is not active. */
  reason?: string;
  /** What a person can do about it. */
  fix?: string;
  /** Things that weaken it without stopping it (from the sandbox library's own check). */
  warnings: string[];
}

/** What the availability check asks of the machine; tests inject their own. */
export interface SandboxProbe {
  platform: NodeJS.Platform;
  /** The library's dependency check: any error means the sandbox cannot start. */
  dependencies():
    { errors: string[]; warnings: string[] } | Promise<{ errors: string[]; warnings: string[] }>;
  /** Start one real sandboxed command; resolves to what went wrong, or undefined when it ran. */
  trial(): Promise<string | undefined>;
}

const MECHANISMS: Partial<Record<NodeJS.Platform, string>> = { linux: "bubblewrap", darwin: "Seatbelt" };

const INSTALL: Partial<Record<NodeJS.Platform, string>> = {
  linux:
    "install them (Debian/Ubuntu: sudo apt-get install bubblewrap socat ripgrep; Fedora: sudo dnf install bubblewrap socat ripgrep; Arch: sudo pacman -S bubblewrap socat ripgrep)",
  darwin: "install ripgrep (brew install ripgrep); sandbox-exec ships with macOS",
};

const USER_NAMESPACES =
  "let unprivileged processes create user namespaces, which bubblewrap needs: sudo sysctl -w kernel.unprivileged_userns_clone=1 (Debian), and on Ubuntu 23.10 or later also sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or install an AppArmor profile for bwrap); in a container, run it with user namespaces allowed (e.g. docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined)";

/** Run a shell line and collect its stderr; resolves to undefined when it exits 0. */
function runLine(line: string, cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const { spawn } = process.getBuiltinModule("node:child_process");
    const child = spawn("/bin/bash", ["-c", line], { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
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

/** The real machine: the library's dependency check, then one sandboxed `true` in a temp folder. */
const machineProbe: SandboxProbe = {
  platform: process.platform,
  dependencies: async () => (await sandboxLibrary()).checkDependencies(),
  async trial() {
    const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-sandbox-probe-"));
    let lease: ManagerLease | undefined;
    try {
      const { confineCommand, leaseSandboxManager } = await sandboxLibrary();
      const confined = await confineCommand(
        "true",
        { writable: [dir], readOnly: [], network: [], missingFiles: "leave" },
        {
          manager: async () => (lease = await leaseSandboxManager()),
        },
      );
      try {
        return await runLine(confined.line, dir);
      } finally {
        confined.release();
      }
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    } finally {
      await lease?.release();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

function inactive(reason: string, fix: string, warnings: string[] = []): SandboxStatus {
  return { active: false, reason, fix, warnings };
}

/** Whether this machine can run the sandbox at all (settings aside). */
async function machineAvailability(probe: SandboxProbe): Promise<SandboxStatus> {
  const mechanism = MECHANISMS[probe.platform];
  if (mechanism === undefined) {
    return inactive(
      `Lathe does not drive an OS sandbox on ${probe.platform === "win32" ? "Windows" : probe.platform} yet`,
      "run Lathe on Linux or macOS (on Windows, inside WSL 2 with bubblewrap, socat and ripgrep installed)",
    );
  }
  const { errors, warnings } = await probe.dependencies();
  if (errors.length > 0) {
    const missing = errors.filter((e) => /not (installed|found)/.test(e));
    const fix =
      missing.length === errors.length
        ? (INSTALL[probe.platform] ?? "install the missing programs")
        : "see the message above; on Linux the sandbox needs bubblewrap, socat and ripgrep and unprivileged user namespaces";
    return inactive(`the sandbox cannot start: ${errors.join("; ")}`, fix, warnings);
  }
  const failure = await probe.trial();
  if (failure !== undefined) {
    const fix =
      probe.platform === "linux"
        ? USER_NAMESPACES
        : "check that sandbox-exec runs (it ships with macOS) and that nothing blocks it";
    return inactive(`${mechanism} could not start a sandbox here (${failure})`, fix, warnings);
  }
  return { active: true, mechanism, warnings };
}

let cached: Promise<SandboxStatus> | undefined;

/**
 * The real machine's answer: with a cache, the kept one while its key matches (unless `reuse` is
 * false), else checked and kept.
 */
async function checkMachine(
  cache: SandboxAvailabilityCache | undefined,
  reuse: boolean,
): Promise<SandboxStatus> {
  if (!cache) return machineAvailability(machineProbe);
  const key = machineKey();
  const known = reuse ? cache.read(key) : undefined;
  if (known) return known;
  const status = await machineAvailability(machineProbe);
  try {
    cache.write(key, status);
  } catch {
    // A data folder that cannot be written only costs the next start the same check again.
  }
  return status;
}

/**
 * Whether this machine can run the sandbox, settings aside; checked once per process. With a
 * `cache` (under $LATHE_HOME) the answer is also kept between processes for as long as what it
 * depends on stays the same (see sandbox-availability-cache.ts), so a command that never starts
 * a process never pays for starting a sandbox. `refresh` checks again whatever the cache holds
 * and keeps the new answer (`lathe doctor`).
 */
export function machineSandbox(
  probe?: SandboxProbe,
  cache?: SandboxAvailabilityCache,
  options: { refresh?: boolean } = {},
): Promise<SandboxStatus> {
  if (probe) return machineAvailability(probe);
  if (options.refresh || cached === undefined) cached = checkMachine(cache, options.refresh !== true);
  return cached;
}

/**
 * Whether the OS sandbox is in force: off when the settings turn it off, else what this
 * machine allows. The machine check (a real sandboxed command) runs once per process, or once
 * per machine state with a `cache`.
 */
export function sandboxAvailability(
  settings: { enabled: boolean; enabledBy: string },
  probe?: SandboxProbe,
  cache?: SandboxAvailabilityCache,
): Promise<SandboxStatus> {
  if (!settings.enabled) {
    return Promise.resolve(
      inactive(
        `it is turned off ("sandbox": {"enabled": false} in ${settings.enabledBy})`,
        `remove that line, or set "enabled" to true, in ${settings.enabledBy}`,
      ),
    );
  }
  return machineSandbox(probe, cache);
}
