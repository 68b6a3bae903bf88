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
 * and long options matching `longValues` (spelled without `=`) take the next word.
 */
function noOperand(values: string, longValues: RegExp): (args: readonly string[]) => boolean {
  return (args) => {
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === "--") return i === args.length - 1;
      if (a.startsWith("--")) {
        if (!a.includes("=") && longValues.test(a)) i++;
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
  walks: (args) => args.some((a) => a === "--recursive" || inCluster(a, "R")),
  follows: (args) => args.find((a) => a === "--dereference" || inCluster(a, "L")),
  walksItsFolder: noOperand(
    "ITw",
    /^--(ignore|hide|tabsize|width|block-size|format|quoting-style|sort|time|time-style|indicator-style|color|hyperlink)$/,
  ),
  depth: () => undefined,
};

const du: Lister = {
  followsGiven: (args) =>
    args.some((a) => /^--(dereference|dereference-args)$/.test(a) || /^-[A-Za-z0-9]*[DHL]/.test(a)),
  // `du -s` and `du -d 0` walk, but print only the total of each folder given.
  walks: (args) =>
    !args.some(
      (a, i) =>
        a === "--summarize" ||
        a === "--max-depth=0" ||
        inCluster(a, "s") ||
        /^-[A-Za-z]*d0$/.test(a) ||
        (/^(-[A-Za-z]*d|--max-depth)$/.test(a) && args[i + 1] === "0"),
    ),
  follows: (args) => args.find((a) => a === "--dereference" || inCluster(a, "L")),
  walksItsFolder: noOperand(
    "BdtX",
    /^--(block-size|max-depth|threshold|exclude-from|exclude|time|time-style)$/,
  ),
  // `du -d 1` prints one level, but sums the sizes of every file below it: a denyRead folder's
  // size is read from inside it (the sandbox shows that folder empty), so du reads every level.
  depth: () => undefined,
};

const tree: Lister = {
  followsGiven: () => true,
  walks: () => true,
  follows: (args) => args.find((a) => inCluster(a, "l")),
  walksItsFolder: noOperand(
    "LPIoHT",
    /^--(filelimit|charset|timefmt|sort|hintro|houtro|fromfile|infile|gitfile)$/,
  ),
  // `tree -L 1` prints the names in the folder; with -R it starts itself again at that level.
  depth: (args) => (args.some((a) => inCluster(a, "R")) ? undefined : largestDepth(args, "-L")),
};

const LISTERS: Readonly<Record<string, Lister>> = { find, ls, du, tree };

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
 * -maxdepth 1`, `tree -L 1`: one); undefined when it reads below every level (du, ls -R) or the
 * program is no lister.
 */
export function listerDepth(program: string, args: readonly string[]): number | undefined {
  return LISTERS[program]?.depth(args);
}
