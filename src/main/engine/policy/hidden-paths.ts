import { lstatSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import type { HiddenPath, HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import type { CallPlan, ResolvedPlan } from "../tools/call-plan.ts";
import { MAX_ENTRIES_SEEN, mentionedPaths, spelledPaths } from "./mentioned-paths.ts";

/**
 * A path a command names that no confined process may read, and what hides it; `link`: the path
 * the command names when it is a hard link to the hidden file (`path`), or one that cannot be
 * checked (see HiddenPathSet.linkedHidden).
 */
export type HiddenPathNamed = HiddenPath & {
  link?: string;
  cut?: string;
  folder?: string;
  /** For a lister (find, du, tree): the depth limit at which it would stop at the hidden entry's name. */
  stopAt?: number;
  /** The glob whose match lies inside the hidden entry (`path` is then the entry, not the match). */
  glob?: string;
  /** For `du -s` given a path inside a denyRead entry: the entry, whose own total du may print. */
  totalOf?: string;
};

/** A path a command names, and the glob it was expanded from (if it was). */
interface Named {
  p: string;
  glob?: string;
}

/**
 * What a glob's match hides, said without the match: a name inside a hidden folder, which the
 * refusal would otherwise show (`cat private/*` named private/token.txt), is the folder's own
 * secret. The hidden entry is named instead, with the glob as written.
 */
function globbed(found: HiddenPath, glob: string | undefined, hidden: HiddenPathSet): HiddenPathNamed {
  if (glob === undefined) return found;
  const entry = hidden.canonical(path.resolve(found.entry));
  return found.path === entry ? found : { ...found, path: entry, glob };
}

/**
 * The first path a command's plan names (its arguments, redirections and the files it writes)
 * that the OS sandbox hides from every confined process: under a `sandbox.denyRead` entry or in
 * `$LATHE_HOME` outside its public folders (see HiddenPathSet). The sandbox enforces it whatever
 * the command does; this says why before the command runs, rather than leaving the model to read
 * "No such file" and try another way. Paths the set keeps readable (the session's own sidecar
 * files) stay readable. Plans that start no process (no shell.run access) name nothing here:
 * the capability check holds every other tool's paths to the same set (FsCapability). A glob
 * that matches more than Lathe looks at (MAX_ENTRIES_SEEN entries) is refused as `cut`: what it
 * was not expanded to was not checked, and with no sandbox nothing else would hide it.
 * `unconfined` (no OS sandbox): a folder read whole (`grep -r x .`) that holds a hidden path is
 * refused too, as nothing else would hide what is below it.
 */
export async function hiddenPathNamed(
  plan: CallPlan,
  resolved: ResolvedPlan,
  base: string,
  hidden: HiddenPathSet,
  unconfined = false,
): Promise<HiddenPathNamed | undefined> {
  if (!resolved.accesses.some((a) => a.capability === "shell.run")) return undefined;
  const mentions = plan.mentions ?? [];
  const seen: { cut?: string } = {};
  // Globs are expanded against the disk (asynchronously, one budget for all); plain words resolved here.
  const budget = { left: MAX_ENTRIES_SEEN };
  const namedBy = async (totalOnly: boolean): Promise<Named[]> => {
    const out: Named[] = [];
    for (const m of mentions) {
      if ((m.totalOnly === true) !== totalOnly) continue;
      if (m.glob)
        for (const p of await mentionedPaths([m], base, undefined, seen, budget))
          out.push({ p, glob: m.text });
      // Joined, not normalised: `link/..` is what the kernel makes of it (the link target's parent).
      else out.push({ p: hidden.canonical(path.isAbsolute(m.text) ? m.text : `${base}/${m.text}`) });
    }
    return out;
  };
  const named: Named[] = [
    ...(await namedBy(false)),
    ...resolved.accesses.flatMap((a) =>
      a.capability === "fs.read" || a.capability === "fs.write" ? [{ p: a.path.absolute }] : [],
    ),
  ];
  // Paths of which the program prints only a total size (`du -sh *`): a denyRead entry named
  // itself shows what `du -d 1` of its parent shows (see printsOnlyTotals), so it may be named;
  // a path inside one may not, and the refusal says the entry's total runs. Only an entry whose
  // parent is not hidden too: that parent's `du -d 1` runs and shows as much.
  const totals = await namedBy(true);
  const totalShown = (entry: string): boolean => hidden.find(path.dirname(entry)) === undefined;
  for (const { p, glob } of named) {
    const found = hidden.find(p);
    if (found) return globbed(found, glob, hidden);
  }
  for (const { p, glob } of totals) {
    const found = hidden.find(p);
    if (!found || (found.hiddenBy === "denyRead" && hidden.isEntry(p) && totalShown(p))) continue;
    const entry = hidden.canonical(path.resolve(found.entry));
    const totalOf = found.hiddenBy === "denyRead" && totalShown(entry) ? { totalOf: entry } : {};
    return { ...globbed(found, glob, hidden), ...totalOf };
  }
  named.push(...totals.filter(({ p }) => hidden.find(p) === undefined));
  // A folder read whole through a link (a workspace link to the home folder) holds what the link
  // leads to: `grep -r x homelink` reads homelink/.ssh, which no path it names shows.
  // A glob (`grep -r x home*`) is each folder it matches, a link among them too.
  const from = hidden.canonical(base);
  for (const m of mentions) {
    if (!m.recursive) continue;
    for (const written of await spelledPaths(m, from)) {
      // A lister that keeps a link it is given as a link (`find homelink`) never walks where it leads.
      if (
        m.linkNotFollowed === true &&
        !m.glob &&
        lstatSync(written, { throwIfNoEntry: false })?.isSymbolicLink()
      )
        continue;
      const canonical = hidden.canonical(written);
      const folder = m.glob ? path.relative(from, written) || "." : m.text;
      // Through a link too, a lister that stops at the first level (`find homelink/ -maxdepth 1`)
      // prints what `ls homelink/` prints: the names there, a hidden folder's own name at most.
      const stopAt = m.lister === true ? hidden.shallowestHidden(canonical) : undefined;
      const limit = stopAt === undefined ? {} : { stopAt };
      if (canonical !== path.resolve(written) && hidden.hidesBelow(canonical, m.depth))
        return { path: canonical, entry: canonical, hiddenBy: "denyRead", folder, ...limit };
      // With no sandbox to hide them, a hidden folder inside one read whole is read too, unless
      // the lister stops before it would list what is inside (`find -maxdepth 1`).
      if (unconfined && hidden.hidesBelow(canonical, m.depth))
        return { path: canonical, entry: canonical, hiddenBy: "denyRead", folder: canonical, ...limit };
    }
  }
  if (seen.cut !== undefined && !hidden.isEmpty)
    return { path: seen.cut, entry: seen.cut, hiddenBy: "denyRead", cut: seen.cut };
  // A hard link is the hidden file under another name, which the sandbox (hiding by path) does
  // not hide: refused here when the command names it. Only that: a link the command reaches
  // another way (`grep -r`, a script, a computed name) is not seen (docs: README "hard links").
  if (hidden.isEmpty) return undefined;
  for (const { p } of named) {
    const stats = await lstat(p).catch(() => undefined);
    const found = stats && hidden.linkedHidden(stats);
    if (found) return { ...found, link: p };
  }
  return undefined;
}
