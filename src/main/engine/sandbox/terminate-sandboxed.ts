import { readFileSync } from "node:fs";
import { processTree } from "./process-tree.ts";
import { signalProcess } from "./signal-process.ts";

/** A process's id in each PID namespace it belongs to, outermost first (Linux); none once gone. */
function namespacePids(pid: number): number[] {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return line ? line.trim().split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/**
 * Ask a sandboxed command to stop, as a terminal's kill would: SIGTERM to each of its own
 * processes below the launcher `root`, so that they can clean up (git removes its index.lock, a
 * build its half-written file). Its own processes are those in the deepest PID namespace of the
 * tree, less that namespace's init: the sandbox's launchers (bubblewrap, its seccomp helper) are
 * left alone, since the end of any of them SIGKILLs everything inside at once. Returns how many
 * were signalled (none off Linux, or when nothing is left); what ignores the signal is for
 * killSandboxTree afterwards.
 */
export function terminateSandboxed(root: number): number {
  if (process.platform !== "linux") return 0;
  const levels = processTree(root).map((pid) => ({ pid, ids: namespacePids(pid) }));
  const depth = Math.max(0, ...levels.map(({ ids }) => ids.length));
  let signalled = 0;
  for (const { pid, ids } of levels) {
    if (pid === root || ids.length !== depth || ids[ids.length - 1] === 1) continue;
    if (signalProcess(pid, "SIGTERM")) signalled++;
  }
  return signalled;
}
