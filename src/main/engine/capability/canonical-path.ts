import { lstatSync, readlinkSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

const MAX_LINK_HOPS = 40;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** What following a path asks of the file system: whether a path is a symlink, or what one holds. */
type Question = { ask: "is-link"; path: string } | { ask: "readlink"; path: string };
/** `is-link`: true, false, or undefined when the path does not exist; `readlink`: the link's text. */
type Answer = boolean | undefined | string;

/**
 * Follow `absolute` component by component with the kernel's semantics (dangling links and
 * missing components included), telling `onLink` where each symlink met on the way lies (its
 * folder resolved, its own name kept), and return where it leads. It asks the file system
 * through its driver (followAsync, followSync), so one walk serves both.
 */
function* follow(absolute: string, onLink?: (link: string) => void): Generator<Question, string, Answer> {
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
    const isLink = yield { ask: "is-link", path: next };
    if (isLink === undefined) return path.join(next, ...queue);
    if (!isLink) {
      current = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) {
      throw Object.assign(new Error(`Too many levels of symbolic links at ${next}`), { code: "ELOOP" });
    }
    onLink?.(next);
    const target = (yield { ask: "readlink", path: next }) as string;
    if (target.startsWith("/")) current = "/";
    queue.unshift(...target.split("/"));
  }
  return current;
}

async function followAsync(absolute: string, onLink?: (link: string) => void): Promise<string> {
  const walk = follow(absolute, onLink);
  let step = walk.next();
  while (!step.done) {
    const q = step.value;
    let answer: Answer;
    if (q.ask === "readlink") answer = await readlink(q.path);
    else {
      try {
        answer = (await lstat(q.path)).isSymbolicLink();
      } catch (err) {
        if (!isMissing(err)) throw err;
        answer = undefined;
      }
    }
    step = walk.next(answer);
  }
  return step.value;
}

function followSync(absolute: string, onLink?: (link: string) => void): string {
  const walk = follow(absolute, onLink);
  let step = walk.next();
  while (!step.done) {
    const q = step.value;
    let answer: Answer;
    if (q.ask === "readlink") answer = readlinkSync(q.path);
    else {
      try {
        answer = lstatSync(q.path).isSymbolicLink();
      } catch (err) {
        if (!isMissing(err)) throw err;
        answer = undefined;
      }
    }
    step = walk.next(answer);
  }
  return step.value;
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
  return followAsync(absolute);
}

/**
 * The symlinks an absolute path goes through on its way to its real location, in the order the
 * kernel follows them, each where it lies (its folder resolved, its own name kept): `.env ->
 * cfg/env.real` is `<dir>/.env`, and `d/.env` with `d -> .` is `<dir>/d`, then `<dir>/.env` when
 * that is a link too. Empty for a path without links. Throws as canonicalize does (a loop).
 */
export async function symlinksOnPath(absolute: string): Promise<string[]> {
  if (!path.isAbsolute(absolute))
    throw new TypeError(`symlinksOnPath needs an absolute path, got ${absolute}`);
  const links: string[] = [];
  await followAsync(absolute, (link) => links.push(link));
  return links;
}

/** symlinksOnPath, synchronously (for a walk, which judges each file as it meets it). */
export function symlinksOnPathSync(absolute: string): string[] {
  if (!path.isAbsolute(absolute))
    throw new TypeError(`symlinksOnPath needs an absolute path, got ${absolute}`);
  const links: string[] = [];
  followSync(absolute, (link) => links.push(link));
  return links;
}

/** True when `child` is `parent` or lies below it (a sibling sharing a name prefix does not count). */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith("/") ? parent : `${parent}/`;
  return child.startsWith(base);
}
