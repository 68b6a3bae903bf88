import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { latheHomeHiding } from "../sandbox/lathe-home-private.ts";
import type { CallPlan, ResolvedPlan } from "../tools/call-plan.ts";
import { mentionedPaths } from "./mentioned-paths.ts";

/** A path a command names that no confined process may read, and what hides it. */
export interface HiddenPathNamed {
  /** The path as the command meets it (canonical). */
  path: string;
  /** The entry that hides it: a `sandbox.denyRead` entry, or `$LATHE_HOME`. */
  entry: string;
  hiddenBy: "denyRead" | "lathe-home";
}

/**
 * A path as the kernel resolves it (a hidden entry, or a path a command names): its real path,
 * or for a missing one (most of the default entries, on most machines) its nearest existing
 * folder's real path with the rest as written.
 * Synchronous, with one answer per folder: it runs before every command, where a trip through
 * the thread pool per entry would cost more than the check itself.
 */
function canonicalEntry(p: string, known: Map<string, string>): string {
  const cached = known.get(p);
  if (cached !== undefined) return cached;
  let resolved: string;
  try {
    resolved = realpathSync.native(p);
  } catch {
    const parent = path.dirname(p);
    resolved = parent === p ? p : path.join(canonicalEntry(parent, known), path.basename(p));
  }
  known.set(p, resolved);
  return resolved;
}

const within = (p: string, entry: string): boolean => p === entry || p.startsWith(`${entry}/`);

/** `~/…` for a path under the home folder, for messages. */
export function homeRelative(p: string): string {
  const home = os.homedir();
  return within(p, home) ? `~${p.slice(home.length)}` : p;
}

/**
 * The first path a command's plan names (its arguments, redirections and the files it writes)
 * that the OS sandbox hides from every confined process: under a `sandbox.denyRead` entry or in
 * `$LATHE_HOME` outside its public folders (lathe-home-private.ts). The sandbox enforces it whatever the command does; this says
 * why before the command runs, rather than leaving the model to read "No such file" and try
 * another way. Paths under `readable` (the session's own sidecar files) stay readable. Plans that
 * start no process (no shell.run access) name nothing here.
 */
export async function hiddenPathNamed(
  plan: CallPlan,
  resolved: ResolvedPlan,
  base: string,
  hidden: { denyRead: readonly string[]; latheHome: string; readable: readonly string[] },
): Promise<HiddenPathNamed | undefined> {
  if (!resolved.accesses.some((a) => a.capability === "shell.run")) return undefined;
  const known = new Map<string, string>();
  const mentions = plan.mentions ?? [];
  const named = [
    // Globs are expanded against the disk (asynchronously); plain words resolved here.
    ...(await mentionedPaths(
      mentions.filter((m) => m.glob),
      base,
    )),
    ...mentions
      .filter((m) => !m.glob)
      // Joined, not normalised: `link/..` is what the kernel makes of it (the link target's parent).
      .map((m) => canonicalEntry(path.isAbsolute(m.text) ? m.text : `${base}/${m.text}`, known)),
    ...resolved.accesses.flatMap((a) =>
      a.capability === "fs.read" || a.capability === "fs.write" ? [a.path.absolute] : [],
    ),
  ];
  if (named.length === 0) return undefined;
  const latheHome = latheHomeHiding(hidden.latheHome, hidden.denyRead);
  const entries = [
    ...hidden.denyRead.map((entry) => ({ entry, hiddenBy: "denyRead" as const })),
    ...latheHome.unreadable.map((entry) => ({ entry, hiddenBy: "lathe-home" as const })),
  ].map((e) => ({ ...e, canonical: canonicalEntry(path.resolve(e.entry), known) }));
  const readable = [...latheHome.readable, ...hidden.readable].map((r) =>
    canonicalEntry(path.resolve(r), known),
  );
  // `$LATHE_HOME` itself may be named (`ls` shows its public folders); what is in it is hidden.
  const inside = (p: string, e: (typeof entries)[number]): boolean =>
    e.hiddenBy === "lathe-home"
      ? p !== e.canonical &&
        p !== path.resolve(e.entry) &&
        (within(p, e.canonical) || within(p, path.resolve(e.entry)))
      : within(p, e.canonical) || within(p, path.resolve(e.entry));
  for (const p of named) {
    if (readable.some((r) => within(p, r))) continue;
    const found = entries.find((e) => inside(p, e));
    if (found) return { path: p, entry: found.entry, hiddenBy: found.hiddenBy };
  }
  return undefined;
}
