import { mayBeOption } from "./command-options.ts";
import { tarOnlyLists } from "./archive-effects.ts";
import { commandEffects } from "./command-effects.ts";
import { GIT_TEXT_VALUE_OPTIONS, gitGlobOperand, parseGit } from "./git-command.ts";
import { gitSubcommandEffects } from "./git-effects.ts";
import { isLongOption } from "./long-option-prefix.ts";
import { isPlainGlob } from "./seen-path.ts";
import type { ShellWord, SimpleCommand } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * The positive list behind `provablyReadOnly`: commands known to only read, each with what its
 * arguments may not contain for that to stay true. A command not listed here is never
 * provably read-only, whatever it is called with.
 */

/** Why this command, with these arguments, may do more than read; undefined when it only reads. */
type ReadOnlyCheck = (command: SimpleCommand) => string | undefined;

/** Commands with no option that writes, runs code or reaches outside the call. */
const any: ReadOnlyCheck = () => undefined;

/** Read-only exactly when the effects tables find nothing (their option tables are complete). */
const noEffects: ReadOnlyCheck = (command) => {
  const effects = commandEffects(command);
  const write = effects.writes[0];
  if (write !== undefined) return `"${command.source}" writes ${shown(write.text)}`;
  return effects.unclear[0];
};

/** Options whose next word is only ever text, never an option, and which options take a value. */
interface TextValues {
  /** Spelled alone, they take the next word as text (`rg -e "$P"`: the pattern, even `--pre=sh`). */
  options: readonly string[];
  /** The short options that take a value: after `-g`, `-e` is the glob, not an option. */
  valueLetters: string;
}

/** Whether `word` may take the word after it as its value (any long option spelled without `=`). */
function mayTakeValue(word: ShellWord | undefined, valueLetters: string): boolean {
  if (word === undefined || !word.literal || !word.text.startsWith("-") || word.text === "-") return false;
  if (word.text.startsWith("--")) return !word.text.includes("=");
  return [...word.text.slice(1)].some((letter) => valueLetters.includes(letter));
}

/**
 * Refuses the listed options (exact, `--name=…`, or inside a short cluster) and option-like words
 * only known at run time. The word after one of `text.options` is skipped, unless what stands
 * before that option may take it as its own value. `prefixes`: the program's getopt takes a
 * prefix of a long option for it (`date --se=…` is `date --set=…`, `file --comp` is `--compile`).
 */
function without(options: readonly string[], text?: TextValues, prefixes = false): ReadOnlyCheck {
  return (command) => {
    for (let i = 0; i < command.args.length; i++) {
      const arg = command.args[i] as ShellWord;
      if (
        text !== undefined &&
        arg.literal &&
        text.options.includes(arg.text) &&
        !mayTakeValue(command.args[i - 1], text.valueLetters)
      ) {
        i++;
        continue;
      }
      if (!arg.literal) {
        // A glob's names are read against the disk when the call is decided (option-like-file-names.ts).
        if (mayBeOption(arg) && !isPlainGlob(arg))
          return `${shown(arg.text)} is only known when the shell runs and could be an option of "${command.name}"`;
        continue;
      }
      if (arg.text === "--") return undefined;
      for (const option of options) {
        const hit = option.startsWith("--")
          ? arg.text === option ||
            arg.text.startsWith(`${option}=`) ||
            (prefixes && isLongOption(arg.text, option.slice(2)))
          : /^-[A-Za-z0-9]+$/.test(arg.text) &&
            !arg.text.startsWith("--") &&
            arg.text.includes(option.slice(1));
        if (hit) return `"${command.name} ${arg.text}" may write files or run programs`;
      }
    }
    return undefined;
  };
}

/** Only `--version`, `--help` and the like: the program prints something about itself. */
const versionOnly: ReadOnlyCheck = (command) =>
  command.args.length === 1 && /^(--version|-v|-V|--help|-h|version)$/.test(command.args[0]?.text ?? "")
    ? undefined
    : `"${command.name}" runs code or writes files; only its --version and --help are known to be read-only`;

/** Both: the effects tables find nothing, and none of the options is given. */
function both(...checks: ReadOnlyCheck[]): ReadOnlyCheck {
  return (command) => {
    for (const check of checks) {
      const reason = check(command);
      if (reason !== undefined) return reason;
    }
    return undefined;
  };
}

const operandsAtMost =
  (count: number): ReadOnlyCheck =>
  (command) =>
    command.args.filter((a) => !a.literal || !a.text.startsWith("-")).length > count
      ? `"${command.name}" writes its last operand when given ${count + 1}`
      : undefined;

/** git subcommands that only read the repository (config only in its reading forms, see git-effects.ts). */
const GIT_READS = new Set(
  "status log show diff diff-files diff-index diff-tree blame annotate shortlog describe rev-parse rev-list ls-files ls-tree cat-file show-ref for-each-ref name-rev merge-base grep count-objects check-ignore check-attr check-ref-format check-mailmap var whatchanged range-diff cherry version show-branch verify-commit verify-tag get-tar-commit-id patch-id column config".split(
    " ",
  ),
);

interface GitVerbs {
  /** Verbs that read; undefined when names are only allowed with --list. */
  verbs?: RegExp;
  /** Whether the subcommand without a verb only reads. */
  bare: boolean;
  /** Options allowed. */
  options: RegExp;
}

/** Subcommands that read in some forms and write in others. */
const GIT_MIXED: Readonly<Record<string, GitVerbs>> = {
  branch: {
    bare: true,
    options:
      /^(-a|--all|-r|--remotes|-v|-vv|--verbose|--list|-l|--show-current|--contains|--no-contains|--merged|--no-merged|--points-at|--sort=.*|--format=.*|--column|--no-column|--color.*|--no-color|--abbrev=.*|-i|--ignore-case)$/,
  },
  tag: {
    bare: true,
    options:
      /^(-l|--list|-n\d*|--contains|--no-contains|--merged|--no-merged|--points-at|--sort=.*|--format=.*|--column|--no-column|--color.*|-i|--ignore-case)$/,
  },
  remote: { verbs: /^(show|get-url)$/, bare: true, options: /^(-v|--verbose|-n|--push|--all)$/ },
  stash: {
    verbs: /^(list|show)$/,
    bare: false,
    options: /^(-p|--patch|--stat|--name-only|--oneline|-u|--include-untracked)$/,
  },
  worktree: { verbs: /^list$/, bare: false, options: /^(--porcelain|-v|--verbose|-z)$/ },
  reflog: {
    verbs: /^(show|exists)$/,
    bare: true,
    options: /^(-n\d*|--date=.*|--format=.*|--oneline|--all)$/,
  },
  notes: { verbs: /^(list|show)$/, bare: true, options: /^$/ },
};

function gitMixed(sub: string, spec: GitVerbs, args: readonly ShellWord[]): string | undefined {
  const operands = args.filter((a) => !a.literal || !a.text.startsWith("-"));
  const verb = operands[0];
  if (spec.verbs === undefined) {
    const listing = args.some(
      (a) =>
        a.text === "--list" || a.text === "-l" || /^--(contains|merged|no-merged|points-at)/.test(a.text),
    );
    if (operands.length > 0 && !listing)
      return `"git ${sub} ${verb?.text ?? ""}" creates or changes ${sub === "tag" ? "a tag" : "a branch"}`;
  } else if (verb === undefined ? !spec.bare : !verb.literal || !spec.verbs.test(verb.text)) {
    return `"git ${sub}${verb === undefined ? "" : ` ${verb.text}`}" may change the repository`;
  }
  const option = args.find((a) => a.literal && a.text.startsWith("-") && !spec.options.test(a.text));
  return option === undefined ? undefined : `"git ${sub} ${option.text}" may change the repository`;
}

const git: ReadOnlyCheck = (command) => {
  const parsed = parseGit(command.args);
  if (parsed.unclear[0] !== undefined) return parsed.unclear[0];
  const sub = parsed.subcommand;
  if (parsed.printsOnly || sub === undefined) return undefined;
  const mixed = GIT_MIXED[sub];
  if (sub === "ls-remote") return `"git ls-remote" asks a remote repository over the network`;
  if (!GIT_READS.has(sub) && mixed === undefined)
    return `"git ${sub}" may change the repository or run programs`;
  const effects = gitSubcommandEffects(sub, parsed.args);
  if (effects.writes[0] !== undefined) return `"git ${sub}" writes ${shown(effects.writes[0].text)}`;
  if (effects.unclear[0] !== undefined) return effects.unclear[0];
  for (let i = 0; i < parsed.args.length; i++) {
    const arg = parsed.args[i] as ShellWord;
    if (arg.literal && arg.text === "--") break;
    if (arg.literal || !mayBeOption(arg) || gitGlobOperand(sub, arg)) continue;
    const before = parsed.args[i - 1];
    if (before?.literal === true && GIT_TEXT_VALUE_OPTIONS.test(before.text)) continue;
    return `git ${sub} is given ${shown(arg.text)}, which is only known when the shell runs and could be an option`;
  }
  if (
    sub === "remote" &&
    parsed.args.some((a) => a.text === "show") &&
    !parsed.args.some((a) => a.text === "-n")
  )
    return `"git remote show" asks each remote over the network (with -n it shows only what is stored)`;
  return mixed === undefined ? undefined : gitMixed(sub, mixed, parsed.args);
};

/**
 * GNU tar reads an archive named `host:file` (a `:` before any `/`) from that host, through the
 * remote shell it runs (/usr/bin/rsh), unless --force-local is given.
 */
const remoteArchive: ReadOnlyCheck = (command) => {
  if (command.args.some((a) => a.literal && a.text === "--force-local")) return undefined;
  const remote = command.args.find((a) => a.literal && /^(--file=)?[^/]*:/.test(a.text));
  return remote === undefined
    ? undefined
    : `"tar" reads ${shown(remote.text)} from another machine through a remote shell (write ./ before the name, or --force-local)`;
};

const NAMES_ANY = `cat tac head tail wc ls dir vdir pwd echo printf true false : test [ basename dirname realpath readlink stat du df
  cut tr nl od hexdump comm join paste column fold fmt expand unexpand rev seq yes sleep nproc id whoami groups uname arch
  printenv which type command builtin whereis cmp diff md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum
  grep egrep fgrep zgrep jq base64 base32 numfmt pr tsort factor expr getconf locale tty ps pgrep free uptime who w lsof
  lscpu lsblk strings objdump readelf size zcat bzcat xzcat cd pushd popd dirs export declare typeset local readonly
  unset set shopt read wait exit return break continue shift getopts let ulimit umask hash times jobs caller help env
  timeout nice stdbuf xargs sh bash dash`;

const NAMES_VERSION = `node nodejs python python3 perl ruby php npm npx pnpm yarn make cmake gcc g++ cc clang go cargo rustc
  java javac tsc deno bun lua tclsh`;

/** The toolchain names read-only only with `--version` or `--help` (see version-manager-shims.ts). */
export const VERSION_ONLY_NAMES: ReadonlySet<string> = new Set(NAMES_VERSION.split(/\s+/));

export const READ_ONLY_COMMANDS: ReadonlyMap<string, ReadOnlyCheck> = new Map<string, ReadOnlyCheck>([
  ...NAMES_ANY.split(/\s+/).map((name): [string, ReadOnlyCheck] => [name, any]),
  ...[...VERSION_ONLY_NAMES].map((name): [string, ReadOnlyCheck] => [name, versionOnly]),
  ["git", git],
  ["find", noEffects],
  ["sed", noEffects],
  ["awk", noEffects],
  ["gawk", noEffects],
  ["mawk", noEffects],
  ["sort", noEffects],
  ["uniq", both(noEffects, operandsAtMost(1))],
  ["xxd", both(noEffects, operandsAtMost(1))],
  ["less", noEffects],
  ["more", any],
  [
    "tar",
    both(
      noEffects,
      (c) => (tarOnlyLists(c.args) ? undefined : `"tar" only reads when listing (t)`),
      remoteArchive,
    ),
  ],
  ["unzip", noEffects],
  ["gzip", noEffects],
  ["gunzip", noEffects],
  ["bzip2", noEffects],
  ["xz", noEffects],
  ["zstd", noEffects],
  ["iconv", noEffects],
  ["time", without(["-o", "--output"], undefined, true)],
  [
    "rg",
    without(["--pre", "--pre-glob", "--hostname-bin"], {
      options: ["-e", "--regexp"],
      valueLetters: "ABCEMTdefgjmrt",
    }),
  ],
  // -R starts tree again in every folder at the -L level with `-o 00Tree.html`: it writes there.
  // --info reads each folder's .info file (or --infofile's) and prints its comments. tree reads
  // its long options by their full names only.
  ["tree", without(["-o", "-R", "--fromfile", "--info", "--infofile"])],
  ["file", without(["-C", "--compile"], undefined, true)],
  ["date", without(["-s", "--set", "-f", "--file"], undefined, true)],
  // nm --plugin NAME loads NAME, a shared library: compiled code, run unconfined.
  ["nm", without(["--plugin"], undefined, true)],
  [
    "hostname",
    (c) =>
      c.args.every(
        (a) =>
          a.literal &&
          /^-[aAbdfiIsy]+$|^--(fqdn|short|domain|ip-address|all-ip-addresses|alias)$/.test(a.text),
      )
        ? undefined
        : `"hostname" with an operand sets the machine's name`,
  ],
  ["yq", without(["-i", "--inplace"])],
]);
