import { processExists } from "../spawner/process-exists.ts";

/** A row saying which process holds something: its pid, its machine, and the token it took it with. */
export interface ProcessHolderRow {
  token: string;
  pid: number;
  host: string;
}

/**
 * Whether the process a row names still holds what it took, age aside (each table judges age by
 * its own clock). One on another machine sharing the folder cannot be looked up: it counts as
 * there. This process knows its own holdings (`heldHere`): a row in its name it does not hold is
 * left over (from a copy of the database, say). Otherwise a process with that pid must exist.
 */
export function processStillHolds(
  row: ProcessHolderRow,
  host: string,
  heldHere: ReadonlySet<string>,
): boolean {
  if (row.host !== host) return true;
  if (row.pid === process.pid) return heldHere.has(row.token);
  return processExists(row.pid);
}
