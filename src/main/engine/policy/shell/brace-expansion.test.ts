import { parse, type Command, type Word } from "unbash";
import { describe, expect, it } from "vitest";
import { expandBraces } from "./brace-expansion.ts";

/** The first argument word of `echo WORD`, as the parser gives it. */
function wordOf(source: string): Word {
  const command = parse(`echo ${source}`).commands[0]?.command as Command;
  return command.suffix[0] as Word;
}

describe("expandBraces", () => {
  it.each([
    ["{a,b}", ["a", "b"]],
    ["x{a,b}y", ["xay", "xby"]],
    ["{-o,../s/x,f}", ["-o", "../s/x", "f"]],
    ["-{o,}x", ["-ox", "-x"]],
    ["{a,{b,c}}", ["a", "b", "c"]],
    ["{1..3}", ["1", "2", "3"]],
    ["{01..03}", ["01", "02", "03"]],
    ["{5..1..2}", ["5", "3", "1"]],
    ["{a..c}", ["a", "b", "c"]],
    ["{a,b}{1,2}", ["a1", "a2", "b1", "b2"]],
    ['{"a b",c}', ["a b", "c"]],
    ["{,-o}", ["-o"]],
  ])("%s expands to %j", (source, expected) => {
    expect(expandBraces(wordOf(source))).toEqual(expected);
  });

  it.each(["'{'a,b}", "{a}"])("%s has no brace expansion to do", (source) => {
    expect(expandBraces(wordOf(source))).toBeUndefined();
  });

  it.each(["{a,$X}", "{a,b}*", "~/{a,b}", "{1..100000}", "{a,b}$(id)"])(
    "%s stays a word only the shell can resolve",
    (source) => {
      expect(expandBraces(wordOf(source))).toBeUndefined();
    },
  );
});
