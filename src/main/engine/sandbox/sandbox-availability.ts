import type { SandboxCheck } from "../spawner/spawner-sandbox-check.ts";
import { machineKey, type SandboxAvailabilityCache } from "./sandbox-availability-cache.ts";
import { errorMessage } from "../errors/error-message.ts";

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

/**
 * The real machine, asked through the process spawner: the library's dependency check, then one
 * sandboxed `true` in a temp folder (spawner/spawner-sandbox-check.ts), both in one request, so
 * the host neither loads the library nor starts a process for it. One probe per check.
 */
function machineProbe(): SandboxProbe {
  let asked: Promise<SandboxCheck> | undefined;
  const ask = (): Promise<SandboxCheck> => {
    asked ??= import("../spawner/process-spawner.ts")
      .then(({ processSpawner }) => processSpawner().checkSandbox())
      .catch((err: unknown) => ({
        errors: [`the process spawner could not run the check (${errorMessage(err)})`],
        warnings: [],
      }));
    return asked;
  };
  return {
    platform: process.platform,
    dependencies: async () => {
      const { errors, warnings } = await ask();
      return { errors, warnings };
    },
    trial: async () => (await ask()).failure,
  };
}

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

/** This process's answer, with the machine key it was checked under when a cache was given. */
let cached: { key: string | undefined; status: Promise<SandboxStatus> } | undefined;

/**
 * The real machine's answer: with a cache, the kept one while it was kept for `key` (unless
 * `reuse` is false), else checked and kept.
 */
async function checkMachine(
  cache: SandboxAvailabilityCache | undefined,
  key: string | undefined,
  reuse: boolean,
): Promise<SandboxStatus> {
  if (!cache || key === undefined) return machineAvailability(machineProbe());
  const known = reuse ? cache.read(key) : undefined;
  if (known) return known;
  const status = await machineAvailability(machineProbe());
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
 * a process never pays for starting a sandbox; and a process that lives long (the CLI's daemon,
 * the app) checks again when that changes — bubblewrap installed or removed, PATH changed — not
 * only at its next start. `refresh` checks again whatever the cache holds and keeps the new
 * answer (`lathe doctor`).
 */
export function machineSandbox(
  probe?: SandboxProbe,
  cache?: SandboxAvailabilityCache,
  options: { refresh?: boolean } = {},
): Promise<SandboxStatus> {
  if (probe) return machineAvailability(probe);
  const key = cache ? machineKey() : undefined;
  if (options.refresh || cached === undefined || (key !== undefined && cached.key !== key)) {
    cached = { key, status: checkMachine(cache, key, options.refresh !== true) };
  }
  return cached.status;
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
