import { isLongOption, longOptionSpelled, longOptionValue } from "./long-option-prefix.ts";

/**
 * Read-only commands that walk the folders they are given and print the names below them (or
 * their sizes): `find`, `ls -R`, `du`, `tree`. Without a sandbox, such a walk shows the names in a
 * `sandbox.denyRead` folder inside the one walked (`find . -name 'tok*'` printed
 * private/token.txt), and one that follows the links it meets (`find -L`, `du -L`, `ls -RL`,
 * `tree -l`) walks wherever a link in the workspace leads (`find -L homelink` printed the home
 * folder's names). So the folders a lister walks are checked as folders read whole
 * (read-only-paths.ts), and a lister told to follow every link is not read-only.
 */

/** How one lister reads its arguments. */
interface Lister {
  /** Whether it follows a symbolic link it is given (to the folder it leads to). */
  followsGiven: (args: readonly string[]) => boolean;
  /** Whether, with these (literal) arguments, it walks below the folders it is given. */
  walks: (args: readonly string[]) => boolean;
  /** The option that makes it follow every link it meets, when given. */
  follows: (args: readonly string[]) => string | undefined;
  /** Whether it is given no folder, and so walks the one it runs in. */
  walksItsFolder: (args: readonly string[]) => boolean;
  /**
   * How many levels of names below a folder it is given it prints at most (`find -maxdepth 1`:
   * the names in it, none inside them); undefined when it reads below every level.
   */
  depth: (args: readonly string[]) => number | undefined;
  /** Whether it reads below that depth all the same (du sums every level, following links with -L). */
  sums?: true;
}

/**
 * The largest value given to a depth option (`-maxdepth 2`), read as a plain decimal count, or
 * undefined when none is given or a value is spelled otherwise (the lister may then go anywhere).
 */
function largestDepth(args: readonly string[], option: string): number | undefined {
  let largest: number | undefined;
  for (const [i, a] of args.entries()) {
    if (a !== option) continue;
    const value = args[i + 1] ?? "";
    if (!/^\d{1,6}$/.test(value)) return undefined;
    largest = Math.max(largest ?? 0, Number.parseInt(value, 10));
  }
  return largest;
}

/** Whether `arg` is a cluster of short options holding `letter` (`-laR`). */
const inCluster = (arg: string, letter: string): boolean =>
  /^-[A-Za-z0-9]+$/.test(arg) && arg.slice(1).includes(letter);

/**
 * Whether no operand is given besides options, for a program whose short options in `values`
 * and long options `longValues` (spelled without `=`, by any prefix getopt takes) take the next
 * word; `longFlags`: its long options that take none yet begin another's name (du's `--time`,
 * of `--time-style`), which getopt takes as written.
 */
function noOperand(
  values: string,
  longValues: readonly string[],
  longFlags: readonly string[] = [],
): (args: readonly string[]) => boolean {
  return (args) => {
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === "--") return i === args.length - 1;
      if (a.startsWith("--")) {
        const spelled = longOptionSpelled(a, [...longFlags, ...longValues]);
        if (!a.includes("=") && spelled !== undefined && longValues.includes(spelled)) i++;
        continue;
      }
      if (a.startsWith("-") && a.length > 1) {
        const letters = a.slice(1);
        const at = [...letters].findIndex((ch) => values.includes(ch));
        // The value is the rest of the cluster, or the next word.
        if (at === letters.length - 1) i++;
        continue;
      }
      return false;
    }
    return true;
  };
}

/** find's options before its starting points, and the words that start its expression. */
const FIND_LEADING = /^-(H|L|P|D.*|O\d*)$/;
const FIND_EXPRESSION = (a: string): boolean =>
  (a.startsWith("-") && a !== "-") || ["(", "!", ","].includes(a);

const find: Lister = {
  followsGiven: (args) => args.some((a) => a === "-H" || a === "-L" || a === "-follow"),
  walks: (args) => !args.some((a, i) => /^-maxdepth$/.test(a) && args[i + 1] === "0"),
  follows: (args) => args.find((a) => a === "-L" || a === "-follow"),
  walksItsFolder: (args) => {
    let i = 0;
    while (i < args.length && FIND_LEADING.test(args[i] as string)) i += args[i] === "-D" ? 2 : 1;
    // GNU find takes `--` before the starting points too.
    if (args[i] === "--") i++;
    return i >= args.length || FIND_EXPRESSION(args[i] as string);
  },
  depth: (args) => largestDepth(args, "-maxdepth"),
};

const ls: Lister = {
  // With -R and without -l, -d or -F, ls lists the folder a link it is given leads to (GNU ls).
  followsGiven: () => true,
  walks: (args) => args.some((a) => isLongOption(a, "recursive") || inCluster(a, "R")),
  follows: (args) => args.find((a) => a === "--dereference" || inCluster(a, "L")),
  walksItsFolder: noOperand("ITw", [
    "ignore",
    "hide",
    "tabsize",
    "width",
    "block-size",
    "format",
    "quoting-style",
    "sort",
    "time",
    "time-style",
    "indicator-style",
    "color",
    "hyperlink",
  ]),
  depth: () => undefined,
};

/**
 * du's options that tell by a total whether a name is below a folder: `du -s --exclude=id_rsa .`
 * is smaller than `du -s .` exactly when some file there is called id_rsa, in a denyRead folder
 * too. With one of them, du reveals names at every level it sums.
 */
const duProbesNames = (args: readonly string[]): boolean =>
  args.some((a) => isLongOption(a, "exclude", "exclude-from") || (!a.startsWith("--") && inCluster(a, "X")));

/**
 * du's --time prints, for each folder, the newest time of anything below it (modified, or with
 * --time=atime last read: when a key was last used). A size or a file count (--inodes) is a sum:
 * a denyRead folder's is its parent's less its siblings', which `du -s .` and `du -d 1` on the
 * other folders show already. A newest time is no sum: nothing else tells it, so with --time du
 * reveals what happens inside every level it walks, in a denyRead folder too.
 */
const duShowsTimes = (args: readonly string[]): boolean => args.some((a) => isLongOption(a, "time"));

/** Whether what du prints for a folder tells more about what is inside than a sum (see above). */
const duReadsInside = (args: readonly string[]): boolean => duProbesNames(args) || duShowsTimes(args);

/**
 * The deepest level du prints (`-d 1`, `--max-depth=1`; `-s` is 0), or undefined when none is
 * given or a value is spelled otherwise.
 */
function duDepth(args: readonly string[]): number | undefined {
  let largest: number | undefined;
  for (const [i, a] of args.entries()) {
    let value: string | undefined;
    // Long options by any prefix getopt takes (`--max-d=3`, `--summ`).
    if (isLongOption(a, "summarize") || (!a.startsWith("--") && inCluster(a, "s") && !/^-[A-Za-z]*d/.test(a)))
      value = "0";
    else if (isLongOption(a, "max-depth")) value = longOptionValue(a, "max-depth") ?? args[i + 1] ?? "";
    else {
      const short = /^-[A-Za-z]*d(.*)$/.exec(a);
      if (short === null || a.startsWith("--")) continue;
      value = short[1] === "" ? (args[i + 1] ?? "") : short[1];
    }
    if (!/^\d{1,6}$/.test(value ?? "")) return undefined;
    largest = Math.max(largest ?? 0, Number.parseInt(value as string, 10));
  }
  return largest;
}

const du: Lister = {
  // By any prefix getopt takes: `--dereference-a` is `--dereference-args` (-D).
  followsGiven: (args) =>
    args.some((a) => isLongOption(a, "dereference", "dereference-args") || /^-[A-Za-z0-9]*[DHL]/.test(a)),
  // `du -s` and `du -d 0` walk, but print only the total of each folder given (see duReadsInside).
  walks: (args) => duReadsInside(args) || duDepth(args) !== 0,
  follows: (args) => args.find((a) => a === "--dereference" || inCluster(a, "L")),
  walksItsFolder: noOperand(
    "BdtX",
    // --time takes its value only after `=` (`du --time .` is given `.`).
    ["block-size", "max-depth", "threshold", "exclude-from", "exclude", "time-style"],
    ["time"],
  ),
  // `du -d 1` prints the names one level down, and the total size (or with --inodes, file count)
  // of each: a denyRead folder there shows its name and its total, summed from inside it (the
  // sandbox would show it empty), never a name inside it. That total is metadata `du -s .`
  // already shows (less the others' totals), so du stops where it stops printing names, as find
  // -maxdepth does, unless an option lets a total tell which names are inside, or du prints the
  // newest time below (--time), which no sum shows.
  depth: (args) => (duReadsInside(args) ? undefined : duDepth(args)),
  sums: true,
};

const tree: Lister = {
  followsGiven: () => true,
  walks: () => true,
  follows: (args) => args.find((a) => inCluster(a, "l")),
  // tree reads its long options by their full names only.
  walksItsFolder: noOperand("LPIoHT", [
    "filelimit",
    "charset",
    "timefmt",
    "sort",
    "hintro",
    "houtro",
    "fromfile",
    "infile",
    "gitfile",
  ]),
  // `tree -L 1` prints the names in the folder; with -R it starts itself again at that level.
  depth: (args) => (args.some((a) => inCluster(a, "R")) ? undefined : largestDepth(args, "-L")),
};

// dir and vdir are ls with another default format (GNU coreutils), with its options.
const LISTERS: Readonly<Record<string, Lister>> = { find, ls, dir: ls, vdir: ls, du, tree };

/**
 * Whether `program` with these (literal) arguments prints one total size (or file count) for each
 * path it is given and nothing below it: `du -s`, `du -d 0`, without --time or --exclude (which
 * tell more than a sum, see duReadsInside) and without -L (whose total counts where links inside
 * lead). For a denyRead folder that total is what `du -d 1` of its parent prints, which runs.
 */
export function printsOnlyTotals(program: string, args: readonly string[]): boolean {
  return program === "du" && !duReadsInside(args) && duDepth(args) === 0 && du.follows(args) === undefined;
}

/** Whether `program` with these (literal) arguments walks the folders it is given and prints what is below. */
export function listsWholeFolders(program: string, args: readonly string[]): boolean {
  return LISTERS[program]?.walks(args) === true;
}

/** The option with which a lister follows every symbolic link it meets (`find -L`), if given. */
export function listerFollowsLinks(program: string, args: readonly string[]): string | undefined {
  return LISTERS[program]?.follows(args);
}

/** Whether a lister follows a symbolic link it is given (`find -H homelink`, `ls -R homelink`), or lists only the link (`find homelink`). */
export function listerFollowsGivenLinks(program: string, args: readonly string[]): boolean {
  return LISTERS[program]?.followsGiven(args) !== false;
}

/** Whether a lister is given no folder, and so walks the one it runs in (`find -name x`, `ls -R`). */
export function listsItsFolder(program: string, args: readonly string[]): boolean {
  return LISTERS[program]?.walksItsFolder(args) === true;
}

/**
 * How many levels of names below the folders it is given a lister prints at most (`find
 * -maxdepth 1`, `tree -L 1`, `du -d 1`: one); undefined when it prints every level (ls -R, a
 * lister with no limit) or the program is no lister.
 */
export function listerDepth(program: string, args: readonly string[]): number | undefined {
  return LISTERS[program]?.depth(args);
}

/**
 * Whether a lister reads below the depth it prints all the same (du sums the sizes of every level,
 * and with -L follows every link there), so a depth limit does not keep it out of where links lead.
 */
export function listerSumsBelow(program: string): boolean {
  return LISTERS[program]?.sums === true;
}
