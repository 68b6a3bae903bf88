import type { ArgvItem, ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * The options a wrapper command (`sudo`, `env`, `xargs` …) accepts before the command it runs.
 * Long options map to a canonical key (usually their short letter) so `-i` and
 * `--ignore-environment` read the same.
 */
export interface OptionSpec {
  /** Short flags without an argument. */
  short?: string;
  /** Short options that take an argument, attached (`-n10`) or as the next word (`-n 10`). */
  shortArg?: string;
  /** Short options whose argument is optional and only ever attached (`xargs -i{}`). */
  shortOptional?: string;
  long?: Readonly<Record<string, string>>;
  longArg?: Readonly<Record<string, string>>;
  /** Long options whose argument is optional and only given as `--name=value`. */
  longOptional?: Readonly<Record<string, string>>;
  /** `-10` style numeric options (nice). */
  numeric?: boolean;
}

type OptionScan =
  | {
      ok: true;
      operand: number;
      seen: ReadonlySet<string>;
      values: ReadonlyMap<string, string>;
      /** The values as words (an attached value is literal when the option word was). */
      words: ReadonlyMap<string, ShellWord>;
    }
  | { ok: false; reason: string };

type LongKind = "flag" | "arg" | "optional";

function findLong(spec: OptionSpec, name: string): { kind: LongKind; key: string } | undefined {
  const tables: [LongKind, Readonly<Record<string, string>> | undefined][] = [
    ["flag", spec.long],
    ["arg", spec.longArg],
    ["optional", spec.longOptional],
  ];
  const candidates: { kind: LongKind; key: string; full: string }[] = [];
  for (const [kind, table] of tables) {
    for (const [full, key] of Object.entries(table ?? {})) {
      if (full === name) return { kind, key };
      if (full.startsWith(name)) candidates.push({ kind, key, full });
    }
  }
  // getopt_long accepts any unambiguous prefix (`--ignore-env`).
  const first = candidates[0];
  return candidates.length === 1 && first !== undefined ? { kind: first.kind, key: first.key } : undefined;
}

function dynamicReason(tool: string, item: ArgvItem): string {
  return `the arguments of "${tool}" include ${shown(item.word.text)}, which is only known when the shell runs, so what "${tool}" runs cannot be determined`;
}

function unknownReason(tool: string, option: string): string {
  return `"${tool}" is given the option ${shown(option)}, which Lathe does not recognise, so what "${tool}" runs cannot be determined`;
}

/**
 * Skip the options at the start of `args` (getopt style: clusters, attached and separate
 * arguments, `--` ends options, the first operand ends them too). A word in option position
 * that is only known at run time, or an unknown option, makes the rest undeterminable.
 */
export function scanOptions(tool: string, args: readonly ArgvItem[], spec: OptionSpec): OptionScan {
  const seen = new Set<string>();
  const values = new Map<string, string>();
  const words = new Map<string, ShellWord>();
  const setValue = (key: string, word: ShellWord): void => {
    values.set(key, word.text);
    words.set(key, word);
  };
  let i = 0;
  while (i < args.length) {
    const item = args[i] as ArgvItem;
    if (!item.word.literal) return { ok: false, reason: dynamicReason(tool, item) };
    const text = item.word.text;
    if (text === "--") return { ok: true, operand: i + 1, seen, values, words };
    if (text === "-" || !text.startsWith("-")) break;
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = text.slice(2, eq === -1 ? undefined : eq);
      const found = findLong(spec, name);
      if (found === undefined) return { ok: false, reason: unknownReason(tool, text) };
      seen.add(found.key);
      if (eq !== -1) setValue(found.key, { text: text.slice(eq + 1), literal: true });
      else if (found.kind === "arg") {
        const value = args[i + 1];
        if (value !== undefined) setValue(found.key, value.word);
        i++;
      }
      i++;
      continue;
    }
    if (spec.numeric === true && /^-\d+$/.test(text)) {
      seen.add("numeric");
      i++;
      continue;
    }
    let consumedNext = false;
    for (let j = 1; j < text.length; j++) {
      const char = text[j] as string;
      if (spec.shortArg?.includes(char)) {
        seen.add(char);
        const attached = text.slice(j + 1);
        if (attached !== "") setValue(char, { text: attached, literal: true });
        else {
          const value = args[i + 1];
          if (value !== undefined) setValue(char, value.word);
          consumedNext = true;
        }
        break;
      }
      if (spec.shortOptional?.includes(char)) {
        seen.add(char);
        const attached = text.slice(j + 1);
        if (attached !== "") setValue(char, { text: attached, literal: true });
        break;
      }
      if (spec.short?.includes(char)) {
        seen.add(char);
        continue;
      }
      return { ok: false, reason: unknownReason(tool, text) };
    }
    i += consumedNext ? 2 : 1;
  }
  return { ok: true, operand: i, seen, values, words };
}
