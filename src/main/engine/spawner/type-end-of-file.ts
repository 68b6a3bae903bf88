import { writeSync } from "node:fs";
import type { IPty } from "node-pty";

/** End-of-file for programs that open the terminal itself (/dev/tty) to ask for input. */
const EOF_CHAR = "\x04";

/**
 * Type end-of-file on a terminal just spawned, at once and on this thread. node-pty's own
 * `pty.write` hands the byte to a thread of libuv's pool: a command that exits before a thread
 * gets to it (`true`, while the pool is busy) has its terminal closed first, and node-pty then
 * printed "Unhandled pty write error … EBADF" on the spawner's stderr, which is the user's
 * terminal (had the descriptor's number been reused by a file opened meanwhile, the byte would
 * have gone into that file). Called before anything else runs, the terminal is still open. A
 * terminal whose command has already hung up (EIO) has nobody to tell; any other failure throws.
 */
export function typeEndOfFile(pty: IPty): void {
  const fd = (pty as unknown as { fd?: unknown }).fd;
  if (typeof fd !== "number")
    throw new Error(
      "node-pty gave no descriptor (`fd`) for the terminal it opened: cannot type end-of-file on it",
    );
  try {
    writeSync(fd, EOF_CHAR);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EIO") throw err;
  }
}
