import { parseOptions, type OptionTable } from "./command-options.ts";
import { effects, unclear, withUnknown, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * awk programs can run commands (`system()`, `"cmd" | getline`, `print | "cmd"`) and write files
 * (`print > "file"`); gawk can also load extensions, include other programs and call functions
 * by a name in a variable (`@f()`). The program's strings and regular expressions are set aside
 * first, so `/a|b/` and `"x > y"` are not mistaken for a pipe or a redirection.
 */

const AWK_TABLE: OptionTable = {
  flags: "bcCghLMnNOPrsStVyY",
  values: "vfFWEeilpoxd",
  optional: "",
  long: {
    assign: "value",
    file: "value",
    "field-separator": "value",
    source: "value",
    include: "value",
    load: "value",
    exec: "value",
    "dump-variables": "optional",
    debug: "optional",
    "pretty-print": "optional",
    profile: "optional",
    lint: "optional",
    sandbox: "flag",
    traditional: "flag",
    posix: "flag",
    "re-interval": "flag",
    characters: "flag",
    bignum: "flag",
    "use-lc-numeric": "flag",
    "non-decimal-data": "flag",
    copyright: "flag",
    "gen-pot": "flag",
    optimize: "flag",
    "no-optimize": "flag",
    help: "flag",
    version: "flag",
  },
  alias: {
    assign: "v",
    file: "f",
    source: "e",
    include: "i",
    load: "l",
    exec: "E",
    "dump-variables": "d",
    "pretty-print": "o",
    profile: "p",
    "field-separator": "F",
  },
};

/** The operators that change what they stand before or after (`=`, `+=`, `++` …), not `==`. */
const CHANGES = /^\s*(?:[-+*/%^]?=(?!=)|\+\+|--)/;

/**
 * Whether the program (its strings blanked) changes ARGV, the list of files awk reads after
 * BEGIN: `ARGV[1] = "/home/u/.ssh/id_ed25519"` makes `awk '…' README.md` print the key. A read
 * (`ARGV[i]`, `i in ARGV`) and `delete ARGV[i]` (one file fewer) change nothing awk reads; ARGV
 * handed whole to a function or to split() may be filled with anything, and one inside sub() may
 * be changed (a read there counts too).
 */
function changesArgv(code: string): boolean {
  for (const match of code.matchAll(/\bARGV\b/g)) {
    const before = code.slice(0, match.index);
    // `++ARGV[1]`, `getline ARGV[1]` (a line of the input), `sub(/x/, "y", ARGV[1])` change it too.
    if (/(?:\+\+|--|\bgetline)\s*$|\bg?sub\s*\([^;{}]*$/.test(before)) return true;
    let at = match.index + match[0].length;
    while (/\s/.test(code[at] ?? "")) at++;
    if (code[at] !== "[") {
      if (/\b(?:in|delete)\s*$/.test(before)) continue;
      return true;
    }
    for (let depth = 0; at < code.length; at++) {
      if (code[at] === "[") depth++;
      else if (code[at] === "]" && --depth === 0) break;
    }
    if (CHANGES.test(code.slice(at + 1)) && !/\bdelete\s*$/.test(before)) return true;
  }
  return false;
}

/** Reasons the program text runs commands, writes files or calls what it cannot show. */
function programReasons(program: string): string[] {
  // Strings, then regular expressions where a value is expected, become blanks.
  let code = program.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
  code = code.replace(
    /(^|[(,~!{};&|=\n]|\b(?:return|in|case)\b)\s*\/(?:[^/\\\n[]|\\.|\[(?:[^\]\\]|\\.)*\])*\//g,
    "$1//",
  );
  code = code.replace(/#[^\n]*/g, "");
  const reasons: string[] = [];
  if (code.replace(/""/g, "").includes('"')) {
    reasons.push("it holds a string Lathe could not read to its end");
  }
  if (/\bsystem\s*\(/.test(code)) reasons.push("it calls system(), which runs a shell command");
  if (/(?<!\|)\|(?!\|)/.test(code)) reasons.push("it pipes to or from a command (|)");
  if (/\bprintf?\b[^;{}\n]*>/.test(code)) reasons.push("it redirects output to a file (print > file)");
  if (/@/.test(code)) reasons.push("it uses a gawk @ directive or an indirect call (@include, @load, @f())");
  if (/\bgetline\b[^;{}\n]*</.test(code)) reasons.push("it reads a file named at run time (getline <)");
  if (changesArgv(code))
    reasons.push(
      "it changes ARGV, the files awk reads, to names only known at run time (give the files as operands)",
    );
  if (/\b(?:close|fflush)\s*\(/.test(code) && reasons.length > 0)
    reasons.push("it closes commands or files it opened");
  return reasons;
}

export const awk: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, { ...AWK_TABLE, posix: true });
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  const sources: ShellWord[] = [];
  let fromFile = false;
  for (const option of parsed.options) {
    const value = option.value;
    switch (option.key) {
      case "f":
      case "i":
      case "E":
        fromFile = true;
        reasons.push(
          `"${program}" runs the program file ${shown(value?.text ?? "")}, whose contents Lathe cannot see`,
        );
        break;
      case "l":
        reasons.push(`"${program}" loads the extension ${shown(value?.text ?? "")}, which is compiled code`);
        break;
      case "e":
        if (value !== undefined) sources.push(value);
        break;
      case "d":
      case "o":
      case "p":
        // gawk writes these to a file, awkvars.out / awkprof.out when no name is given.
        writes.push(value ?? { text: option.key === "d" ? "awkvars.out" : "awkprof.out", literal: true });
        break;
      case "W":
        reasons.push(
          `"${program} -W ${value?.text ?? ""}" sets an implementation option Lathe does not follow`,
        );
        break;
      default:
        break;
    }
  }
  const operands = [...parsed.operands];
  if (sources.length === 0 && !fromFile) {
    const first = operands.shift();
    if (first !== undefined) sources.push(first);
  }
  const dynamic = sources.find((s) => !s.literal);
  if (dynamic !== undefined) {
    return withUnknown(
      parsed,
      unclear(`the awk program ${shown(dynamic.text)} is only known when the shell runs`),
    );
  }
  for (const source of sources) {
    for (const reason of programReasons(source.text))
      reasons.push(`the awk program ${shown(source.text)}: ${reason}`);
  }
  return withUnknown(parsed, effects(writes, reasons));
};
