import type { ProcessIdentity } from "./process-start.ts";

/**
 * The names of the temp folders Lathe makes in the OS temp folder for as long as a process
 * runs (a session's TMPDIR, an MCP server's, the process spawner's working folder):
 *
 *     lathe-<label>-<pid>.<start>.<namespace>-<six random characters of mkdtemp>
 *
 * with the pid, start time and pid namespace of the process that made it (base 36; 0 when
 * unknown), so that a later run can tell whether that process is gone (stale-temp-sweep.ts).
 * The label holds no ".", so a name parses one way only; names without the owner part (an older
 * Lathe's, a test's) never match.
 */
const OWNED = /^lathe-([A-Za-z0-9_-]+)-([0-9a-z]{1,13})\.([0-9a-z]{1,13})\.([0-9a-z]{1,13})-[A-Za-z0-9]{6}$/;

/** The largest pid any OS hands out is below 2^31 (Linux's ceiling is 2^22). */
const MAX_PID = 2 ** 31 - 1;

/** `label` as it may stand in a name: letters, digits, "_" and "-" (others become "_"). */
export function tempLabel(label: string): string {
  if (label === "") throw new RangeError("A temp folder's label must not be empty.");
  return label.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** What `mkdtemp` is given: the name up to its random part. */
export function ownedTempPrefix(label: string, owner: ProcessIdentity): string {
  const tag = [owner.pid, owner.start, owner.namespace].map((n) => n.toString(36)).join(".");
  return `lathe-${tempLabel(label)}-${tag}-`;
}

/** The owner a temp folder's name records, or undefined when the name is not of this kind. */
export function ownerOfTempName(name: string): ProcessIdentity | undefined {
  const match = OWNED.exec(name);
  if (!match) return undefined;
  const [pid, start, namespace] = [match[2], match[3], match[4]].map((part) =>
    parseInt(part as string, 36),
  ) as [number, number, number];
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(namespace)) return undefined;
  if (!Number.isInteger(pid) || pid < 1 || pid > MAX_PID) return undefined;
  return { pid, start, namespace };
}
