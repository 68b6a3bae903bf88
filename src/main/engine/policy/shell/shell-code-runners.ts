import { braceExpansionOffReason, globOptionReason } from "./glob-shell-options.ts";
import { shown } from "./shown-text.ts";
import type { ArgvItem } from "./shell-types.ts";
import type { Handler } from "./wrapper-outcome.ts";
import { opaque } from "./wrapper-outcome.ts";

/** sh/bash/dash/zsh/ksh: `-c STRING` runs the string; a file operand or no operand runs a script. */
const shell: Handler = (tool, args) => {
  let commandMode = false;
  let stdinMode = false;
  let i = 0;
  while (i < args.length) {
    const item = args[i] as ArgvItem;
    if (!item.word.literal) {
      // After -c the next word is the string; the message for it is given below.
      if (commandMode) break;
      return [
        opaque(
          `the arguments of "${tool}" include ${shown(item.word.text)}, which is only known when the shell runs`,
        ),
      ];
    }
    const text = item.word.text;
    if (text === "--" || text === "-") {
      i++;
      break;
    }
    if (text.startsWith("--")) {
      if (text === "--help" || text === "--version") return [];
      // An interactive bash (`bash --rcfile f -i`) runs the file first, unconfined.
      if (text === "--rcfile" || text === "--init-file")
        return [
          opaque(
            `"${tool} ${text}" runs the startup file ${shown(args[i + 1]?.word.text ?? "")} first, whose contents Lathe cannot see`,
          ),
        ];
      i++;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(text)) break;
    // `bash +B -c 'cat {a,b}'`, `bash +o braceexpand -c …`: braces read as written.
    const off =
      braceExpansionOffReason(tool, text) ??
      (/o/.test(text.slice(1)) ? braceExpansionOffReason(tool, text, args[i + 1]?.word.text) : undefined);
    if (off !== undefined) return [opaque(off)];
    let takesNext = 0;
    for (const char of text.slice(1)) {
      if (char === "c") commandMode = true;
      else if (char === "s") stdinMode = true;
      else if (char === "o" || char === "O") {
        takesNext++;
        // `bash -O dotglob -c '…'`: the code's globs match what Lathe's expansion does not.
        const value = args[i + takesNext];
        if (char === "O" && value !== undefined) {
          const reason = value.word.literal
            ? globOptionReason(`${tool} -O`, value.word.text)
            : `"${tool} -O" is given ${shown(value.word.text)}, only known when the shell runs, which may change what its globs match`;
          if (reason !== undefined) return [opaque(reason)];
        }
      }
    }
    i += 1 + takesNext;
  }
  const operand = args[i];
  if (commandMode) {
    if (operand === undefined) return [];
    if (!operand.word.literal) {
      return [
        opaque(
          `"${tool} -c" runs the string ${shown(operand.word.text)}, which is only known when the shell runs`,
        ),
      ];
    }
    return [{ kind: "code", code: operand.word.text, pos: operand.pos, via: "sh -c" }];
  }
  if (operand !== undefined && !stdinMode) {
    return [opaque(`"${tool}" runs the script ${shown(operand.word.text)}, whose contents Lathe cannot see`)];
  }
  return [opaque(`"${tool}" runs commands read from its standard input, which Lathe cannot see`)];
};

/** Shells whose language is the one Lathe parses (bash and its POSIX relatives). */
const SHELLS = ["sh", "bash", "rbash", "dash", "ash"];

/**
 * Shells with a language of their own: zsh runs code from glob qualifiers (`*(e:'cmd':)`), ksh,
 * fish and csh read differently from bash, so code given to them is not analysed as bash.
 */
const FOREIGN_SHELLS = [
  "zsh",
  "ksh",
  "ksh93",
  "mksh",
  "pdksh",
  "yash",
  "fish",
  "tcsh",
  "csh",
  "nu",
  "xonsh",
  "elvish",
];

const foreign: Handler = (tool, args) =>
  args.length === 1 && /^--?(version|help)$/.test(args[0]?.word.text ?? "")
    ? []
    : [opaque(`"${tool}" runs shell code in a language other than bash, which Lathe does not analyse`)];

/** Every shell, by program name. */
export const SHELL_RUNNERS: ReadonlyMap<string, Handler> = new Map([
  ...SHELLS.map((name): [string, Handler] => [name, shell]),
  ...FOREIGN_SHELLS.map((name): [string, Handler] => [name, foreign]),
]);
