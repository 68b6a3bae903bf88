import { lstatSync, unlinkSync } from "node:fs";
import net from "node:net";
import { socketBlocked } from "./daemon-address.ts";

/**
 * Make `socket` free for a new daemon: a socket file nobody listens on (a daemon that was killed)
 * is removed; a live one, or anything that is not a socket, is left alone and refused.
 */
export async function claimSocket(socket: string): Promise<void> {
  const blocked = socketBlocked(socket);
  if (blocked) throw new Error(blocked);
  if (!lstatSync(socket, { throwIfNoEntry: false })) return;
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
