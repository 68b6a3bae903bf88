import type { ArgvItem } from "./shell-types.ts";
import { braceExpansionOffReason, globOptionReason } from "./glob-shell-options.ts";
import { shown } from "./shown-text.ts";
import {
  literal,
  opaque,
  optionsThenCommand,
  runs,
  type Handler,
  type WrapperOutcome,
} from "./wrapper-outcome.ts";
import { scanOptions } from "./wrapper-options.ts";

/**
 * Builtins that run other commands or code, load code, or change how later names and folders
 * resolve. Only their bare name runs them (`/bin/eval` is not `eval`).
 */

const command: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, { short: "pvV" });
  if (!scan.ok) return [opaque(scan.reason)];
  // `command -v name` only looks the name up.
  if (scan.seen.has("v") || scan.seen.has("V")) return [];
  return runs(args, scan.operand, "command");
};

const evalHandler: Handler = (tool, args) => {
  const outcomes: WrapperOutcome[] = [
    opaque(
      `"${tool}" runs its arguments as shell code assembled when the shell runs, so what it runs cannot be fully seen`,
    ),
  ];
  const first = args[0];
  if (first !== undefined && args.every((item) => item.word.literal)) {
    outcomes.push({
      kind: "code",
      code: args.map((item) => item.word.text).join(" "),
      pos: first.pos,
      via: "eval",
    });
  }
  return outcomes;
};

const source: Handler = (tool, args) => {
  const file = args[0];
  if (file === undefined) return [];
  return [
    opaque(
      `"${tool}" runs the script ${shown(file.word.text)} in this shell, whose contents Lathe cannot see`,
    ),
  ];
};

/** `trap 'code' SIGNAL`: the code runs later, when the signal (or EXIT, DEBUG, ERR) comes. */
const trap: Handler = (tool, args) => {
  let i = 0;
  while (i < args.length) {
    const text = literal(args[i]);
    if (text === "--") {
      i++;
      break;
    }
    if (text === undefined || !/^-[lp]+$/.test(text)) break;
    i++;
  }
  const action = args[i];
  // With a single operand, trap resets that signal.
  if (action === undefined || args.length - i < 2) return [];
  if (!action.word.literal) {
    return [
      opaque(
        `"${tool}" sets the handler ${shown(action.word.text)}, shell code that is only known when the shell runs`,
      ),
    ];
  }
  if (action.word.text === "-" || action.word.text === "") return [];
  return [
    { kind: "code", code: action.word.text, pos: action.pos, via: "trap" },
    opaque(
      `"${tool}" sets shell code to run later, when a signal or event arrives (EXIT, DEBUG, ERR …), in a state of the shell Lathe cannot follow`,
    ),
  ];
};

const alias: Handler = (tool, args) => {
  const outcomes: WrapperOutcome[] = [];
  for (const item of args) {
    if (!item.word.literal) {
      outcomes.push(
        opaque(`"${tool}" defines ${shown(item.word.text)}, which is only known when the shell runs`),
      );
      continue;
    }
    const eq = item.word.text.indexOf("=");
    if (eq > 0) {
      const name = item.word.text.slice(0, eq);
      outcomes.push(
        { kind: "defines", name },
        opaque(
          `"${tool}" defines "${name}" as an alias, which changes what that name runs in shell code read afterwards`,
        ),
      );
    }
  }
  return outcomes;
};

/** Whether an option word (a cluster such as `-rp`) holds the letter, before `--`. */
function hasOption(args: readonly ArgvItem[], letters: string): boolean {
  for (const item of args) {
    const text = literal(item);
    if (text === "--") return false;
    if (text === undefined) return true;
    if (/^-[A-Za-z]+$/.test(text) && [...letters].some((l) => text.includes(l))) return true;
  }
  return false;
}

/** A builtin whose options load or bind code (`hash -p`, `compgen -C`); a dynamic word may be one. */
function dangerousOption(letters: string, reason: string): Handler {
  return (_tool, args) => (hasOption(args, letters) ? [opaque(reason)] : []);
}

/** `enable`: with names it turns builtins on or off (so a name may run a program instead), `-f` loads code. */
const enable: Handler = (tool, args) => {
  if (hasOption(args, "f"))
    return [opaque(`"${tool} -f" loads a builtin from a shared library, whose code Lathe cannot see`)];
  const changes = args.some((item) => !/^-[aps]*$/.test(literal(item) ?? "?"));
  return changes
    ? [opaque(`"${tool}" turns shell builtins on or off, which changes what later command names run`)]
    : [];
};

/** `cd`, `pushd`: the folder later commands run in (see directory-tracking.ts). */
const changeDirectory: Handler = (tool, args) => {
  let i = 0;
  while (i < args.length) {
    const text = literal(args[i]);
    if (text === "--") {
      i++;
      break;
    }
    if (text === undefined || !/^-[LPe@]+$/.test(text)) break;
    i++;
  }
  const target = args[i];
  if (target === undefined) {
    if (tool === "pushd")
      return [{ kind: "chdir", change: { unknown: `"pushd" without a folder swaps the two top folders` } }];
    return [{ kind: "chdir", change: { word: { text: "~", literal: false } } }];
  }
  const text = literal(target);
  if (text === "-" || (tool === "pushd" && /^[+-]\d+$/.test(text ?? ""))) {
    return [
      { kind: "chdir", change: { unknown: `"${tool} ${text}" returns to a folder remembered earlier` } },
    ];
  }
  return [{ kind: "chdir", change: { word: target.word } }];
};

const shopt: Handler = (tool, args) => {
  // `shopt -u -o braceexpand` unsets a `set -o` option.
  const flags = args.map((item) => literal(item) ?? "").filter((text) => /^-[A-Za-z]+$/.test(text));
  const letters = flags.join("");
  if (letters.includes("o") && letters.includes("u")) {
    const sign = "+";
    for (const item of args) {
      const name = literal(item) ?? "";
      const reason = braceExpansionOffReason(tool, sign, name, `${tool} ${flags.join(" ")} ${name}`);
      if (reason !== undefined) return [opaque(reason)];
    }
  }
  for (const item of args) {
    const text = literal(item);
    if (text === undefined)
      return [
        opaque(
          `"${tool}" is given ${shown(item.word.text)}, only known when the shell runs, which may change what every later glob matches`,
        ),
      ];
    const reason = globOptionReason(tool, text);
    if (reason !== undefined) return [opaque(reason)];
  }
  return [];
};

/** `set -f`, `set +B`, `set -o noglob`: later words are read as written (braceExpansionOffReason). */
const set: Handler = (tool, args) => {
  for (let i = 0; i < args.length; i++) {
    const text = literal(args[i]);
    if (text === undefined || text === "--" || text === "-" || !/^[-+][A-Za-z]+$/.test(text)) break;
    const option = /o/.test(text.slice(1)) ? literal(args[i + 1]) : undefined;
    const reason = braceExpansionOffReason(tool, text, option) ?? braceExpansionOffReason(tool, text);
    if (reason !== undefined) return [opaque(reason)];
    if (option !== undefined) i++;
  }
  return [];
};

const popd: Handler = () => [
  { kind: "chdir", change: { unknown: `"popd" returns to a folder remembered on the directory stack` } },
];

export const SHELL_BUILTINS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["command", command],
  ["builtin", (_tool, args) => runs(args, literal(args[0]) === "--" ? 1 : 0, "builtin")],
  ["exec", optionsThenCommand({ short: "cl", shortArg: "a" })],
  ["eval", evalHandler],
  ["source", source],
  [".", source],
  ["trap", trap],
  ["alias", alias],
  ["shopt", shopt],
  ["set", set],
  [
    "hash",
    dangerousOption(
      "p",
      `"hash -p" binds a command name to a program of its choosing, so later names may not run what they say`,
    ),
  ],
  ["enable", enable],
  ["fc", () => [opaque(`"fc" runs commands again from the shell's history, or opens an editor on them`)]],
  [
    "history",
    (tool, args) =>
      args.length === 0 || (args.length === 1 && /^\d+$/.test(literal(args[0]) ?? ""))
        ? []
        : [opaque(`"${tool}" with options can write the history file or expand history references`)],
  ],
  ["compgen", dangerousOption("CF", `"compgen -C/-F" runs a command or function to produce completions`)],
  ["complete", dangerousOption("CF", `"complete -C/-F" sets a command or function to run for completions`)],
  ["bind", dangerousOption("x", `"bind -x" binds a key to shell code`)],
  ["cd", changeDirectory],
  ["pushd", changeDirectory],
  ["popd", popd],
]);
