import { randomBytes } from "node:crypto";
import { MAX_NAME_BYTES } from "./path-limits.ts";

/**
 * The name of a temporary file made beside `name` before it is renamed over it: hidden, naming
 * the file it is for and what made it (`lathe`, `lathe-restore`), and unique. A file's name may
 * take all the bytes a name may have, so when there is no room for the whole of it the temporary
 * name leaves it out (a file system refuses a name one byte too long, ENAMETOOLONG).
 */
export function tempNameFor(name: string, tag: string): string {
  const suffix = `.${tag}-${randomBytes(6).toString("hex")}.tmp`;
  const full = `.${name}${suffix}`;
  return Buffer.byteLength(full) <= MAX_NAME_BYTES ? full : suffix;
}
