import type { ConfinedCommand, ConfinementSpec } from "../sandbox/confine-command.ts";

/**
 * `command` wrapped for the OS sandbox when the request carries a confinement, else undefined.
 * The sandbox side (spawner-confine.ts, with the library) loads with the first confined request.
 * Throws RequestFailure as confineInSpawner does.
 */
export async function confineWhenAsked(
  command: string,
  spec: ConfinementSpec | undefined,
  signal: AbortSignal,
): Promise<ConfinedCommand | undefined> {
  if (!spec) return undefined;
  const { confineInSpawner } = await import("./spawner-confine.ts");
  return confineInSpawner(command, spec, signal);
}
