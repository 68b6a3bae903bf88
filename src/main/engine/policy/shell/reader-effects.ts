import { effects, type CommandEffects, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Commands that read, but have an option that runs another program or writes a file: `rg --pre`
 * runs the program it names on every file it searches (`rg --pre sh x script` runs the script),
 * `rg --hostname-bin` runs one to find the host's name, `tree -o` writes its listing to a file,
 * `file -C` writes a compiled magic file, `yq -i` rewrites the files it reads, `sdiff -o`
 * writes the merge, `sdiff --diff-program` and `man -P`/`-H` run the program they are given. Without those
 * options they only read. (read-only-commands.ts refuses the same options for the "provably
 * read-only" verdict; here they are what the capability check must see.)
 */

/** The value of `--name value` or `--name=value` at `i`, when the word is that option. */
function longValue(args: readonly ShellWord[], i: number, name: string): ShellWord | undefined {
  const a = args[i] as ShellWord;
  if (!a.literal) return undefined;
  if (a.text === `--${name}`) return args[i + 1] ?? { text: "", literal: true };
  return a.text.startsWith(`--${name}=`) ? { text: a.text.slice(name.length + 3), literal: true } : undefined;
}

/** The literal words before `--`, with their index. */
function options(args: readonly ShellWord[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (a.literal && a.text === "--") break;
    if (a.literal && a.text.startsWith("-")) out.push(i);
  }
  return out;
}

const rg: EffectsOf = (program, args) => {
  const reasons: string[] = [];
  for (const i of options(args)) {
    const pre = longValue(args, i, "pre");
    if (pre !== undefined)
      reasons.push(`"${program} --pre" runs the program ${shown(pre.text)} on every file it searches`);
    const bin = longValue(args, i, "hostname-bin");
    if (bin !== undefined) reasons.push(`"${program} --hostname-bin" runs the program ${shown(bin.text)}`);
  }
  return effects([], reasons);
};

const tree: EffectsOf = (_program, args) => {
  const writes: ShellWord[] = [];
  for (const i of options(args)) {
    const a = args[i] as ShellWord;
    if (a.text === "-o") {
      const target = args[i + 1];
      if (target !== undefined) writes.push(target);
    }
  }
  return effects(writes);
};

/**
 * `sdiff`/`diff3 --diff-program=PROG`: the comparison is run by a program of the caller's
 * choosing; `sdiff -o FILE` writes the merged file.
 */
const diffProgram: EffectsOf = (program, args) => {
  const reasons: string[] = [];
  const writes: ShellWord[] = [];
  for (const i of options(args)) {
    const prog = longValue(args, i, "diff-program");
    if (prog !== undefined) reasons.push(`"${program} --diff-program" runs the program ${shown(prog.text)}`);
    if (program !== "sdiff") continue;
    const a = args[i] as ShellWord;
    const output = longValue(args, i, "output") ?? (a.text === "-o" ? args[i + 1] : undefined);
    if (output !== undefined) writes.push(output);
    else if (/^-o./.test(a.text)) writes.push({ text: a.text.slice(2), literal: true });
  }
  return effects(writes, reasons);
};

function refusedOption(pattern: RegExp, why: string): EffectsOf {
  return (program, args): CommandEffects =>
    options(args).some((i) => pattern.test((args[i] as ShellWord).text))
      ? effects([], [`"${program}" ${why}`])
      : effects();
}

export const READER_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["rg", rg],
  ["tree", tree],
  ["file", refusedOption(/^(-[A-Za-z]*C[A-Za-z]*|--compile)$/, "with -C writes a compiled magic file")],
  ["sdiff", diffProgram],
  ["diff3", diffProgram],
  [
    "man",
    refusedOption(
      /^(-P.*|--pager(=.*)?|-H.*|--html(=.*)?)$/,
      "with -P or -H runs the pager or web browser it is given",
    ),
  ],
  ["yq", refusedOption(/^(-[A-Za-z]*i[A-Za-z]*|--inplace(=.*)?)$/, "with -i rewrites the files it reads")],
]);
