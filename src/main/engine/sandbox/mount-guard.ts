import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { fileIdentity } from "./file-identity.ts";

/** A path the OS sandbox holds for a running process, and what it is (for the message). */
export interface GuardedPath {
  path: string;
  /** What it is, for messages ("git's configuration"). */
  what: string;
  /**
   * "present": mounted as the file or folder there at the start; "absent": missing at the start
   * and not held by a mount (a protected file: see held-paths.ts), so one appearing is reachable.
   */
  held: "present" | "absent";
}

/** How a guarded path stopped being what the sandbox holds. */
export interface MountBreach {
  path: string;
  what: string;
  change: "replaced" | "removed" | "created";
}

/** How often every guarded path is looked at again, besides the file-system events. */
const POLL_MS = 1000;
/**
 * How long a folder's watch is kept once no guard uses it. Adding a watch can take a
 * millisecond or more on a busy folder (`/tmp`), and tens of them just after one on the same
 * folder was removed: the next command, which guards the same folders, reuses it instead.
 */
const LINGER_MS = 60_000;

/** A folder watched for any guard that needs it: the names each guard cares about, and its listener. */
interface FolderWatch {
  watcher: FSWatcher | undefined;
  listeners: Map<symbol, { names: ReadonlySet<string>; changed: () => void }>;
  linger: NodeJS.Timeout | undefined;
}

/** The folders watched in this process, shared by the guards running at once and after. */
const folders = new Map<string, FolderWatch>();

function listen(folder: string, key: symbol, names: ReadonlySet<string>, changed: () => void): void {
  let entry = folders.get(folder);
  if (!entry) {
    const created: FolderWatch = { watcher: undefined, listeners: new Map(), linger: undefined };
    try {
      created.watcher = watch(folder, { persistent: false }, (_event, name) => {
        const entryName = name?.toString();
        for (const listener of [...created.listeners.values()])
          if (entryName === undefined || listener.names.has(entryName)) listener.changed();
      });
      // Gone or unwatchable from now on: the guards' poll still looks.
      created.watcher.on("error", () => {
        created.watcher?.close();
        created.watcher = undefined;
      });
    } catch {
      // Not watchable (gone, unreadable, the system's watch limit): the guards' poll still looks.
    }
    entry = created;
    folders.set(folder, entry);
  }
  clearTimeout(entry.linger);
  entry.linger = undefined;
  entry.listeners.set(key, { names, changed });
}

function unlisten(folder: string, key: symbol): void {
  const entry = folders.get(folder);
  if (!entry || !entry.listeners.delete(key) || entry.listeners.size > 0) return;
  entry.linger = setTimeout(() => {
    if (entry.listeners.size > 0 || folders.get(folder) !== entry) return;
    folders.delete(folder);
    entry.watcher?.close();
  }, LINGER_MS);
  entry.linger.unref();
}

/**
 * The folders whose entries, when renamed or removed, change what `file` names in the
 * sandbox, each with the name of the entry in it that leads to `file`: its own folder, and
 * those above it up to the writable folder that holds it. (A `.git` renamed away in the
 * workspace takes its `config` along; above the workspace, a rename moves the workspace's own
 * mount with it, and the sandbox's path then names nothing new.)
 */
function namesOnTheWay(file: string, writable: readonly string[]): Array<[folder: string, name: string]> {
  const out: Array<[string, string]> = [];
  for (let at = file, up = path.dirname(at); up !== at; at = up, up = path.dirname(at)) {
    out.push([up, path.basename(at)]);
    if (writable.includes(up) || !writable.some((root) => up.startsWith(`${root}/`))) break;
  }
  return out;
}

/**
 * Watch the paths an OS sandbox mounts for a running process. Bubblewrap binds a protected file
 * (`.git/config`, a `sandbox.denyRead` secret) by the file that is there when the process
 * starts; when something outside the sandbox renames a new file over it (as git rewrites its
 * config) or removes it, the kernel drops that mount from the process's view, and from then on
 * the process sees — and may write — whatever the path names through the folder above. Nothing
 * can put the mount back into a running sandbox, so the one safe answer is to stop the process:
 * `onBreach` is called (once) as soon as a guarded path names another file, none, or (for one
 * missing at the start) one that appeared. The paths are stamped now (call this before the
 * process starts); events on the folders on the way to each path (up to the `writable` folder
 * holding it) wake the check at once, and a look every second covers what the system did not
 * deliver. Returns the function that stops watching.
 */
export function guardMounts(
  paths: readonly GuardedPath[],
  onBreach: (breach: MountBreach) => void,
  writable: readonly string[] = [],
): () => void {
  const stamps = new Map<string, { guarded: GuardedPath; stamp: string | undefined }>();
  for (const guarded of paths) {
    const stamp = fileIdentity(guarded.path);
    // A path held as present but gone already was never mounted: there is nothing to lose.
    if (guarded.held === "present" && stamp === undefined) continue;
    if (guarded.held === "absent" && stamp !== undefined) continue;
    stamps.set(guarded.path, { guarded, stamp });
  }
  if (stamps.size === 0) return () => undefined;

  const key = Symbol("guard");
  const watched = new Map<string, Set<string>>();
  for (const file of stamps.keys()) {
    for (const [folder, name] of namesOnTheWay(file, writable)) {
      const names = watched.get(folder) ?? new Set<string>();
      names.add(name);
      watched.set(folder, names);
    }
  }
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(poll);
    clearImmediate(start);
    for (const folder of watched.keys()) unlisten(folder, key);
  };
  const check = (): void => {
    if (stopped) return;
    for (const { guarded, stamp } of stamps.values()) {
      const now = fileIdentity(guarded.path);
      if (now === stamp) continue;
      const change = stamp === undefined ? "created" : now === undefined ? "removed" : "replaced";
      stop();
      onBreach({ path: guarded.path, what: guarded.what, change });
      return;
    }
  };
  // The watches after the process has started, off its way; a change before them is caught by
  // the look that follows them (the stamps are from before).
  const start = setImmediate(() => {
    for (const [folder, names] of watched) listen(folder, key, names, check);
    check();
  });
  const poll = setInterval(check, POLL_MS);
  poll.unref();
  return stop;
}

/**
 * Why a process was stopped for a breach, as a clause to follow "Lathe stopped …: ". `root`
 * shortens the path when it lies in the workspace.
 */
export function breachMessage(breach: MountBreach, root?: string): string {
  const shown = root && breach.path.startsWith(`${root}/`) ? breach.path.slice(root.length + 1) : breach.path;
  const named = `${shown} (${breach.what})`;
  if (breach.change === "created")
    return `${named} was created while it ran (by it, or outside the sandbox), and the OS sandbox cannot hold a path that was missing when the process started, so the process would have been able to change it. If nobody meant to create it, remove it. Run the process again to have the path held read-only as it is now.`;
  const how =
    breach.change === "replaced"
      ? "was replaced outside the sandbox while it ran (a new file renamed over it, as git rewrites its config)"
      : "was removed or renamed outside the sandbox while it ran";
  return `${named} ${how}. The OS sandbox keeps such a path read-only or hidden only as it was when the process started, so the process would have been able to change or read the new one. Nothing was wrong with the process itself: run it again, and it starts with the path protected as it is now.`;
}
