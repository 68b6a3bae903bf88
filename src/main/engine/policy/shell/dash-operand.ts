import { opensNoFiles } from "./read-only-paths.ts";
import type { SimpleCommand } from "./shell-types.ts";

/**
 * `-` as a word of a command: most readers take it for their standard input (`cat -`, `tar tf -`),
 * but to the others (`ls`, `du`, `find`, `tree`, `readlink`, …) it is a file name like any other:
 * `ls -` lists the folder a link named `-` leads to (~/.ssh). Such a `-` is checked as a path when
 * the call is decided (bash-plan.ts); one that does not exist then can only be a file made before
 * the command runs, which no check would see (no-dash-file.ts).
 */

/** Programs that read a `-` operand as their standard input, never as a file of that name. */
const DASH_IS_STDIN = new Set(
  `cat tac head tail wc grep egrep fgrep zgrep rg sort uniq cut tr nl od xxd comm join paste fold fmt
  expand unexpand pr rev tsort numfmt md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum
  cksum sum base64 base32 diff cmp sed gsed awk gawk mawk less more file stat iconv tar gzip gunzip
  zcat bzcat xzcat bzip2 xz zstd`.split(/\s+/),
);

/** Whether `program` reads a `-` word as a file named `-` (not as its standard input). */
export function readsDashAsFile(program: string): boolean {
  return !DASH_IS_STDIN.has(program) && !opensNoFiles(program);
}

/** Whether `command`, run as `program`, is given a literal `-` it reads as a file. */
export function givesDashAsFile(program: string, command: SimpleCommand): boolean {
  return readsDashAsFile(program) && command.args.some((a) => a.literal && a.text === "-");
}
