// The library's own Linux wrapper, called directly for the one case SandboxManager cannot
// express: no network at all. Given any network configuration, SandboxManager routes every
// command through its proxy bridge (two socat relays started inside the sandbox before the
// command, about 10 ms each time); given none, it leaves the network open. Called with
// `needsNetworkRestriction` and no proxy sockets, this wrapper gives bubblewrap an empty
// network namespace instead: nothing can be reached, and nothing has to start first. The
// import reaches into the package (0.0.x, pinned); test/sandbox-hostile.test.ts proves the
// result confines writes, signals and the network, so an upgrade that changes it fails there.
import {
  cleanupBwrapMountPoints,
  wrapCommandWithSandboxLinux,
} from "@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js";
import { programPath } from "./program-path.ts";
import { NO_SCAN } from "./sandbox-library-lookups.ts";

/**
 * The library also protects shell and git files around the PROCESS's working directory,
 * scanning below it with ripgrep (from a working directory of `/` the default depth takes
 * seconds). Lathe names the workspace's protected paths itself and wraps from a directory of its
 * own (the process spawner's, spawner-main.ts), so the scan can find nothing that matters: at depth 1 it
 * would only repeat the working directory's own files, which the library lists without it.
 * `true` answers it at once; starting ripgrep (many threads) cost half of each wrap. In the process
 * spawner not even `true` is started: its answer is given without it (sandbox-library-lookups.ts).
 */
export const LIBRARY_SCAN = { mandatoryDenySearchDepth: 1, ripgrepConfig: { command: NO_SCAN } } as const;

interface OfflineWrap {
  command: string;
  /** Folders the command may write. */
  allowWrite: readonly string[];
  /** Paths inside them that stay read-only (missing ones too). */
  denyWrite: readonly string[];
  /** Paths it cannot read (see ConfinementSpec.unreadable). */
  denyRead: readonly string[];
  /** Folders inside those it may read after all. */
  allowRead: readonly string[];
  signal?: AbortSignal;
}

/** A shell line (for `bash -c`) running `command` under bubblewrap with no network. */
export function wrapOffline(options: OfflineWrap): Promise<string> {
  const bwrapPath = programPath("bwrap");
  return wrapCommandWithSandboxLinux({
    command: options.command,
    needsNetworkRestriction: true,
    readConfig: { denyOnly: [...options.denyRead], allowWithinDeny: [...options.allowRead] },
    writeConfig: { allowOnly: [...options.allowWrite], denyWithinAllow: [...options.denyWrite] },
    ...LIBRARY_SCAN,
    ...(bwrapPath ? { bwrapPath } : {}),
    ...(options.signal ? { abortSignal: options.signal } : {}),
  });
}

/**
 * After each confined command has ended (however it was wrapped): remove the empty files and
 * folders bubblewrap made on the host as mount points for missing protected paths, once no
 * sandbox runs. What SandboxManager.cleanupAfterCommand does (a no-op elsewhere than Linux),
 * without loading the manager's proxy and TLS stack (about 25 MB and 60 ms) where no network
 * is given.
 */
export function releaseMountPoints(): void {
  cleanupBwrapMountPoints();
}
