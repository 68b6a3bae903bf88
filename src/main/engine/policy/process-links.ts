import { lstatSync } from "node:fs";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import type { MentionedPath } from "../tools/call-plan.ts";
import { spelledPaths } from "./mentioned-paths.ts";
import { otherProcess } from "./shell/read-only-paths.ts";
import { shown } from "./shell/shown-text.ts";

// With no sandbox, a read-only command shares the machine's process list, and another process's
// folder under /proc holds its environment and command line (Lathe's own holds the provider keys
// it withholds from commands). The analysis refuses such paths as written (`cat /proc/1/environ`);
// a link a repository commits (`ln -s /proc/1/environ notes.txt`, or one to /proc itself) is the
// same file under a workspace name, seen only once the link is followed, as the command will.

/**
 * Why a path the command names leads, through a link, into another process's folder under /proc
 * (or, read whole, to /proc itself); undefined when none does. `base`: where the command starts.
 */
export async function linkedProcessFile(
  mentions: readonly MentionedPath[],
  base: string,
): Promise<string | undefined> {
  // Folders are resolved once each: a glob's thousands of matches share a few.
  const folders = new Map<string, string | undefined>();
  const resolved = async (p: string): Promise<string | undefined> => {
    try {
      return await canonicalize(p);
    } catch {
      return undefined; // a loop of links, a folder that cannot be searched: the program cannot read it either
    }
  };
  for (const mention of mentions) {
    for (const written of await spelledPaths(mention, base)) {
      // As written under /proc, the analysis has judged it already (and `/proc/self` is the reader's own).
      if (path.resolve(written).startsWith("/proc/")) continue;
      const dir = path.dirname(written);
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
    }
  }
  return undefined;
}
