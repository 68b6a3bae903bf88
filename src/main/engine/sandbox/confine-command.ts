import { randomBytes } from "node:crypto";
import type { ProtectedEntry } from "../policy/protected-paths.ts";
import { heldPaths, undoCreated } from "./held-paths.ts";
import { releaseMountPoints, wrapOffline } from "./linux-offline-wrap.ts";
import { guardMounts, type GuardedPath, type MountBreach } from "./mount-guard.ts";
import { watchRepos, type RepoWatch } from "./planted-repos.ts";
import type { ManagerLease } from "./sandbox-manager-lease.ts";

/** What one confined process may do. */
export interface ConfinementSpec {
  /** Folders (absolute) it may write; everything else is read-only. */
  writable: readonly string[];
  /** Paths that stay read-only even inside those folders, missing ones included. */
  readOnly: readonly ProtectedEntry[];
  /** Hosts it may reach; empty means no network at all. */
  network: readonly string[];
  /**
   * Paths (absolute) it cannot read: a folder appears empty, a file empty; those missing when
   * it starts are left alone. Everything else stays readable (see lathe-home-private.ts).
   */
  unreadable?: readonly string[];
  /** Folders (absolute) inside those it may read after all (a session's own sidecar files). */
  readable?: readonly string[];
  /** It runs on a terminal Lathe allocated (macOS must then allow terminal operations). */
  pty?: boolean;
  /**
   * What becomes of protected FILES that do not exist yet (see `heldPaths`): "undo" watches
   * them and removes any the process created when it is released (for a call's short-lived
   * process); "leave" does not (a long-running server, whose release may come hours later).
   */
  missingFiles: "undo" | "leave";
  /**
   * The workspace (canonical), below which git repositories a short-lived process makes or
   * changes are made inert when it ends (see planted-repos.ts): with "undo" only.
   */
  workspace?: string;
}

/** A command made ready to run confined. */
export interface ConfinedCommand {
  /** A shell line to run with `bash -c`: bubblewrap (or sandbox-exec) running the command. */
  line: string;
  /**
   * Call once the process has exited, or when it never started (idempotent). Returns the
   * protected files the process created (with "undo"), which have been removed.
   */
  release(): string[];
  /**
   * Watch what the sandbox holds for the process (see mount-guard.ts): `onBreach` is called once
   * when a protected or hidden path is replaced or removed outside the sandbox (or, for a
   * long-running process, a missing protected file appears), after which the process must be
   * stopped. `release` stops the watching.
   */
  guard(onBreach: (breach: MountBreach) => void): void;
  /**
   * Once the process has ended (and only then): take out of git repositories below the
   * workspace what it added that makes git run a program; the notice saying what ("" for none).
   */
  disarmRepos(): Promise<string>;
}

interface ConfineOptions {
  signal?: AbortSignal;
  /** The process-wide SandboxManager, started on first need. */
  manager(): Promise<ManagerLease>;
}

function once(fn: () => string[]): () => string[] {
  let done = false;
  return () => {
    if (done) return [];
    done = true;
    return fn();
  };
}

/** The paths whose mounts a running process depends on (see mount-guard.ts). */
function guardedPaths(
  spec: ConfinementSpec,
  denyWrite: readonly string[],
  watched: readonly string[],
): GuardedPath[] {
  const held = new Set(denyWrite);
  const out: GuardedPath[] = spec.readOnly
    .filter((entry) => held.has(entry.path))
    .map((entry) => ({ path: entry.path, what: entry.what, held: "present" }));
  for (const hidden of spec.unreadable ?? [])
    out.push({ path: hidden, what: "a path hidden from confined processes", held: "present" });
  // A short command's own creations are undone when it ends (see heldPaths); a server may run for
  // hours, during which a missing protected file can appear (`git init` in a terminal) unheld.
  if (spec.missingFiles === "leave") {
    for (const entry of spec.readOnly)
      if (watched.includes(entry.path)) out.push({ path: entry.path, what: entry.what, held: "absent" });
  }
  return out;
}

/** Release and guard for one wrapped command, the guard stopped by the release. */
function lifecycle(
  spec: ConfinementSpec,
  denyWrite: readonly string[],
  watched: readonly string[],
  repos: RepoWatch | undefined,
  cleanup: () => string[],
): Omit<ConfinedCommand, "line"> {
  let unguard: (() => void) | undefined;
  let released = false;
  return {
    release: once(() => {
      released = true;
      unguard?.();
      return cleanup();
    }),
    guard(onBreach) {
      if (released || unguard) return;
      unguard = guardMounts(guardedPaths(spec, denyWrite, watched), onBreach, spec.writable);
    },
    disarmRepos: () => repos?.disarm() ?? Promise.resolve(""),
  };
}

/**
 * Wrap a shell command so it runs in the OS sandbox: writes only to `writable` minus the
 * protected paths, network only to `network` (none by default), its own PID namespace (it can
 * signal nothing outside), and its whole process tree ends with it. Throws when the sandbox
 * cannot wrap it (the caller refuses the call: it never runs the command unconfined).
 *
 * The library also protects shell and git files around this PROCESS's working directory,
 * covering missing ones with placeholders while a command runs: call it from a process whose
 * working directory lies outside every workspace (the process spawner's own empty folder, or a
 * fresh temp folder as in the machine check), or they show up in the workspace.
 */
export async function confineCommand(
  command: string,
  spec: ConfinementSpec,
  options: ConfineOptions,
): Promise<ConfinedCommand> {
  const { denyWrite, watched } = heldPaths(spec.readOnly);
  const undo = spec.missingFiles === "undo" ? watched : [];
  const repos =
    spec.workspace !== undefined && spec.missingFiles === "undo"
      ? await watchRepos(spec.workspace)
      : undefined;
  // Mount points bubblewrap made for missing protected paths are removed once no sandbox runs.
  const cleanup = (): string[] => {
    releaseMountPoints();
    return undoCreated(undo);
  };
  if (process.platform === "linux" && spec.network.length === 0) {
    const line = await wrapOffline({
      command,
      allowWrite: spec.writable,
      denyWrite,
      denyRead: spec.unreadable ?? [],
      allowRead: spec.readable ?? [],
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { line, ...lifecycle(spec, denyWrite, watched, repos, cleanup) };
  }
  const { manager } = await options.manager();
  // Unguessable (128 bits): the proxy gives a connection this list when it presents the id.
  const commandId = randomBytes(16).toString("base64url");
  if (spec.network.length > 0)
    manager.registerCommandNetworkLists(commandId, { allowedDomains: [...spec.network] });
  const unregister = (): void => manager.unregisterCommandNetworkLists(commandId);
  let line: string;
  try {
    line = await manager.wrapWithSandbox(
      command,
      undefined,
      {
        filesystem: {
          denyRead: [...(spec.unreadable ?? [])],
          allowRead: [...(spec.readable ?? [])],
          allowWrite: [...spec.writable],
          denyWrite,
        },
        ...(spec.pty ? { allowPty: true } : {}),
      },
      options.signal,
      { commandId },
    );
  } catch (err) {
    unregister();
    throw err;
  }
  return {
    line,
    ...lifecycle(spec, denyWrite, watched, repos, () => {
      unregister();
      return cleanup();
    }),
  };
}
