import { isPlainGlob } from "./seen-path.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Reading a program's arguments the way GNU getopt does — clusters (`-rf`), attached and
 * separate values (`-ofile`, `-o file`), `--name=value`, unambiguous prefixes of long names
 * (`--outp` is `--output`), options after operands (permutation), `--` — so that a writer option
 * cannot hide behind a spelling. Words that are only known at run time where an option could
 * stand (`"$x"`, an unquoted `*`) and options the table does not know are reported, since they
 * may be a writer option in disguise.
 */

type OptionKind = "flag" | "value" | "optional";

export interface OptionTable {
  /** Short options without a value. */
  flags?: string;
  /** Short options with a required value (`-o file`, `-ofile`). */
  values?: string;
  /** Short options whose value is optional and only ever attached (`-i.bak`). */
  optional?: string;
  /** Long options by full name; the key reported is `alias[name]` or the long name. */
  long?: Readonly<Record<string, OptionKind>>;
  /** Long name → the short letter it stands for, so `-o` and `--output` report the same key. */
  alias?: Readonly<Record<string, string>>;
  /** Options end at the first operand (POSIX), instead of anywhere before `--` (GNU). */
  posix?: boolean;
  /** `-5`, `-10` style options (head, tail, nice). */
  numeric?: boolean;
  /**
   * Whether the table lists every option of the program (the default). For a program with more
   * options than are worth listing (curl, tar), `false` reads unknown short letters as flags (a
   * writer letter later in the cluster is still found) and ignores unknown long options; the
   * table must then list every option that takes a value or writes.
   */
  strict?: boolean;
  /**
   * Whether a plain glob where an option may stand is left to the disk check made when the call
   * is decided (option-like-file-names.ts: a matched name starting with `-` needs a person).
   * Only for programs that read no option out of a name that does not start with `-`.
   */
  globsReadOnDisk?: boolean;
}

interface ParsedOption {
  /** The short letter or long name (through `alias`). */
  key: string;
  value?: ShellWord;
  /** The word the option came from. */
  word: ShellWord;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: ShellWord[];
  /** Why the options cannot be known for certain; empty when every word was understood. */
  unknown: string[];
}

/** Whether a word only known at run time could start with `-` and so be read as an option. */
export function mayBeOption(word: ShellWord): boolean {
  if (word.literal) return word.text.startsWith("-") && word.text !== "-";
  const text = word.text.replace(/^["']+/, "");
  // `<xargs input>` and the like stand for words that arrive at run time.
  return text === "" || /^[-$`*?[{\\@!+<]/.test(text);
}

function findLong(table: OptionTable, name: string): { name: string; kind: OptionKind } | undefined {
  const long = table.long ?? {};
  const exact = long[name];
  if (exact !== undefined) return { name, kind: exact };
  const candidates = Object.keys(long).filter((full) => full.startsWith(name));
  const only = candidates.length === 1 ? candidates[0] : undefined;
  return only === undefined ? undefined : { name: only, kind: long[only] as OptionKind };
}

/** Read `args` against `table`; `program` names it in reasons. */
export function parseOptions(program: string, args: readonly ShellWord[], table: OptionTable): ParsedArgs {
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  const unknown: string[] = [];
  let done = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (done) {
      operands.push(word);
      continue;
    }
    if (!word.literal) {
      if (mayBeOption(word) && !(table.globsReadOnDisk === true && isPlainGlob(word))) {
        unknown.push(
          `${shown(word.text)} is only known when the shell runs and could be an option of "${program}" (write "--" before operands, or ./ before a glob)`,
        );
      }
      operands.push(word);
      if (table.posix === true) done = true;
      continue;
    }
    const text = word.text;
    if (text === "--") {
      done = true;
      continue;
    }
    if (!text.startsWith("-") || text === "-") {
      operands.push(word);
      if (table.posix === true) done = true;
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = text.slice(2, eq === -1 ? undefined : eq);
      const found = findLong(table, name);
      if (found === undefined) {
        if (table.strict !== false)
          unknown.push(`"${program}" is given the option ${shown(text)}, which Lathe does not know`);
        continue;
      }
      const key = table.alias?.[found.name] ?? found.name;
      if (eq !== -1) options.push({ key, value: { text: text.slice(eq + 1), literal: true }, word });
      else if (found.kind === "value") {
        const value = args[i + 1];
        options.push(value === undefined ? { key, word } : { key, value, word });
        i++;
      } else options.push({ key, word });
      continue;
    }
    if (table.numeric === true && /^-\d+[A-Za-z]*$/.test(text)) {
      options.push({ key: "numeric", value: { text: text.slice(1), literal: true }, word });
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] as string;
      if (table.values?.includes(letter)) {
        const attached = text.slice(j + 1);
        if (attached !== "") options.push({ key: letter, value: { text: attached, literal: true }, word });
        else {
          const value = args[i + 1];
          options.push(value === undefined ? { key: letter, word } : { key: letter, value, word });
          i++;
        }
        break;
      }
      if (table.optional?.includes(letter)) {
        const attached = text.slice(j + 1);
        options.push(
          attached === ""
            ? { key: letter, word }
            : { key: letter, value: { text: attached, literal: true }, word },
        );
        break;
      }
      if (table.flags?.includes(letter) || table.strict === false) {
        options.push({ key: letter, word });
        continue;
      }
      unknown.push(`"${program}" is given the option ${shown(text)}, which Lathe does not know`);
      break;
    }
  }
  return { options, operands, unknown };
}

/** The values of every option with one of these keys. */
export function valuesOf(parsed: ParsedArgs, ...keys: string[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (const option of parsed.options)
    if (keys.includes(option.key) && option.value !== undefined) out.push(option.value);
  return out;
}

export function has(parsed: ParsedArgs, ...keys: string[]): boolean {
  return parsed.options.some((option) => keys.includes(option.key));
}
