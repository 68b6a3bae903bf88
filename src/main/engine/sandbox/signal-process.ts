/**
 * Send `signal` to a process (a negative id: its whole group). False when there is nobody left
 * to signal: ESRCH, it is gone; EPERM, only zombies are left (macOS) or the id now belongs to
 * someone else. Any other failure is thrown.
 */
export function signalProcess(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ESRCH" || code === "EPERM") return false;
    throw err;
  }
}
