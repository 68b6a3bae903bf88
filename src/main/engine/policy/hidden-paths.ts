import os from "node:os";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import { latheHomePrivate } from "../sandbox/lathe-home-private.ts";
import type { CallPlan, ResolvedPlan } from "../tools/call-plan.ts";
import { mentionedPaths } from "./mentioned-paths.ts";

/** A path a command names that no confined process may read, and what hides it. */
export interface HiddenPathNamed {
  /** The path as the command meets it (canonical). */
  path: string;
  /** The entry that hides it: a `sandbox.denyRead` entry, or one of `$LATHE_HOME`'s private files. */
  entry: string;
  hiddenBy: "denyRead" | "lathe-home";
}

async function canonicalOrSelf(p: string): Promise<string> {
  try {
    return await canonicalize(p);
  } catch {
    return p;
  }
}

const within = (p: string, entry: string): boolean => p === entry || p.startsWith(`${entry}/`);

/** `~/…` for a path under the home folder, for messages. */
export function homeRelative(p: string): string {
  const home = os.homedir();
  return within(p, home) ? `~${p.slice(home.length)}` : p;
}

/**
 * The first path a command's plan names (its arguments, redirections and the files it writes)
 * that the OS sandbox hides from every confined process: under a `sandbox.denyRead` entry or one
 * of `$LATHE_HOME`'s private files. The sandbox enforces it whatever the command does; this says
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
  const named = [
    ...(await mentionedPaths(plan.mentions ?? [], base)),
    ...resolved.accesses.flatMap((a) =>
      a.capability === "fs.read" || a.capability === "fs.write" ? [a.path.absolute] : [],
    ),
  ];
  if (named.length === 0) return undefined;
  const entries = await Promise.all([
    ...hidden.denyRead.map(async (entry) => ({
      entry,
      canonical: await canonicalOrSelf(entry),
      hiddenBy: "denyRead" as const,
    })),
    ...latheHomePrivate(hidden.latheHome).map(async (entry) => ({
      entry,
      canonical: await canonicalOrSelf(entry),
      hiddenBy: "lathe-home" as const,
    })),
  ]);
  const readable = await Promise.all(hidden.readable.map(canonicalOrSelf));
  for (const p of named) {
    if (readable.some((r) => within(p, r))) continue;
    const found = entries.find((e) => within(p, e.canonical) || within(p, path.resolve(e.entry)));
    if (found) return { path: p, entry: found.entry, hiddenBy: found.hiddenBy };
  }
  return undefined;
}
