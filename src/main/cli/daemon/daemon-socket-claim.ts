import { lstatSync, unlinkSync } from "node:fs";
import net from "node:net";

/**
 * Make `socket` free for a new daemon: a socket file nobody listens on (a daemon that was killed)
 * is removed; a live one, or anything that is not a socket, is left alone and refused.
 */
export async function claimSocket(socket: string): Promise<void> {
  const info = lstatSync(socket, { throwIfNoEntry: false });
  if (!info) return;
  if (!info.isSocket()) throw new Error(`${socket} exists and is not a socket; remove it`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = net.connect(socket);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
  if (live) throw new Error(`a daemon already listens on ${socket}`);
  unlinkSync(socket);
}
