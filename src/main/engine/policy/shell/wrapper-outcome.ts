import { variableEffect } from "./sensitive-variables.ts";
import type { ArgvItem, ShellWord } from "./shell-types.ts";
import { scanOptions, type OptionSpec } from "./wrapper-options.ts";

/** A folder a wrapper runs its command in (`env -C dir`), or why it cannot be known. */
export type DirectoryChange = { word: ShellWord } | { unknown: string };

/** What running a command implies for the shell beyond the command itself. */
export type WrapperOutcome =
  /** It runs another command line (`sudo curl x` runs `curl x`), perhaps in another folder. */
  | { kind: "runs"; argv: ArgvItem[]; via: string; chdir?: DirectoryChange }
  /** It runs a string as shell code (`sh -c 'curl x'`); `pos` places it in the source. */
  | { kind: "code"; code: string; pos: number; via: string }
  | { kind: "opaque"; reason: string }
  /** It defines a name that later commands may call (`alias ls='…'`). */
  | { kind: "defines"; name: string }
  /**
   * It sets a shell variable (`read x`, `printf -v x`, `declare x=…`) to `value` (dynamic when
   * only known at run time); `how` describes it when the value may be something other than a
   * plain number (see arithmetic-ledger.ts), and is undefined when it is always a number.
   */
  | { kind: "sets"; name: string; value: ShellWord; how: string | undefined }
  /** It evaluates text as bash arithmetic (`let` arguments, a subscript in a variable name). */
  | { kind: "arithmetic"; text: string; where: string }
  /** It changes the shell's working folder for the commands after it (`cd`, `pushd`). */
  | { kind: "chdir"; change: DirectoryChange };

export type Handler = (tool: string, args: ArgvItem[]) => WrapperOutcome[];

export const HELP = { help: "help", version: "version" };

export function opaque(reason: string): WrapperOutcome {
  return { kind: "opaque", reason };
}

export function runs(args: ArgvItem[], from: number, via: string): WrapperOutcome[] {
  return from < args.length ? [{ kind: "runs", argv: args.slice(from), via }] : [];
}

export function literal(item: ArgvItem | undefined): string | undefined {
  return item?.word.literal === true ? item.word.text : undefined;
}

/** A wrapper that takes options and then runs the rest of its arguments as a command. */
export function optionsThenCommand(spec: OptionSpec, operandsBeforeCommand = 0): Handler {
  return (tool, args) => {
    const scan = scanOptions(tool, args, spec);
    if (!scan.ok) return [opaque(scan.reason)];
    if (scan.seen.has("help") || scan.seen.has("version")) return [];
    return runs(args, scan.operand + operandsBeforeCommand, tool);
  };
}

/** What setting `name=value` implies (a command in GIT_PAGER, a changed PATH …). */
export function assignmentOutcomes(name: string, value: ShellWord, pos: number): WrapperOutcome[] {
  const effect = variableEffect(name, value);
  if (effect === undefined) return [];
  if (effect.kind === "opaque") return [opaque(effect.reason)];
  const code: WrapperOutcome = { kind: "code", code: effect.code, pos, via: name };
  return effect.reason === undefined ? [code] : [code, opaque(effect.reason)];
}
