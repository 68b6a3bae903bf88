import type { SandboxManager } from "@anthropic-ai/sandbox-runtime";
import type { confineCommand } from "./confine-command.ts";
import type { leaseSandboxManager } from "./sandbox-manager-lease.ts";

/** What Lathe uses of the sandbox library, with its own code around it. */
interface SandboxLibrary {
  checkDependencies: (typeof SandboxManager)["checkDependencies"];
  confineCommand: typeof confineCommand;
  leaseSandboxManager: typeof leaseSandboxManager;
}

let loading: Promise<SandboxLibrary> | undefined;

/**
 * The sandbox library, loaded on first need — the first process Lathe confines, or the machine
 * check — rather than at start: it brings a proxy with a TLS stack, tens of milliseconds that
 * `lathe tools` or a `read` should never pay. The one place that loads it.
 */
export function sandboxLibrary(): Promise<SandboxLibrary> {
  loading ??= Promise.all([
    import("@anthropic-ai/sandbox-runtime"),
    import("./confine-command.ts"),
    import("./sandbox-manager-lease.ts"),
  ]).then(([library, confine, lease]) => ({
    checkDependencies: (...args) => library.SandboxManager.checkDependencies(...args),
    confineCommand: confine.confineCommand,
    leaseSandboxManager: lease.leaseSandboxManager,
  }));
  return loading;
}
