import { lstatSync, mkdirSync } from "node:fs";
import path from "node:path";
import { resolveLatheHome } from "../../engine/light.ts";

/**
 * Where the daemon for one Lathe build and one data folder listens: a Unix socket in
 * `$LATHE_HOME/run/`. The data folder is hidden from every confined process (bash, plugin
 * commands, MCP servers: see the sandbox's hidden paths), so none of them can reach the daemon
 * and run a command outside its sandbox; and the folder is the person's own (checked below).
 * The name carries the build, so a rebuilt or upgraded Lathe never talks to an old daemon.
 */
export interface DaemonAddress {
  dir: string;
  socket: string;
}

/** What Unix sockets allow for a path (104 bytes on macOS, 108 on Linux, with the final NUL). */
const MAX_SOCKET_PATH = 103;

/** A short, stable name for a build: FNV-1a of what identifies it. Not a secret, only a name. */
export function buildName(parts: readonly string[]): string {
  let hash = 0x811c9dc5;
  for (const char of parts.join("\u0000")) {
    hash ^= char.codePointAt(0) as number;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The daemon's address for the build named `build`, or why there can be none here. */
export function daemonAddress(
  build: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): DaemonAddress | { why: string } {
  if (platform === "win32")
    return { why: "the daemon needs Unix sockets, which Lathe does not use on Windows" };
  const dir = path.join(resolveLatheHome(env), "run");
  const socket = path.join(dir, `daemon-${build}.sock`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    return {
      why: `its socket path (${socket}) is longer than Unix sockets allow (${MAX_SOCKET_PATH} bytes); a shorter LATHE_HOME makes room`,
    };
  }
  return { dir, socket };
}

/**
 * Whether `dir` is a folder only this user can enter: not a symbolic link, owned by this user,
 * no access for group or others. `create` makes it (mode 700) when it is missing. Returns why
 * not, or undefined when it is.
 */
export function privateFolderProblem(dir: string, create = false): string | undefined {
  if (create) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      return `${dir} cannot be made: ${(err as Error).message}`;
    }
  }
  const info = lstatSync(dir, { throwIfNoEntry: false });
  if (!info) return `${dir} does not exist`;
  if (!info.isDirectory()) return `${dir} is not a folder`;
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) return `${dir} belongs to another user (uid ${info.uid})`;
  if ((info.mode & 0o077) !== 0) {
    return `${dir} is open to other users (mode ${(info.mode & 0o777).toString(8)}; it must be 700)`;
  }
  return undefined;
}

/**
 * Why no daemon can take `socket`: something that is not a socket is there (a daemon never
 * removes what it did not make). Undefined when the name is free or a socket.
 */
export function socketBlocked(socket: string): string | undefined {
  const info = lstatSync(socket, { throwIfNoEntry: false });
  return info && !info.isSocket() ? `${socket} exists and is not a socket; remove it` : undefined;
}
