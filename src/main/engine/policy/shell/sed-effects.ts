import { has, parseOptions } from "./command-options.ts";
import { baseName, dirOf, effects, joinPath, withUnknown, word, type EffectsOf } from "./effect-kit.ts";
import { readSedScript } from "./sed-script.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * sed: the files `-i` edits (and the backups `-i SUFFIX` writes, which may lie in another
 * folder when SUFFIX holds `/` or `*`), the files its script writes (`w`, `W`, `s///w`), and
 * whether its script runs commands (`e`, `s///e`) or comes from somewhere Lathe cannot read.
 */

const SED_TABLE = {
  flags: "nrsuzEb",
  values: "efl",
  optional: "i",
  long: {
    quiet: "flag",
    silent: "flag",
    debug: "flag",
    expression: "value",
    file: "value",
    "follow-symlinks": "flag",
    "in-place": "optional",
    "line-length": "value",
    "null-data": "flag",
    "zero-terminated": "flag",
    posix: "flag",
    "regexp-extended": "flag",
    sandbox: "flag",
    separate: "flag",
    unbuffered: "flag",
    binary: "flag",
    help: "flag",
    version: "flag",
  },
  alias: { expression: "e", file: "f", "in-place": "i", sandbox: "sandbox" },
} as const;

/** Where `-i SUFFIX` puts the backup of `file`. */
function backups(file: ShellWord, suffix: string): ShellWord[] {
  if (!suffix.includes("*") && !suffix.includes("/")) return [];
  const name = suffix.includes("*") ? suffix.replaceAll("*", baseName(file.text)) : `${file.text}${suffix}`;
  if (!name.includes("/")) return [joinPath(dirOf(file), name)];
  // Relative to the working folder or to the file's folder: both are checked.
  return [{ text: name, literal: file.literal }, joinPath(dirOf(file), name)];
}

/** The command line read: its options, its script words and the files it edits or reads. */
function sedCommand(program: string, args: readonly ShellWord[]) {
  const parsed = parseOptions(program, args, SED_TABLE);
  const scripts: ShellWord[] = [];
  const files = [...parsed.operands];
  for (const option of parsed.options)
    if (option.key === "e" && option.value !== undefined) scripts.push(option.value);
  if (scripts.length === 0 && !has(parsed, "f")) {
    const first = files.shift();
    if (first !== undefined) scripts.push(first);
  }
  return { parsed, scripts, files };
}

/** The files a sed command's literal script reads into its output (`r`, `R`). */
export function sedScriptReads(program: string, args: readonly ShellWord[]): string[] {
  const { scripts } = sedCommand(program, args);
  if (scripts.length === 0 || scripts.some((s) => !s.literal)) return [];
  return readSedScript(scripts.map((s) => s.text).join("\n")).reads;
}

export const sed: EffectsOf = (program, args) => {
  const { parsed, scripts, files } = sedCommand(program, args);
  const reasons: string[] = [];
  for (const option of parsed.options) {
    if (option.key === "f") {
      reasons.push(
        `"${program} -f" reads its script from ${shown(option.value?.text ?? "")}, which Lathe cannot see`,
      );
    }
  }
  const sandboxed = has(parsed, "sandbox");
  const writes: ShellWord[] = [];
  const dynamic = scripts.find((s) => !s.literal);
  if (dynamic !== undefined) {
    reasons.push(`the sed script ${shown(dynamic.text)} is only known when the shell runs`);
  } else if (scripts.length > 0 && !sandboxed) {
    const script = readSedScript(scripts.map((s) => s.text).join("\n"));
    if (script.error !== undefined) {
      reasons.push(
        `Lathe could not read the sed script ${shown(scripts.map((s) => s.text).join("; "))} (${script.error})`,
      );
    }
    if (script.executes) {
      reasons.push(`the sed script ${shown(scripts.map((s) => s.text).join("; "))} runs shell commands (e)`);
    }
    writes.push(...script.writes.map(word));
  }
  for (const option of parsed.options) {
    if (option.key !== "i") continue;
    writes.push(...files);
    const suffix = option.value?.text ?? "";
    for (const file of files) writes.push(...backups(file, suffix));
  }
  return withUnknown(parsed, effects(writes, reasons));
};
