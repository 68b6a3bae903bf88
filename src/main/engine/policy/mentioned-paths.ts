import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { canonicalize } from "../capability/canonical-path.ts";
import type { MentionedPath } from "../tools/call-plan.ts";
import { namesOnTheWay } from "./path-names.ts";

/** How many directory entries one call's globs may look at: past it, the rest go unexpanded (and `cut` says so). */
export const MAX_ENTRIES_SEEN = 20_000;

const GLOB_CHARS = /[*?[]/;

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/**
 * The files an unquoted glob matches now, as bash expands it (a leading `.` must be spelled,
 * `*` stays within one folder), segment by segment from `base`.
 */
async function expandGlob(
  pattern: string,
  base: string,
  budget: { left: number; cut?: string },
): Promise<string[]> {
  const absolute = path.isAbsolute(pattern);
  let current = [absolute ? "/" : base];
  for (const segment of pattern.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (!GLOB_CHARS.test(segment)) {
      current = current.map((dir) => path.join(dir, segment));
      continue;
    }
    const matches = picomatch(segment, { dot: segment.startsWith("."), nobrace: true, noextglob: true });
    const next: string[] = [];
    for (const dir of current) {
      for (const name of await entries(dir)) {
        if (--budget.left < 0) {
          budget.cut ??= pattern;
          return next;
        }
        if (matches(name)) next.push(path.join(dir, name));
      }
    }
    current = next;
  }
  // `*/.env` leaves out the folders without one (bash keeps only what exists).
  const found = await Promise.all(
    current.map((p) =>
      lstat(p).then(
        () => p,
        () => undefined,
      ),
    ),
  );
  return found.filter((p) => p !== undefined);
}

/**
 * The absolute paths a mention names as the command will spell them (links not followed): a
 * glob's matches now, or the path joined to `base`. A glob spends `budget`, and sets its `cut`
 * when it runs out.
 */
export async function spelledPaths(
  mention: MentionedPath,
  base: string,
  budget: { left: number; cut?: string } = { left: MAX_ENTRIES_SEEN },
): Promise<string[]> {
  return mention.glob
    ? await expandGlob(mention.text, base, budget)
    : [path.isAbsolute(mention.text) ? mention.text : `${base}/${mention.text}`];
}

/**
 * The canonical paths the mentions name, as the command will meet them: relative ones from
 * `base` (the folder the command starts in), globs expanded against the disk now, symlinks
 * followed. What cannot be resolved is left out: it names nothing yet. Given `names`, each
 * mention's other names (as written, and the symlinks on its way: see namesOnTheWay) are added to it.
 * Given `seen`, its `cut` is set to the first glob left partly unexpanded (MAX_ENTRIES_SEEN); a
 * `budget` shared by several calls makes them one call's expansion.
 */
export async function mentionedPaths(
  mentions: readonly MentionedPath[],
  base: string,
  names?: Set<string>,
  seen?: { cut?: string },
  budget: { left: number; cut?: string } = { left: MAX_ENTRIES_SEEN },
): Promise<string[]> {
  const out = new Set<string>();
  for (const mention of mentions) {
    for (const p of await spelledPaths(mention, base, budget)) {
      try {
        const canonical = await canonicalize(p);
        out.add(canonical);
        if (names) for (const name of await namesOnTheWay(p, canonical)) names.add(name);
      } catch {
        // A loop of links, a folder that cannot be searched: the program cannot read it either.
      }
    }
  }
  if (seen && budget.cut !== undefined) seen.cut = budget.cut;
  return [...out];
}
