import type { ArgvItem, ShellWord } from "./shell-types.ts";
import { unsetEffect } from "./sensitive-variables.ts";
import { shown } from "./shown-text.ts";
import { literal, opaque, type Handler, type WrapperOutcome } from "./wrapper-outcome.ts";

/**
 * Builtins that set variables named by their arguments, or evaluate their arguments as
 * arithmetic. A name is itself evaluated: `read 'a[$(cmd)]'` runs cmd while assigning, so a
 * name must be written literally, and its subscript (if any) is checked as arithmetic.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_WITH_SUBSCRIPT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^]*\])?$/;
/** A value only known when the command runs. */
const INPUT: ShellWord = { text: "<input>", literal: false };

/** Outcomes for a variable name that a builtin assigns; `how` as in the "sets" outcome. */
function setsName(
  tool: string,
  item: ArgvItem | undefined,
  value: ShellWord,
  how: string | undefined,
): WrapperOutcome[] {
  if (item === undefined) return [];
  if (!item.word.literal) {
    return [
      opaque(
        `"${tool}" assigns to the variable named ${shown(item.word.text)}, a name only known when the shell runs (a name such as a[$(cmd)] runs cmd)`,
      ),
    ];
  }
  const match = NAME_WITH_SUBSCRIPT.exec(item.word.text);
  if (match === null) {
    return [opaque(`"${tool}" is given ${shown(item.word.text)} where it expects a variable name`)];
  }
  const name = match[1] as string;
  const outcomes: WrapperOutcome[] = [{ kind: "sets", name, value, how }];
  const subscript = match[2];
  if (subscript !== undefined && subscript !== "[@]" && subscript !== "[*]") {
    outcomes.push({
      kind: "arithmetic",
      text: subscript.slice(1, -1),
      where: `the subscript of "${item.word.text}"`,
    });
  }
  return outcomes;
}

/** Skip options (`-r`, `-d x`, `-dx`); returns the first operand and the values of options with one. */
function options(
  args: readonly ArgvItem[],
  withValue: string,
): { operand: number; values: Map<string, ArgvItem>; dynamic?: ArgvItem } {
  const values = new Map<string, ArgvItem>();
  let i = 0;
  while (i < args.length) {
    const item = args[i] as ArgvItem;
    const text = literal(item);
    if (text === undefined)
      return mayStartWithDash(item.word) ? { operand: i, values, dynamic: item } : { operand: i, values };
    if (text === "--") return { operand: i + 1, values };
    if (!/^-./.test(text)) break;
    let consumed = 1;
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] as string;
      if (!withValue.includes(letter)) continue;
      const attached = text.slice(j + 1);
      if (attached !== "") values.set(letter, { ...item, word: { text: attached, literal: true } });
      else {
        const next = args[i + 1];
        if (next !== undefined) values.set(letter, next);
        consumed = 2;
      }
      break;
    }
    i += consumed;
  }
  return { operand: i, values };
}

/** Whether a dynamic word could expand to something starting with `-` (and so be an option). */
function mayStartWithDash(word: ShellWord): boolean {
  const text = word.text.replace(/^["']+/, "");
  return text === "" || /^[-$`*?[{~\\]/.test(text);
}

function dynamicOption(tool: string, item: ArgvItem): WrapperOutcome {
  return opaque(
    `the arguments of "${tool}" include ${shown(item.word.text)}, which is only known when the shell runs and could name a variable to assign`,
  );
}

const read: Handler = (tool, args) => {
  const scan = options(args, "adinNptu");
  if (scan.dynamic !== undefined) return [dynamicOption(tool, scan.dynamic)];
  const outcomes: WrapperOutcome[] = [];
  const array = scan.values.get("a");
  if (array !== undefined) outcomes.push(...setsName(tool, array, INPUT, `${tool} -a`));
  for (const item of args.slice(scan.operand))
    outcomes.push(...setsName(tool, item, INPUT, `${tool} ${item.word.text}`));
  return outcomes;
};

const printf: Handler = (tool, args) => {
  const scan = options(args, "v");
  if (scan.dynamic !== undefined && scan.operand === 0) return [dynamicOption(tool, scan.dynamic)];
  const target = scan.values.get("v");
  return target === undefined ? [] : setsName(tool, target, INPUT, `printf -v ${target.word.text}`);
};

const mapfile: Handler = (tool, args) => {
  const scan = options(args, "dnOsuCc");
  if (scan.dynamic !== undefined) return [dynamicOption(tool, scan.dynamic)];
  if (scan.values.has("C")) {
    return [opaque(`"${tool} -C" runs a callback command for every few lines it reads`)];
  }
  const name = args[scan.operand];
  return name === undefined ? [] : setsName(tool, name, INPUT, `${tool} ${name.word.text}`);
};

const getopts: Handler = (tool, args) =>
  setsName(tool, args[1], INPUT, `${tool} … ${args[1]?.word.text ?? ""}`);

const wait: Handler = (tool, args) => {
  const scan = options(args, "p");
  const target = scan.values.get("p");
  return target === undefined ? [] : setsName(tool, target, INPUT, undefined);
};

/** declare, typeset, local, export, readonly: attributes and `name=value` words. */
const declare: Handler = (tool, args) => {
  const outcomes: WrapperOutcome[] = [];
  // `export -n PATH`, `declare +x PATH`: the commands started after get no PATH (see unsetEffect).
  let unexports: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const item = args[i] as ArgvItem;
    const text = literal(item);
    if (text === "--") {
      i++;
      break;
    }
    if (text === undefined) {
      if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^]*\])?\+?=/.test(item.word.text)) break;
      return [dynamicOption(tool, item)];
    }
    if (!/^[-+][A-Za-z]+$/.test(text)) break;
    if ((tool === "export" && text.startsWith("-") && text.includes("n")) || /^\+[A-Za-z]*x/.test(text))
      unexports = text;
    // `export -n` and `readonly` have no integer or nameref attribute to give.
    const attributes = tool === "export" || tool === "readonly" ? "" : "in";
    if (text.startsWith("-") && [...attributes].some((a) => text.includes(a))) {
      return [
        opaque(
          text.includes("n")
            ? `"${tool} ${text}" makes a name refer to another variable (a nameref), whose name — and any a[$(cmd)] subscript in it, which runs cmd — is only known when the shell runs`
            : `"${tool} ${text}" gives variables the integer attribute, so every value later assigned to them is evaluated as arithmetic, where a[$(cmd)] runs cmd`,
        ),
      ];
    }
  }
  for (; i < args.length; i++) {
    const item = args[i] as ArgvItem;
    const eq = /^([A-Za-z_][A-Za-z0-9_]*(?:\[[^]*?\])?)\+?=/.exec(item.word.text);
    if (eq === null) {
      const effect = unexports === undefined ? undefined : unsetEffect(item.word.text);
      if (effect !== undefined)
        outcomes.push(
          opaque(
            `"${tool} ${unexports} ${item.word.text}" leaves it out of the commands started after, as unset does for them: ${effect}`,
          ),
        );
      outcomes.push(
        ...setsName(tool, item, { text: "", literal: true }, undefined).filter((o) => o.kind !== "sets"),
      );
      continue;
    }
    const value: ShellWord = item.word.literal
      ? { text: item.word.text.slice(eq[0].length), literal: true }
      : { text: item.word.text.slice(eq[0].length), literal: false };
    const number =
      value.literal && /^[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+|[0-9]+)?$/.test(value.text);
    const nameItem: ArgvItem = { ...item, word: { text: eq[1] as string, literal: true } };
    outcomes.push(...setsName(tool, nameItem, value, number ? undefined : item.word.text));
  }
  return outcomes;
};

/** `let`: every argument is an arithmetic expression. */
const let_: Handler = (tool, args) =>
  args.map((item): WrapperOutcome =>
    item.word.literal
      ? { kind: "arithmetic", text: item.word.text, where: `"${tool} ${item.word.text}"` }
      : opaque(
          `"${tool}" evaluates ${shown(item.word.text)} as arithmetic, and its text is only known when the shell runs`,
        ),
  );

/** `unset 'a[i]'`: the subscript is evaluated; `unset PATH` changes what runs (unsetEffect). */
const unset: Handler = (tool, args) => {
  const outcomes: WrapperOutcome[] = [];
  // `unset -f NAME` removes a function, not a variable (the last of -f and -v counts).
  let functions = false;
  for (const item of args) {
    const text = literal(item);
    if (text === undefined) {
      outcomes.push(
        opaque(`"${tool}" is given ${shown(item.word.text)}, a variable name only known when the shell runs`),
      );
    } else if (text.startsWith("-")) {
      const letters = text.slice(1).replace(/[^fv]/g, "");
      if (letters !== "") functions = letters.endsWith("f");
    } else {
      const effect = functions ? undefined : unsetEffect(text);
      if (effect !== undefined) outcomes.push(opaque(effect));
      outcomes.push(
        ...setsName(tool, item, { text: "", literal: true }, undefined).filter((o) => o.kind !== "sets"),
      );
    }
  }
  return outcomes;
};

/** test and [: `-v NAME` and `-R NAME` evaluate the name's subscript. */
const test: Handler = (tool, args) => {
  const outcomes: WrapperOutcome[] = [];
  for (let i = 0; i < args.length - 1; i++) {
    const text = literal(args[i]);
    if (text !== "-v" && text !== "-R") continue;
    const operand = args[i + 1] as ArgvItem;
    if (!operand.word.literal) {
      outcomes.push(
        opaque(
          `"${tool} ${text}" checks the variable named ${shown(operand.word.text)}, a name only known when the shell runs (a name such as a[$(cmd)] runs cmd)`,
        ),
      );
    } else if (NAME.test(operand.word.text) === false) {
      outcomes.push(
        ...setsName(tool, operand, { text: "", literal: true }, undefined).filter((o) => o.kind !== "sets"),
      );
    }
  }
  return outcomes;
};

export const VARIABLE_BUILTINS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["read", read],
  ["printf", printf],
  ["mapfile", mapfile],
  ["readarray", mapfile],
  ["getopts", getopts],
  ["wait", wait],
  ["declare", declare],
  ["typeset", declare],
  ["local", declare],
  ["export", declare],
  ["readonly", declare],
  ["let", let_],
  ["unset", unset],
  ["test", test],
  ["[", test],
]);
