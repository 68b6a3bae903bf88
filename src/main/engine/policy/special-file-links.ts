import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import type { MentionedPath } from "../tools/call-plan.ts";
import { spelledPaths } from "./mentioned-paths.ts";
import { otherProcess, rawDevice } from "./shell/read-only-paths.ts";
import { shown } from "./shell/shown-text.ts";

// With no sandbox, a read-only command shares the machine's process list and devices: another
// process's folder under /proc holds its environment and command line (Lathe's own holds the
// provider keys it withholds from commands), a disk device every file, /dev/shm what processes
// share. The analysis refuses such paths as written (`cat /proc/1/environ`, `strings /dev/sda`);
// a link a repository commits (`ln -s /proc/1/environ notes.txt`, one to /proc itself, one into
// /dev/shm) is the same file under a workspace name, seen only once the link is followed, as the
// command will follow it.

/** How many links are followed before a path is taken to loop. */
const MAX_HOPS = 40;

/**
 * Whether `p` leads, through a link on the way (a link to a link too), under /proc/self or
 * /proc/thread-self: the reading process's own folder (`cwd`), files and program. Lathe resolves
 * those as its own, the command as its own: a committed link `here -> /proc/self/cwd` makes
 * `here/homelink/.ssh/id_ed25519` the key for the command and a path in Lathe's folder for the check.
 */
function leadsThroughProcSelf(p: string, hops = 0): boolean {
  const normal = path.resolve(p);
  if (/^\/proc\/(self|thread-self)(\/|$)/.test(normal)) return true;
  if (hops >= MAX_HOPS) return false; // a loop of links: the program cannot read it either
  const parts = normal.split("/").filter((part) => part !== "");
  let current = "/";
  for (const [i, part] of parts.entries()) {
    const next = path.join(current, part);
    const stats = lstatSync(next, { throwIfNoEntry: false });
    if (stats === undefined) return false;
    if (stats.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        return false; // unreadable: the program cannot follow it either
      }
      return leadsThroughProcSelf(path.resolve(current, target, ...parts.slice(i + 1)), hops + 1);
    }
    current = next;
  }
  return false;
}

/**
 * Why a path the command names leads, through a link, into another process's folder under /proc
 * (or, read whole, to /proc itself) or to a device; undefined when none does. `base`: where the
 * command starts.
 */
export async function linkedSpecialFile(
  mentions: readonly MentionedPath[],
  base: string,
): Promise<string | undefined> {
  // Folders are resolved once each: a glob's thousands of matches share a few.
  const folders = new Map<string, string | undefined>();
  const throughSelf = new Map<string, boolean>();
  const resolved = async (p: string): Promise<string | undefined> => {
    try {
      return await canonicalize(p);
    } catch {
      return undefined; // a loop of links, a folder that cannot be searched: the program cannot read it either
    }
  };
  for (const mention of mentions) {
    // A glob's folder, before its first pattern character: Lathe may see no match there at all.
    const fixed = mention.glob ? mention.text.slice(0, mention.text.search(/[*?[]/)) : "";
    const globFolder = fixed.includes("/")
      ? path.resolve(base, fixed.slice(0, fixed.lastIndexOf("/") + 1))
      : undefined;
    if (globFolder !== undefined && !/^\/proc\//.test(globFolder) && leadsThroughProcSelf(globFolder))
      return `${shown(mention.text)} leads through a link under /proc/self, the reading process's own folder and files, which Lathe (another process) cannot resolve as the command will; name the path from the workspace instead`;
    for (const written of await spelledPaths(mention, base)) {
      // As written under /proc or /dev, the analysis has judged it already (and `/proc/self` is the reader's own).
      if (/^\/(proc|dev)\//.test(path.resolve(written))) continue;
      const dir = path.dirname(written);
      if (!throughSelf.has(dir)) throughSelf.set(dir, leadsThroughProcSelf(dir));
      const leafLink = lstatSync(written, { throwIfNoEntry: false })?.isSymbolicLink() === true;
      if (throughSelf.get(dir) === true || (leafLink && leadsThroughProcSelf(written)))
        return `${shown(path.relative(base, written) || written)} leads through a link under /proc/self, the reading process's own folder and files, which Lathe (another process) cannot resolve as the command will; name the path from the workspace instead`;
      if (!folders.has(dir)) folders.set(dir, await resolved(dir));
      const folder = folders.get(dir);
      if (folder === undefined) continue;
      const leaf = lstatSync(written, { throwIfNoEntry: false });
      const canonical = leaf?.isSymbolicLink()
        ? await resolved(written)
        : path.join(folder, path.basename(written));
      if (canonical === undefined) continue;
      if (otherProcess(canonical) || (mention.recursive === true && canonical === "/proc"))
        return `${shown(path.relative(base, written) || written)} leads through a link to ${shown(canonical)}, which belongs to another process (its environment and command line may hold the keys Lathe withholds from commands)`;
      if (rawDevice(canonical))
        return `${shown(path.relative(base, written) || written)} leads through a link to the device ${shown(canonical)}, which may hold every file of the disk, hidden ones included, or what other processes share`;
    }
  }
  return undefined;
}
