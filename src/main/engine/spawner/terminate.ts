import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import { signalProcess } from "../sandbox/signal-process.ts";
import { terminateSandboxed } from "../sandbox/terminate-sandboxed.ts";

/** How long a program (or its process group) has after SIGTERM before it gets SIGKILL. */
export const KILL_GRACE_MS = 1000;

/** Call once the program has ended: its pid may be someone else's by the time the grace is over. */
export type CancelKill = () => void;

const nothing: CancelKill = () => undefined;

/**
 * Stop a process, or with a negative id its whole process group: SIGTERM first, so that what runs
 * there can clean up after itself (an EXIT trap removes its lock file, git its index.lock), then
 * SIGKILL to whatever is left after `graceMs`. A program killed outright leaves such files behind:
 * pyenv's rehash lock, left by a login shell killed mid-rehash, made every later login shell wait
 * 60 s for it.
 */
export function terminate(target: number, graceMs = KILL_GRACE_MS): CancelKill {
  if (!signalProcess(target, "SIGTERM")) return nothing;
  const timer = setTimeout(() => {
    if (signalProcess(target, 0)) signalProcess(target, "SIGKILL");
  }, graceMs);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * Stop a program the spawner started, with the same grace: `group`, its whole process group;
 * `confined`, a sandbox launcher (`pid`) whose command's own processes get SIGTERM
 * (terminateSandboxed), and the whole sandbox SIGKILL after the grace, or at once when none of
 * them is left to ask. The launcher is not signalled first: its end would SIGKILL everything
 * inside at once.
 */
export function stopProgram(
  pid: number,
  { group, confined }: { group: boolean; confined: boolean },
  graceMs = KILL_GRACE_MS,
): CancelKill {
  const target = group ? -pid : pid;
  if (!confined) return terminate(target, graceMs);
  const hard = (): void => {
    killSandboxTree(pid);
    signalProcess(target, "SIGKILL");
  };
  if (terminateSandboxed(pid) === 0) {
    hard();
    return nothing;
  }
  const timer = setTimeout(hard, graceMs);
  timer.unref();
  return () => clearTimeout(timer);
}
