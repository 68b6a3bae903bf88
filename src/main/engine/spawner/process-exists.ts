/** Whether a process with this id exists on this machine (one that belongs to another user counts). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, but this user may not signal it.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
