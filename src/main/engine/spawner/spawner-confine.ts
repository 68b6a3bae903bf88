// The OS sandbox wrap as the spawner makes it: the sandbox library (and the `which` and scan
// processes it starts while wrapping) lives in the spawner, never in the host.
import { confineCommand, type ConfinedCommand, type ConfinementSpec } from "../sandbox/confine-command.ts";
import type { ManagerLease } from "../sandbox/sandbox-manager-lease.ts";
import { abortedBeforeStart, RequestFailure } from "./spawner-failure.ts";
import { errorMessage } from "../errors/error-message.ts";

let lease: Promise<ManagerLease> | undefined;

/**
 * The spawner's hold on the SandboxManager (its proxy), taken on first need, kept until it exits.
 * Loaded then too: a command given no network is wrapped without it (confine-command.ts).
 */
function manager(): Promise<ManagerLease> {
  lease ??= import("../sandbox/sandbox-manager-lease.ts")
    .then(({ leaseSandboxManager }) => leaseSandboxManager())
    .catch((err: unknown) => {
      lease = undefined;
      throw err;
    });
  return lease;
}

/** Wrap `command` to run confined by `spec`, with the spawner's manager when it needs one; throws as the library does. */
export function confineWithManager(
  command: string,
  spec: ConfinementSpec,
  signal: AbortSignal,
): Promise<ConfinedCommand> {
  return confineCommand(command, spec, { signal, manager });
}

/**
 * Wrap `command` to run confined by `spec`. Throws RequestFailure: "aborted" when `signal`
 * stopped it, "sandbox" when the sandbox could not wrap it (the caller never runs it unconfined).
 */
export async function confineInSpawner(
  command: string,
  spec: ConfinementSpec,
  signal: AbortSignal,
): Promise<ConfinedCommand> {
  try {
    return await confineWithManager(command, spec, signal);
  } catch (err) {
    const message = errorMessage(err);
    if (signal.aborted) throw abortedBeforeStart();
    // The library's code for a command line that its wrapping makes too long for Linux.
    const tooLong = (err as { code?: unknown }).code === "command_too_long";
    throw new RequestFailure({
      kind: "sandbox",
      message: `The OS sandbox could not wrap the command, so it did not run: ${message}`,
      ...(tooLong ? { code: "command_too_long" } : {}),
    });
  }
}

/** Stop the SandboxManager's proxy, if it was started (the spawner is exiting). */
export async function releaseManager(): Promise<void> {
  const held = lease;
  lease = undefined;
  if (held) await (await held.catch(() => undefined))?.release();
}
