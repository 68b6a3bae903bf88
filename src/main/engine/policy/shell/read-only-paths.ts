import { existsSync } from "node:fs";
import path from "node:path";
import { pathsIn } from "./directory-tracking.ts";
import {
  listerDepth,
  listerFollowsLinks,
  listerSumsBelow,
  listsItsFolder,
  listsWholeFolders,
} from "./folder-listers.ts";
import { GIT_TEXT_VALUE_OPTIONS } from "./git-command.ts";
import { sedScriptReads } from "./sed-effects.ts";
import { isLongOption, longOptionSpelled, longOptionValue } from "./long-option-prefix.ts";
import { processListingReason } from "./process-listing.ts";
import { pathIsSeen, pathOfWord } from "./seen-path.ts";
import type { SimpleCommand } from "./shell-types.ts";
import { shown } from "./shown-text.ts";
import { wordFileNames } from "./word-file-names.ts";

/**
 * What a reader on the read-only list may read that only the OS sandbox would have hidden. With
 * no sandbox, a provably read-only command runs unconfined, so the paths it reads must be ones
 * the policy checks against `sandbox.denyRead` and Lathe's own data before it runs (see
 * hidden-paths.ts), and it may not reach what the sandbox's own process namespace hides: the
 * environment of other processes (Lathe's own holds the provider keys it withholds from bash).
 */

/** Commands that open no file their arguments name: a word only known at run time is harmless to them. */
const NO_FILES = new Set(
  `echo printf true false : test [ basename dirname seq yes sleep nproc id whoami groups uname arch printenv
  which type command builtin whereis numfmt factor expr getconf locale tty free uptime who w pwd cd pushd popd
  dirs export declare typeset local readonly unset set shopt read wait exit return break continue shift
  getopts let ulimit umask hash times jobs caller help hostname`.split(/\s+/),
);

/** Whether `program` opens no file its arguments name (so no option of it reads or runs anything). */
export function opensNoFiles(program: string): boolean {
  return NO_FILES.has(program);
}

/** Options whose value is a pattern or a format, never a path: a value only known at run time is harmless there. */
const TEXT_VALUE_OPTIONS: Readonly<Record<string, RegExp>> = {
  git: GIT_TEXT_VALUE_OPTIONS,
  grep: /^(-e|--regexp)$/,
  egrep: /^(-e|--regexp)$/,
  fgrep: /^(-e|--regexp)$/,
  zgrep: /^(-e|--regexp)$/,
  rg: /^(-e|--regexp)$/,
};

/** Programs that read whole folders (grep -r and the like): what they are given must stay in the workspace. */
const RECURSIVE_READERS: Readonly<Record<string, (args: readonly string[]) => boolean>> = {
  grep: grepRecurses,
  egrep: grepRecurses,
  fgrep: grepRecurses,
  zgrep: grepRecurses,
  rg: () => true,
  diff: (args) => args.some((a) => /^-[A-Za-z]*r/.test(a) || isLongOption(a, "recursive")),
  // `git diff --no-index` and `git grep --no-index` read folders outside any repository (git
  // takes a prefix of it: `cd ~ && git grep --no-ind KEY` read ~/.ssh).
  git: (args) => args.some((a) => isLongOption(a, "no-index")),
  // gzip -r reads every file below a folder (zcat -rf prints those not compressed as they are), zstd -r too.
  zcat: gzipRecurses,
  gzip: gzipRecurses,
  gunzip: gzipRecurses,
  zstd: gzipRecurses,
};

/** Whether gzip's arguments ask it to recurse (`-r`, `-dcr`, `--recursive` by any prefix getopt takes). */
function gzipRecurses(args: readonly string[]): boolean {
  return args.some((a) => /^-[A-Za-z0-9]*r/.test(a) || isLongOption(a, "recursive"));
}

/** Whether `program` reads the files of whole folders it is given (grep -r), not only their names. */
function readsFolderContents(program: string, args: readonly string[]): boolean {
  return RECURSIVE_READERS[program]?.(args) === true;
}

/**
 * Whether `program` with these (literal) arguments reads whole folders it is given: their files
 * (grep -r) or the names below them (find, ls -R, du, tree: see folder-listers.ts).
 */
export function readsWholeFolders(program: string, args: readonly string[]): boolean {
  return readsFolderContents(program, args) || listsWholeFolders(program, args);
}

/** Short options of the folder readers that take a value (`-m 5`, `-e PATTERN`). */
const VALUE_LETTERS: Readonly<Record<string, string>> = {
  grep: "efmABCdD",
  egrep: "efmABCdD",
  fgrep: "efmABCdD",
  zgrep: "efmABCdD",
  rg: "efgtTmABCMjE",
};

/** A folder reader's long options: those that take a value, and those that take none. */
interface LongOptions {
  values: readonly string[];
  flags: readonly string[];
  /** Whether its parser takes a prefix of a long option for it (GNU getopt does, rg does not). */
  prefixes: boolean;
}

const GREP_LONG: LongOptions = {
  values: [
    "regexp",
    "file",
    "max-count",
    "after-context",
    "before-context",
    "context",
    "directories",
    "devices",
    "include",
    "exclude",
    "exclude-from",
    "exclude-dir",
    "label",
    "binary-files",
    "group-separator",
  ],
  flags: [
    "recursive",
    "dereference-recursive",
    "ignore-case",
    "no-ignore-case",
    "line-number",
    "with-filename",
    "no-filename",
    "count",
    "files-with-matches",
    "files-without-match",
    "only-matching",
    "invert-match",
    "word-regexp",
    "line-regexp",
    "fixed-strings",
    "extended-regexp",
    "basic-regexp",
    "perl-regexp",
    "quiet",
    "silent",
    "text",
    "null",
    "null-data",
    "no-messages",
    "byte-offset",
    "initial-tab",
    "line-buffered",
    "no-group-separator",
    "color",
    "colour",
  ],
  prefixes: true,
};

const LONG_OPTIONS: Readonly<Record<string, LongOptions>> = {
  grep: GREP_LONG,
  egrep: GREP_LONG,
  fgrep: GREP_LONG,
  zgrep: GREP_LONG,
  rg: {
    values: [
      "regexp",
      "file",
      "max-count",
      "after-context",
      "before-context",
      "context",
      "glob",
      "iglob",
      "type",
      "type-not",
      "type-add",
      "type-clear",
      "max-columns",
      "max-depth",
      "max-filesize",
      "threads",
      "encoding",
      "sort",
      "sortr",
      "replace",
      "pre",
      "pre-glob",
      "ignore-file",
      "path-separator",
      "context-separator",
      "field-context-separator",
      "field-match-separator",
      "colors",
      "color",
      "engine",
      "dfa-size-limit",
      "regex-size-limit",
      "hostname-bin",
      "hyperlink-format",
      "max-columns-preview",
    ],
    flags: [
      "ignore-case",
      "smart-case",
      "case-sensitive",
      "line-number",
      "no-line-number",
      "with-filename",
      "no-filename",
      "count",
      "count-matches",
      "files-with-matches",
      "files-without-match",
      "only-matching",
      "invert-match",
      "word-regexp",
      "line-regexp",
      "fixed-strings",
      "hidden",
      "no-ignore",
      "no-ignore-vcs",
      "follow",
      "search-zip",
      "text",
      "null",
      "null-data",
      "no-messages",
      "json",
      "vimgrep",
      "heading",
      "no-heading",
      "pretty",
      "quiet",
      "trim",
      "column",
      "byte-offset",
      "multiline",
      "pcre2",
      "unrestricted",
      "stats",
      "files",
      "debug",
    ],
    prefixes: false,
  },
};

/**
 * Whether a folder reader (readsWholeFolders) is given no folder, and so reads the one it runs
 * in (`grep -r x`, `rg x`): no operand besides the pattern, which `-e`/`-f` give instead.
 */
export function readsItsFolder(program: string, args: readonly string[]): boolean {
  if (listsWholeFolders(program, args)) return listsItsFolder(program, args);
  const values = VALUE_LETTERS[program];
  if (values === undefined) return false;
  const long = LONG_OPTIONS[program];
  let operands = 0;
  let patternGiven = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      operands += args.length - i - 1;
      break;
    }
    if (a.startsWith("--")) {
      // Values first: a prefix both share takes the next word, so fewer operands are counted.
      const spelled = long?.prefixes === true ? longOptionSpelled(a, long.values) : undefined;
      const value = long?.values.find((name) => a === `--${name}` || a.startsWith(`--${name}=`)) ?? spelled;
      if (value === "regexp" || value === "file") patternGiven = true;
      if (value !== undefined) {
        if (!a.includes("=")) i++;
        continue;
      }
      const flag =
        long?.prefixes === true
          ? longOptionSpelled(a, long.flags)
          : long?.flags.find((name) => a === `--${name}` || a.startsWith(`--${name}=`));
      // An option Lathe does not know may take the next word: the folder it runs in may be read.
      if (flag === undefined && !a.includes("=")) return true;
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      const letters = a.slice(1);
      const at = [...letters].findIndex((ch) => values.includes(ch));
      if (at >= 0) {
        if ("ef".includes(letters[at] as string)) patternGiven = true;
        if (at === letters.length - 1) i++;
      }
      continue;
    }
    operands++;
  }
  return operands <= (patternGiven ? 0 : 1);
}

/** Whether `value` given to grep's -d/--directories is `recurse`, which grep takes by any prefix (`rec`). */
const recurseAction = (value: string | undefined): boolean =>
  value !== undefined && value !== "" && "recurse".startsWith(value);

function grepRecurses(args: readonly string[]): boolean {
  return args.some((a, i) => {
    if (!a.startsWith("--")) {
      if (/^-[A-Za-z]*[rR]/.test(a)) return true;
      // -d ACTION, -dACTION (the value ends a cluster of short options).
      const short = /^-[A-Za-z]*?d(.*)$/.exec(a);
      if (short !== null) return recurseAction(short[1] === "" ? args[i + 1] : short[1]);
      return a === "recurse";
    }
    if (isLongOption(a, "recursive", "dereference-recursive")) return true;
    if (!isLongOption(a, "directories")) return false;
    return recurseAction(longOptionValue(a, "directories") ?? (a.includes("=") ? "" : args[i + 1]));
  });
}

/** gzip's (and zstd's) -f (`-cdf`, `--force` by a prefix), with which it reads a link it meets as what it leads to. */
const gzipForces = (a: string): boolean => /^-[A-Za-z0-9]*f/.test(a) || isLongOption(a, "force");

/** Options that make a recursive reader follow every symlink it meets (into folders it was not given). */
const grepFollows = (a: string): boolean =>
  /^-[A-Za-z]*R[A-Za-z]*$/.test(a) || isLongOption(a, "dereference-recursive");
const FOLLOWS_LINKS: Readonly<Record<string, (arg: string) => boolean>> = {
  grep: grepFollows,
  egrep: grepFollows,
  fgrep: grepFollows,
  zgrep: grepFollows,
  // rg's parser takes no prefix of a long option.
  rg: (a) => /^(-[A-Za-z]*L[A-Za-z]*|--follow)$/.test(a),
  // gzip -f reads the links it meets (and -r walks into the folders they lead to).
  zcat: gzipForces,
  gzip: gzipForces,
  gunzip: gzipForces,
  zstd: gzipForces,
};

/** Programs that follow links while they recurse unless told not to. */
const FOLLOW_UNLESS: Readonly<Record<string, string>> = { diff: "--no-dereference" };

/**
 * Options that make a program read the names of the files it reads from another file, in any
 * spelling its getopt takes (`sort --files0=list` is `--files0-from=list`).
 */
const filesFrom = (a: string): boolean => isLongOption(a, "files0-from");
const NAMES_FROM_A_FILE: Readonly<Record<string, (arg: string, index: number) => boolean>> = {
  // tar -T reads member names, and options among them: a line `--files-from=~/.ssh/id_ed25519`
  // makes `tar tf a.tar -T list` print each line of the key as a name not found. Its first word
  // may be old-style letters (`tfT a.tar list`).
  tar: (a, i) =>
    (i === 0 && !a.startsWith("-") && a.includes("T")) ||
    /^-[A-Za-z]*T/.test(a) ||
    isLongOption(a, "files-from"),
  sort: filesFrom,
  wc: filesFrom,
  // binutils read more options and file names from a response file: `strings @list`.
  ...Object.fromEntries(
    "strings nm objdump readelf size".split(" ").map((name) => [name, (a: string) => /^@./.test(a)]),
  ),
  // objdump -S prints the source files the object's debug information names (a committed object
  // built from `#line 1 "/home/u/.ssh/id_ed25519"` prints the key), as well as @file's.
  objdump: (a) => /^@./.test(a) || /^-[A-Za-z]*S/.test(a) || isLongOption(a, "source", "source-comment"),
  du: filesFrom,
  // zstd --filelist=list too (zstd takes its long options as written).
  zstd: (a) => a === "--filelist" || a.startsWith("--filelist="),
  // xz --files=list reads the names of the files from list (xzcat -f prints one not compressed as it is).
  ...Object.fromEntries(
    "xz xzcat unxz lzcat".split(" ").map((name) => [name, (a: string) => isLongOption(a, "files", "files0")]),
  ),
  file: (a) => /^-[A-Za-z]*f.*$/.test(a) || isLongOption(a, "files-from"),
  ...Object.fromEntries(
    "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum"
      .split(" ")
      .map((name) => [name, (a: string) => /^-[A-Za-z]*c[A-Za-z]*$/.test(a) || isLongOption(a, "check")]),
  ),
};

/**
 * Why a jq program may read files Lathe does not see named: its `import "…" as $data` reads a
 * JSON file, `include "…"` a jq file (relative to the folder the command runs in, through
 * links too: `import "homelink/.ssh/conf" as $d` prints ~/.ssh/conf.json), `modulemeta` a
 * module; and a program read from a file (`-f prog.jq`) may hold any of them.
 */
function jqLoadsFiles(args: readonly string[]): string | undefined {
  const fromFile = args.find((a) => /^-[A-Za-z]*f/.test(a) || a === "--from-file");
  if (fromFile !== undefined)
    return `"jq ${fromFile}" runs a jq program from a file, whose import and include (which read files) Lathe cannot check against the hidden paths`;
  const loads = args.find((a) => /\b(import|include)\s*"|\bmodulemeta\b/.test(a));
  return loads === undefined
    ? undefined
    : `the jq program ${shown(loads)} reads a module or data file (import, include, modulemeta), which Lathe does not check against the hidden paths; read the file as jq's input instead`;
}

/** Devices any process may read that give nothing of the disk or of another process. */
const PLAIN_DEVICES = /^\/dev\/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|fd\/\d+)$/;

/** Files of /proc that describe the machine or the reader itself, not another process. */
const PROC_MACHINE =
  /^(self|thread-self|cpuinfo|meminfo|version|loadavg|uptime|stat|mounts|filesystems|partitions|swaps|devices|diskstats|vmstat|zoneinfo|interrupts|modules|cmdline|sys|net)$/;

/** Whether `p` (absolute, as the command will meet it) is a device besides the plain streams (a disk, /dev/shm). */
export function rawDevice(p: string): boolean {
  const normal = path.posix.normalize(p);
  return normal.startsWith("/dev/") && !PLAIN_DEVICES.test(normal);
}

/**
 * Whether `p` (absolute, as the command will meet it) goes through a link under /proc/self (or
 * thread-self) that leads where the reading process is: its folder (`cwd`), its open files
 * (`fd`), its program. Lathe, checking the path, is another process than the command reading
 * it: `/proc/self/cwd/homelink/.ssh/id_ed25519` is the command's folder's link to the home
 * folder for the command, and a path inside Lathe's own folder for the check.
 */
export function selfRelativeProcPath(p: string): boolean {
  return /^\/proc\/(self|thread-self|\d+\/task\/\d+)\/(cwd|fd|fdinfo|map_files|exe|task)(\/|$)/.test(
    path.posix.normalize(p),
  );
}

/** Whether `p` (absolute, as the command will meet it) is in another process's folder under /proc. */
export function otherProcess(p: string): boolean {
  const normal = path.posix.normalize(p);
  if (!normal.startsWith("/proc/")) return false;
  const first = normal.slice("/proc/".length).split("/")[0] ?? "";
  return first !== "" && !PROC_MACHINE.test(first);
}

/** Whether a path leaves the folder it is relative to, or is not relative at all. */
function leavesTheFolder(p: string): boolean {
  return p.startsWith("/") || p.startsWith("~") || p.split("/").includes("..");
}

/**
 * Why `command` (a reader on the read-only list) may read something the policy cannot check
 * without a sandbox; undefined when every path it reads is seen.
 */
export function unseenReadReason(program: string, command: SimpleCommand): string | undefined {
  if (NO_FILES.has(program)) return undefined;
  if (command.runsIn?.unknown !== undefined)
    return `"${command.source}" runs in a folder that is only known when the shell runs (${command.runsIn.unknown}), so Lathe cannot check what it reads against the hidden paths`;
  const literals: string[] = [];
  for (const [i, arg] of command.args.entries()) {
    const before = command.args[i - 1];
    // Patterns and formats (`git log --grep "$P"`, `grep -e "$P"`) are text, never a path.
    if (before?.literal === true && TEXT_VALUE_OPTIONS[program]?.test(before.text)) continue;
    // `<(cmd)` is a pipe from a command the analysis judges on its own.
    if (!pathIsSeen(arg) && !/^<\(.*\)$/s.test(arg.text))
      return `"${program}" is given ${shown(arg.text)}, a name only known when the shell runs, so Lathe cannot check that it is not a hidden path (such as ~/.ssh)`;
    const text = pathOfWord(arg) ?? arg.text;
    literals.push(text);
    for (const { text: named, attached } of wordFileNames(text))
      for (const p of named.startsWith("/") ? [named] : pathsIn(command.runsIn, named)) {
        // In /proc or /dev, `ls -la` is not about a file "a": a letter read as a value counts
        // only as a file there (`cd /proc/1 && xargs -aenviron echo`).
        const meant = (): boolean => !attached || named.includes("/") || existsSync(p);
        if (selfRelativeProcPath(p) && meant())
          return `"${program}" reads ${shown(p)}, a path through the reading process's own folder or files, which Lathe (another process) cannot resolve as the command will; name the path from the workspace instead`;
        if (otherProcess(p) && meant())
          return `"${program}" reads ${shown(p)}, which belongs to another process (its environment and command line may hold the keys Lathe withholds from commands)`;
        if (rawDevice(p) && meant())
          return `"${program}" reads the device ${shown(p)}, which may hold every file of the disk, hidden ones included`;
      }
  }
  const fromFile = literals.find((a, i) => NAMES_FROM_A_FILE[program]?.(a, i) === true);
  if (fromFile !== undefined)
    return `"${program} ${fromFile}" reads the names of the files it reads from another file, which Lathe cannot check against the hidden paths`;
  if (program === "jq") {
    const loads = jqLoadsFiles(literals);
    if (loads !== undefined) return loads;
  }
  if (program === "sed" || program === "gsed") {
    const read = sedScriptReads(program, command.args)[0];
    if (read !== undefined)
      return `the sed script reads ${shown(read)} (r, R), a file named inside the script, which Lathe does not check against the hidden paths`;
  }
  const listing = processListingReason(program, literals);
  if (listing !== undefined) return listing;
  if (listsWholeFolders(program, literals)) {
    // Names only: a folder outside the workspace is checked for hidden paths below it when the
    // call is decided (hidden-paths.ts); a link met on the way is not, so following them asks.
    // One that stops at the first level only looks at where a link there leads, as `ls -L`
    // does (`find -L . -maxdepth 1`): it never lists what is inside.
    const follow = listerFollowsLinks(program, literals);
    const depth = listerDepth(program, literals);
    if (follow !== undefined && (depth === undefined || depth > 1 || listerSumsBelow(program)))
      return `"${program} ${follow}" follows every symbolic link it meets, into folders Lathe cannot check against the hidden paths (limited to the first level, it lists only the names ls would)`;
  }
  if (readsFolderContents(program, literals)) {
    const unless = FOLLOW_UNLESS[program];
    const follow =
      literals.find((a) => FOLLOWS_LINKS[program]?.(a) === true) ??
      (unless !== undefined && !literals.includes(unless)
        ? literals.find((a) => a.startsWith("-"))
        : undefined);
    if (follow !== undefined)
      return `"${program} ${follow}" follows every symbolic link it meets, into folders Lathe cannot check against the hidden paths`;
    const away = command.runsIn?.dirs.find((dir) => leavesTheFolder(dir));
    if (away !== undefined)
      return `"${program}" reads whole folders in ${shown(away)}, outside the workspace, which may hold hidden paths (such as ~/.ssh)`;
    const outside = literals.find(
      (a) => !a.startsWith("-") && pathsIn(command.runsIn, a).some((p) => leavesTheFolder(p)),
    );
    if (outside !== undefined)
      return `"${program}" reads the whole folder ${shown(outside)}, outside the workspace, which may hold hidden paths (such as ~/.ssh)`;
  }
  return undefined;
}
