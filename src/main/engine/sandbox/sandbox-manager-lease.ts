import { SandboxManager, type SandboxRuntimeConfig } from "@anthropic-ai/sandbox-runtime";
import { LIBRARY_SCAN } from "./linux-offline-wrap.ts";

type Manager = typeof SandboxManager;

/**
 * The process-wide configuration: no network, no extra writes. Every command passes its own
 * filesystem rules when it is wrapped and its own allowed hosts as a per-command list, so
 * engines for different workspaces (and different settings) share one manager safely.
 */
const BASE_CONFIG: SandboxRuntimeConfig = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  // See linux-offline-wrap.ts: Lathe names the workspace's protected paths itself.
  mandatoryDenySearchDepth: LIBRARY_SCAN.mandatoryDenySearchDepth,
  ripgrep: { command: LIBRARY_SCAN.ripgrepConfig.command },
};

let initialized: Promise<void> | undefined;
let holders = 0;

/** A hold on the process-wide SandboxManager (its network proxy and, on Linux, its socat bridge). */
export interface ManagerLease {
  readonly manager: Manager;
  /** Give the hold back; the manager stops (proxy, bridge) when nobody holds it. */
  release(): Promise<void>;
}

/**
 * Start the SandboxManager once per process, on first need (its proxy is only needed for
 * commands that may reach the network, and on macOS for every command), and keep it while
 * anyone holds a lease.
 */
export async function leaseSandboxManager(): Promise<ManagerLease> {
  holders++;
  try {
    initialized ??= SandboxManager.initialize(BASE_CONFIG).catch((err: unknown) => {
      initialized = undefined;
      throw err;
    });
    await initialized;
  } catch (err) {
    holders--;
    throw err;
  }
  let released = false;
  return {
    manager: SandboxManager,
    async release() {
      if (released) return;
      released = true;
      if (--holders > 0) return;
      initialized = undefined;
      await SandboxManager.reset();
    },
  };
}
