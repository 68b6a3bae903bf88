import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

const MAX_LINK_HOPS = 40;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * The real location an absolute path designates, even when its last components (or a symlink's
 * target) do not exist yet. Symlinks are followed with the kernel's semantics, dangling ones
 * included, so a write through `link -> /etc/new-file` is seen as a write to `/etc/new-file`.
 */
export async function canonicalize(absolute: string): Promise<string> {
  if (!path.isAbsolute(absolute)) throw new TypeError(`canonicalize needs an absolute path, got ${absolute}`);
  try {
    return await realpath(absolute);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  const queue = absolute.split("/");
  let current = "/";
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift() as string;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = current === "/" ? `/${part}` : `${current}/${part}`;
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (err) {
      if (isMissing(err)) return path.join(next, ...queue);
      throw err;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) {
      throw Object.assign(new Error(`Too many levels of symbolic links at ${next}`), { code: "ELOOP" });
    }
    const target = await readlink(next);
    if (target.startsWith("/")) current = "/";
    queue.unshift(...target.split("/"));
  }
  return current;
}

/** True when `child` is `parent` or lies below it (a sibling sharing a name prefix does not count). */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith("/") ? parent : `${parent}/`;
  return child.startsWith(base);
}
