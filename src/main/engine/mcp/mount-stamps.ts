import { statSync } from "node:fs";
import type { SpawnerConfinement } from "../spawner/spawner-protocol.ts";

/**
 * Which file a path names now, or undefined when there is none: device, inode and when it was
 * made (an inode number is handed out again once freed: see mount-guard.ts's fileIdentity, the
 * spawner's twin of this, kept apart so that the CLI's engine chunk and the spawner's share no
 * module of their own).
 */
function fileAt(file: string): string | undefined {
  const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}:${stat.birthtimeNs || stat.ctimeNs}` : undefined;
}

/**
 * A check that the files and folders an OS sandbox mounts are still the ones it mounted. The
 * sandbox binds each by what it is when the process starts; once the path names another file — a
 * workspace removed and made again, a `.git/config` git rewrote by renaming a new file over it, a
 * `sandbox.denyRead` secret a tool replaced the same way — the mount is gone from the process's
 * view, and it sees (and may write) the new one through the folder above. A process started now
 * would mount the new one: a server started before must not be handed on as if it were that.
 * Paths missing at the start are left out (the sandbox holds them by a mount point of its own).
 */
export function mountsUnchanged(spec: SpawnerConfinement): () => boolean {
  const paths = [
    ...spec.writable,
    ...spec.readOnly.map((entry) => entry.path),
    ...(spec.unreadable ?? []),
    ...(spec.readable ?? []),
  ];
  const stamps = new Map<string, string>();
  for (const file of new Set(paths)) {
    const stamp = fileAt(file);
    if (stamp !== undefined) stamps.set(file, stamp);
  }
  return () => [...stamps].every(([file, stamp]) => fileAt(file) === stamp);
}
