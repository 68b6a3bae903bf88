import { effects, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";

/**
 * find: `-fprint`, `-fprint0`, `-fprintf` and `-fls` write the file they name; `-delete` removes
 * what it finds under its starting points. The commands `-exec` and friends run are followed by
 * the walker (see program-wrappers.ts), which also refuses words only known at run time.
 */

const FILE_ACTIONS = new Set(["-fprint", "-fprint0", "-fprintf", "-fls"]);
const LEADING = /^-(H|L|P|O\d*)$/;

/** The starting points: the operands before the expression (`find -L a b -name x`). */
function startingPoints(args: readonly ShellWord[]): ShellWord[] {
  const starts: ShellWord[] = [];
  let i = 0;
  while (
    i < args.length &&
    args[i]?.literal === true &&
    (LEADING.test(args[i]?.text ?? "") || args[i]?.text === "-D")
  ) {
    i += args[i]?.text === "-D" ? 2 : 1;
  }
  for (; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (a.literal && /^[-(!,]/.test(a.text)) break;
    starts.push(a);
  }
  return starts.length > 0 ? starts : [{ text: ".", literal: true }];
}

export const find: EffectsOf = (_program, args) => {
  const writes: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (a.literal && FILE_ACTIONS.has(a.text) && args[i + 1] !== undefined)
      writes.push(args[i + 1] as ShellWord);
  }
  if (args.some((a) => a.literal && a.text === "-delete")) writes.push(...startingPoints(args));
  return effects(writes);
};
