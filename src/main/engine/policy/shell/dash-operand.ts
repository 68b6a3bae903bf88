import { opensNoFiles } from "./read-only-paths.ts";
import type { ShellWord, SimpleCommand } from "./shell-types.ts";

/**
 * `-` as a word of a command: most readers take it for their standard input (`cat -`, `tar tf -`),
 * but to the others (`ls`, `du`, `find`, `tree`, `readlink`, …) it is a file name like any other:
 * `ls -` lists the folder a link named `-` leads to (~/.ssh). Such a `-` is checked as a path when
 * the call is decided (bash-plan.ts); one that does not exist then can only be a file made before
 * the command runs, which no check would see (no-dash-file.ts). Where the word stands matters to
 * some: `find . -name -` is a pattern, `find - -maxdepth 0` a folder; `jq . -` reads its standard
 * input, `jq --rawfile k - .` a file. A program not described here reads every `-` as a file.
 */

/** Programs that read a `-` operand as their standard input, never as a file of that name. */
const DASH_IS_STDIN = new Set(
  `cat tac head tail wc grep egrep fgrep zgrep rg sort uniq cut tr nl od xxd comm join paste fold fmt
  expand unexpand pr rev tsort numfmt md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum
  cksum sum base64 base32 diff cmp sed gsed awk gawk mawk less more file stat iconv tar gzip gunzip
  zcat bzcat xzcat bzip2 xz zstd`.split(/\s+/),
);

/**
 * Programs to which `-` is never a file name: binutils' `strings` reads it as its option `-a`
 * (even after `--`); `pgrep` matches it as a pattern against process names.
 */
const DASH_IS_NO_FILE = new Set(["strings", "pgrep"]);

/**
 * Programs that run another command: their own `-` is an option (`env -` is `env -i`) or text,
 * and the words of the command they run are that command's, judged where it is judged on its own
 * (`timeout 5 cat -` is `cat -`, standard input). To GNU xargs, `-a -` (`--arg-file -`) is its
 * standard input, not a file (checked: with a file `-` beside it, `echo in | xargs -a - echo`
 * printed `in`), and `-I -`, `-E -`, `-d -` are text; BSD xargs has no -a.
 */
const DASH_IS_THE_COMMANDS = new Set(["env", "timeout", "nice", "nohup", "stdbuf", "xargs"]);

/**
 * ps's `-` is no file: procps rejects a lone `-` ("garbage option") and prints no process. Only
 * a namelist (`-n FILE`, BSD `N FILE`: the kernel's symbol map, read for WCHAN) names a file.
 */
function psDashFiles(args: readonly ShellWord[]): ShellWord[] {
  // After a cluster ending in n (`-en -`), a BSD word ending in N, or a word only known at run
  // time (which may be either), `-` is the namelist.
  const namelistBefore = (before: ShellWord | undefined): boolean =>
    before !== undefined && (!before.literal || /^(-[A-Za-z]*n|[A-Za-z]*N)$/.test(before.text));
  return args.filter((a, i) => a.literal && a.text === "-" && namelistBefore(args[i - 1]));
}

/** find's leading options (before its starting points); -D takes the next word. */
const FIND_LEADING = /^-([HLP]+|O\d*)$/;

/**
 * find predicates whose argument is a pattern, a name, a number or a format, never a file: `-`
 * after one of these is text. After any other word (`-newer -`, `-samefile -`) it is a file.
 */
const FIND_TEXT_ARGUMENT =
  /^-(name|iname|path|ipath|wholename|iwholename|regex|iregex|lname|ilname|user|group|uid|gid|perm|type|xtype|size|printf|links|inum|mmin|mtime|amin|atime|cmin|ctime|used|maxdepth|mindepth|fstype|context|regextype|newer[acmB]t)$/;

/** The `-` words find reads as files: starting points, and arguments of file predicates. */
function findDashFiles(args: readonly ShellWord[]): ShellWord[] {
  let i = 0;
  while (i < args.length) {
    const word = args[i] as ShellWord;
    if (word.literal && word.text === "-D") i += 2;
    else if (word.literal && FIND_LEADING.test(word.text)) i += 1;
    else break;
  }
  const out: ShellWord[] = [];
  let expression = false;
  for (; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (!word.literal) continue;
    if (word.text !== "-" && (word.text.startsWith("-") || ["(", ")", "!", ","].includes(word.text)))
      expression = true;
    if (word.text !== "-") continue;
    const before = args[i - 1];
    const isText = expression && before?.literal === true && FIND_TEXT_ARGUMENT.test(before.text);
    if (!isText) out.push(word);
  }
  return out;
}

/** jq's options that take no value (short ones may be clustered: `-rc`). */
const JQ_FLAGS =
  /^(-[rjacnesSCMR]+|--(raw-output|join-output|ascii-output|compact-output|null-input|exit-status|slurp|sort-keys|color-output|monochrome-output|raw-input|tab|seq|stream|unbuffered))$/;

/**
 * The `-` words jq reads as files. After its filter, `-` is its standard input; but `-f -` and
 * `--rawfile k -` read a file named `-`, and once any option jq may give a value (or that may
 * change what its words mean: `--args`) is seen, each `-` is taken for a file.
 */
function jqDashFiles(args: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  let filterSeen = false;
  let unsure = false;
  let options = true;
  for (const word of args) {
    if (!word.literal) {
      // Only known at run time: it could be an option, or the filter.
      unsure = true;
      continue;
    }
    if (word.text === "-") {
      if (unsure || !filterSeen) out.push(word);
      continue;
    }
    if (options && word.text === "--") {
      options = false;
      continue;
    }
    if (options && word.text.startsWith("-")) {
      if (!JQ_FLAGS.test(word.text)) unsure = true;
      continue;
    }
    filterSeen = true;
  }
  return out;
}

/**
 * Programs that read `-` as a file, and their standard input when given no file at all:
 * util-linux hexdump (hd) and column (checked: `echo hi | hexdump -C -` says "-: No such file or
 * directory", `echo hi | hexdump -C` dumps "hi").
 */
const STDIN_WHEN_NO_FILE = new Set(["hexdump", "hd", "column"]);

/** Whether `program`, which reads `-` as a file, reads its standard input when given no file. */
export function readsStdinGivenNoFile(program: string): boolean {
  return STDIN_WHEN_NO_FILE.has(program);
}

/** The words of `args` that `program` reads as a file named `-` (not as its standard input). */
export function dashFileWords(program: string, args: readonly ShellWord[]): ShellWord[] {
  if (
    DASH_IS_STDIN.has(program) ||
    DASH_IS_NO_FILE.has(program) ||
    DASH_IS_THE_COMMANDS.has(program) ||
    opensNoFiles(program)
  )
    return [];
  if (program === "find") return findDashFiles(args);
  if (program === "jq") return jqDashFiles(args);
  if (program === "ps") return psDashFiles(args);
  return args.filter((a) => a.literal && a.text === "-");
}

/** Whether `command`, run as `program`, is given a literal `-` it reads as a file. */
export function givesDashAsFile(program: string, command: SimpleCommand): boolean {
  return dashFileWords(program, command.args).length > 0;
}
