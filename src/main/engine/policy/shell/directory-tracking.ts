import { pathOfWord } from "./seen-path.ts";
import type { RunsIn, ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";
import type { DirectoryChange } from "./wrapper-outcome.ts";

/**
 * Which folder each part of a command line runs in after `cd`, `pushd`, `env -C` and the like.
 * Followed in source order with every possibility kept: a `cd` in a subshell, a branch or a
 * failed `cd` may leave the folder as it was, so each folder seen so far stays a candidate.
 * Anything that cannot be followed (`cd "$D"`, `cd -`, `popd`, a `cd` inside a loop, where a
 * later round runs earlier commands in the new folder) makes the folder unknown from then on —
 * for the whole line in the loop case.
 */

/** Folders followed at most; more is reported as unknown. */
const MAX_DIRS = 16;

/** One event, in source order. */
export type DirectoryEvent =
  | { kind: "change"; change: DirectoryChange; inLoop: boolean; what: string }
  /** Something that opens paths: it receives where it runs; `local` is a wrapper's own change (env -C). */
  | { kind: "user"; assign(runsIn: RunsIn | undefined): void; local?: DirectoryChange };

/** A folder a change names, as the shell resolves it: absolute, `~…` (`$HOME/…` too), or relative. */
function targetOf(word: ShellWord): string | undefined {
  if (word.literal && word.text === "") return undefined;
  return pathOfWord(word);
}

function join(base: string, target: string): string {
  if (target.startsWith("/") || target.startsWith("~")) return target;
  if (base === ".") return target;
  return `${base}/${target}`;
}

class Folders {
  dirs = new Set<string>(["."]);
  unknown: string | undefined;
  changed = false;

  apply(change: DirectoryChange, what: string): void {
    this.changed = true;
    if ("unknown" in change) {
      this.unknown ??= change.unknown;
      return;
    }
    const target = targetOf(change.word);
    if (target === undefined) {
      this.unknown ??= `${what} enters the folder ${shown(change.word.text)}, which is only known when the shell runs`;
      return;
    }
    for (const base of [...this.dirs]) this.dirs.add(join(base, target));
    if (this.dirs.size > MAX_DIRS) {
      this.unknown ??= `the command changes folder too many times to follow`;
    }
  }

  runsIn(local?: DirectoryChange): RunsIn | undefined {
    if (local === undefined) {
      if (!this.changed) return undefined;
      return this.unknown === undefined
        ? { dirs: [...this.dirs] }
        : { dirs: [...this.dirs], unknown: this.unknown };
    }
    if ("unknown" in local) return { dirs: [], unknown: local.unknown };
    const target = targetOf(local.word);
    if (target === undefined) {
      return {
        dirs: [],
        unknown: `the command runs in the folder ${shown(local.word.text)}, which is only known when the shell runs`,
      };
    }
    const dirs = [...this.dirs].map((base) => join(base, target));
    return this.unknown === undefined ? { dirs } : { dirs, unknown: this.unknown };
  }
}

/** Give every user among the events the folders it may run in. */
export function trackDirectories(events: readonly DirectoryEvent[]): void {
  const folders = new Folders();
  const loopChange = events.find((e) => e.kind === "change" && e.inLoop);
  if (loopChange?.kind === "change") {
    folders.apply(
      {
        unknown: `${loopChange.what} changes folder inside a loop, so a later round runs every command of the loop in a folder that cannot be followed`,
      },
      loopChange.what,
    );
  }
  for (const event of events) {
    if (event.kind === "change") folders.apply(event.change, event.what);
    else event.assign(folders.runsIn(event.local));
  }
}

/**
 * A path relative to where a command runs, as paths relative to the starting folder (`~` kept).
 * Joined without normalising: `out/../x` must be resolved the way the kernel does (through the
 * symlink `out`), not lexically to `x`.
 */
export function pathsIn(runsIn: RunsIn | undefined, target: string): string[] {
  if (target.startsWith("/") || runsIn === undefined) return [target];
  return runsIn.dirs.map((dir) => (dir === "." ? target : `${dir}/${target}`));
}
