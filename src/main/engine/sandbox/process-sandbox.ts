import type { SpawnerConfinement } from "../spawner/spawner-protocol.ts";
import type { SandboxStatus } from "./sandbox-availability.ts";

/**
 * How one process is to be confined: what the sandbox allows it (see confine-command.ts's
 * ConfinementSpec; the process spawner makes the wrap) and what its environment must add.
 */
export interface Confinement {
  spec: SpawnerConfinement;
  /** Environment for the confined process (TMPDIR: its own temp folder; SHLVL; npm offline without network). */
  env: Record<string, string>;
}

export interface ConfinementOptions {
  /** The process runs on a terminal Lathe allocated (bash). */
  pty?: boolean;
}

/**
 * What to tell the model when a confined process created protected files (removed again): the
 * paths relative to the workspace, or an empty string when there were none.
 */
export function undoneNotice(root: string, removed: readonly string[]): string {
  if (removed.length === 0) return "";
  const names = removed.map((p) => (p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p));
  return `\n[Lathe removed ${names.join(", ")}: the command created ${removed.length > 1 ? "them" : "it"}, and ${removed.length > 1 ? "they are protected paths" : "it is a protected path"} (git reads ${removed.length > 1 ? "them" : "it"} as configuration). A person can create ${removed.length > 1 ? "them" : "it"} outside the agent.]\n`;
}

/** What a tool that starts processes gets: whether the sandbox is on, and the way into it. */
export interface ProcessSandbox {
  readonly status: SandboxStatus;
  /**
   * Variables a process started for the model or an extension starts without, sandbox or not:
   * those holding Lathe's own keys (config/key-variables.ts) and `sandbox.denyEnv`, as names and
   * `*` patterns (hidden-env.ts).
   */
  readonly hiddenEnv?: readonly string[];
  /**
   * How to confine a process (the spawner wraps and starts it). Throws SandboxError when the
   * sandbox is not active: the caller then refuses, it never runs the command unconfined.
   */
  confinement(options?: ConfinementOptions): Promise<Confinement>;
}
