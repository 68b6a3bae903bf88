import type { ShellWord } from "./shell-analysis.ts";
import { variableEffect } from "./sensitive-variables.ts";
import { shown } from "./shown-text.ts";
import type { DynamicCause } from "./word-value.ts";
import { scanOptions, type OptionSpec } from "./wrapper-options.ts";

/** One word of a command line, with its place in the source it came from. */
export interface ArgvItem {
  word: ShellWord;
  pos: number;
  end: number;
  /** Why the word is dynamic, when the parser told us. */
  cause?: DynamicCause | undefined;
}

/** What running a command implies beyond the command itself. */
export type WrapperOutcome =
  /** It runs another command line (`sudo curl x` runs `curl x`). */
  | { kind: "runs"; argv: ArgvItem[]; via: string }
  /** It runs a string as shell code (`sh -c 'curl x'`); `pos` places it in the source. */
  | { kind: "code"; code: string; pos: number; via: string }
  | { kind: "opaque"; reason: string }
  /** It defines a name that later commands may call (`alias ls='…'`). */
  | { kind: "defines"; name: string };

type Handler = (tool: string, args: ArgvItem[]) => WrapperOutcome[];

const HELP = { help: "help", version: "version" };

function opaque(reason: string): WrapperOutcome {
  return { kind: "opaque", reason };
}

function runs(args: ArgvItem[], from: number, via: string): WrapperOutcome[] {
  return from < args.length ? [{ kind: "runs", argv: args.slice(from), via }] : [];
}

function literal(item: ArgvItem | undefined): string | undefined {
  return item?.word.literal === true ? item.word.text : undefined;
}

/** A wrapper that takes options and then runs the rest of its arguments as a command. */
function optionsThenCommand(spec: OptionSpec, operandsBeforeCommand = 0): Handler {
  return (tool, args) => {
    const scan = scanOptions(tool, args, spec);
    if (!scan.ok) return [opaque(scan.reason)];
    if (scan.seen.has("help") || scan.seen.has("version")) return [];
    return runs(args, scan.operand + operandsBeforeCommand, tool);
  };
}

/** `NAME=value` as `env` reads it (any word with `=` after a non-empty name). */
function envAssignment(item: ArgvItem): { name: string; value: ShellWord } | undefined {
  if (item.word.literal) {
    const eq = item.word.text.indexOf("=");
    if (eq <= 0) return undefined;
    return {
      name: item.word.text.slice(0, eq),
      value: { text: item.word.text.slice(eq + 1), literal: true },
    };
  }
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(item.word.text);
  if (match === null) return undefined;
  return { name: match[1] as string, value: { text: item.word.text.slice(match[0].length), literal: false } };
}

/** What setting `name=value` implies (a command in GIT_PAGER, a changed PATH …). */
export function assignmentOutcomes(name: string, value: ShellWord, pos: number): WrapperOutcome[] {
  const effect = variableEffect(name, value);
  if (effect === undefined) return [];
  return effect.kind === "runs"
    ? [{ kind: "code", code: effect.code, pos, via: name }]
    : [opaque(effect.reason)];
}

const ENV_SPEC: OptionSpec = {
  short: "0iv",
  shortArg: "uCS",
  long: { null: "0", "ignore-environment": "i", debug: "v", "list-signal-handling": "help", ...HELP },
  longArg: { unset: "u", chdir: "C", "split-string": "S" },
  longOptional: {
    "block-signal": "block-signal",
    "default-signal": "default-signal",
    "ignore-signal": "ignore-signal",
  },
};

const env: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, ENV_SPEC);
  if (!scan.ok) return [opaque(scan.reason)];
  if (scan.seen.has("S")) {
    return [opaque(`"env -S" splits a string into a command line, which Lathe does not analyse`)];
  }
  if (scan.seen.has("help") || scan.seen.has("version")) return [];
  const outcomes: WrapperOutcome[] = [];
  let i = scan.operand;
  if (literal(args[i]) === "-") i++;
  for (; i < args.length; i++) {
    const item = args[i] as ArgvItem;
    const assignment = envAssignment(item);
    if (assignment === undefined) break;
    outcomes.push(...assignmentOutcomes(assignment.name, assignment.value, item.pos));
  }
  outcomes.push(...runs(args, i, "env"));
  return outcomes;
};

const command: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, { short: "pvV" });
  if (!scan.ok) return [opaque(scan.reason)];
  // `command -v name` only looks the name up.
  if (scan.seen.has("v") || scan.seen.has("V")) return [];
  return runs(args, scan.operand, "command");
};

const SUDO_SPEC: OptionSpec = {
  short: "AbEeHhiKklnPSsVv",
  shortArg: "CDgpRrTtUu",
  long: {
    askpass: "A",
    background: "b",
    edit: "e",
    "set-home": "H",
    login: "i",
    "remove-timestamp": "K",
    "reset-timestamp": "k",
    list: "l",
    "non-interactive": "n",
    "preserve-groups": "P",
    stdin: "S",
    shell: "s",
    validate: "v",
    bell: "B",
    ...HELP,
  },
  longArg: {
    "close-from": "C",
    chdir: "D",
    group: "g",
    host: "host",
    prompt: "p",
    chroot: "R",
    role: "r",
    type: "t",
    "command-timeout": "T",
    "other-user": "U",
    user: "u",
  },
  longOptional: { "preserve-env": "E" },
};

/** sudo and doas: options, then the command; `-s`/`-i` without one start a shell on stdin. */
function elevate(spec: OptionSpec, nothingRuns: string): Handler {
  return (tool, args) => {
    const scan = scanOptions(tool, args, spec);
    if (!scan.ok) return [opaque(scan.reason)];
    if (scan.seen.has("help") || scan.seen.has("version") || [...nothingRuns].some((c) => scan.seen.has(c)))
      return [];
    if (scan.operand >= args.length && (scan.seen.has("s") || scan.seen.has("i"))) {
      return [
        opaque(
          `"${tool}" without a command starts a shell that runs commands from its standard input, which Lathe cannot see`,
        ),
      ];
    }
    return runs(args, scan.operand, tool);
  };
}

const XARGS_SPEC: OptionSpec = {
  short: "0oprtx",
  shortArg: "adEILnPs",
  shortOptional: "eil",
  long: {
    null: "0",
    "open-tty": "o",
    interactive: "p",
    "no-run-if-empty": "r",
    verbose: "t",
    exit: "x",
    "show-limits": "show-limits",
    ...HELP,
  },
  longArg: {
    "arg-file": "a",
    delimiter: "d",
    "max-args": "n",
    "max-procs": "P",
    "max-chars": "s",
    "process-slot-var": "process-slot-var",
  },
  longOptional: { replace: "i", eof: "e", "max-lines": "l" },
};

const XARGS_INPUT: ShellWord = { text: "<xargs input>", literal: false };

const xargs: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, XARGS_SPEC);
  if (!scan.ok) return [opaque(scan.reason)];
  if (scan.seen.has("help") || scan.seen.has("version")) return [];
  const replace = scan.values.get("I") ?? (scan.seen.has("i") ? (scan.values.get("i") ?? "{}") : undefined);
  const last = args[args.length - 1];
  const end = last?.end ?? 0;
  // Without a command, xargs runs echo.
  const argv: ArgvItem[] =
    scan.operand < args.length
      ? args.slice(scan.operand)
      : [{ word: { text: "echo", literal: true }, pos: end, end }];
  if (replace === undefined || replace === "") {
    return [{ kind: "runs", argv: [...argv, { word: XARGS_INPUT, pos: end, end }], via: "xargs" }];
  }
  const filled = argv.map((item) =>
    item.word.literal && item.word.text.includes(replace)
      ? { ...item, word: { text: item.word.text, literal: false } }
      : item,
  );
  return [{ kind: "runs", argv: filled, via: "xargs" }];
};

const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

const find: Handler = (tool, args) => {
  let i = 0;
  // Leading options: -H -L -P, -D debugopts, -O level.
  while (i < args.length) {
    const text = literal(args[i]);
    if (text === undefined) break;
    if (text === "-H" || text === "-L" || text === "-P" || /^-O\d*$/.test(text)) i++;
    else if (text === "-D") i += 2;
    else break;
  }
  const outcomes: WrapperOutcome[] = [];
  while (i < args.length) {
    const item = args[i] as ArgvItem;
    if (!item.word.literal) {
      if (item.word.text.includes("$") || item.word.text.includes("`") || item.word.text.includes("{")) {
        outcomes.push(
          opaque(
            `"find" is given ${shown(item.word.text)}, which is only known when the shell runs and could add an action such as -exec`,
          ),
        );
      }
      i++;
      continue;
    }
    if (!FIND_ACTIONS.has(item.word.text)) {
      i++;
      continue;
    }
    const action = item.word.text;
    const inner: ArgvItem[] = [];
    i++;
    while (i < args.length) {
      const word = args[i] as ArgvItem;
      const text = literal(word);
      if (text === ";") break;
      if (text === "+" && literal(inner[inner.length - 1]) === "{}") break;
      inner.push(word);
      i++;
    }
    i++;
    const filled = inner.map((word) =>
      word.word.literal && word.word.text.includes("{}")
        ? { ...word, word: { text: word.word.text, literal: false } }
        : word,
    );
    // The source text of a `{}` word is what the user wrote (`{}`, `'{}'`, `"{}"`).
    outcomes.push(...runs(filled, 0, `find ${action}`));
  }
  return outcomes;
};

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
      i += text === "--rcfile" || text === "--init-file" ? 2 : 1;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(text)) break;
    let takesNext = 0;
    for (const char of text.slice(1)) {
      if (char === "c") commandMode = true;
      else if (char === "s") stdinMode = true;
      else if (char === "o" || char === "O") takesNext++;
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
  return [{ kind: "code", code: action.word.text, pos: action.pos, via: "trap" }];
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
    if (eq > 0) outcomes.push({ kind: "defines", name: item.word.text.slice(0, eq) });
  }
  return outcomes;
};

/** A builtin with one option that binds or loads code (`hash -p`, `enable -f`). */
function dangerousOption(letter: string, reason: string): Handler {
  return (_tool, args) => {
    for (const item of args) {
      const text = literal(item);
      if (text === "--") break;
      if (text !== undefined && new RegExp(`^-[A-Za-z]*${letter}`).test(text)) return [opaque(reason)];
    }
    return [];
  };
}

const WATCH_SPEC: OptionSpec = {
  short: "bcCeghprtwx",
  shortArg: "nq",
  shortOptional: "d",
  long: {
    beep: "b",
    color: "c",
    "no-color": "C",
    errexit: "e",
    chgexit: "g",
    precise: "p",
    "no-rerun": "r",
    "no-title": "t",
    "no-wrap": "w",
    exec: "x",
    ...HELP,
  },
  longArg: { interval: "n", equexit: "q" },
  longOptional: { differences: "d" },
};

/** watch runs its arguments joined by spaces through `sh -c`, or as a command line with -x. */
const watch: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, WATCH_SPEC);
  if (!scan.ok) return [opaque(scan.reason)];
  if (scan.seen.has("help") || scan.seen.has("version")) return [];
  if (scan.seen.has("x")) return runs(args, scan.operand, "watch");
  const rest = args.slice(scan.operand);
  const first = rest[0];
  if (first === undefined) return [];
  const dynamic = rest.find((item) => !item.word.literal);
  if (dynamic !== undefined) {
    return [
      opaque(
        `"${tool}" runs ${shown(dynamic.word.text)} as part of a shell command that is only known when the shell runs`,
      ),
    ];
  }
  return [{ kind: "code", code: rest.map((item) => item.word.text).join(" "), pos: first.pos, via: "watch" }];
};

const SHELLS = ["sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "ash", "yash"];

/** Shell builtins: only their bare name runs them (`/bin/eval` is not `eval`). */
const BUILTINS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["command", command],
  ["builtin", (_tool, args) => runs(args, literal(args[0]) === "--" ? 1 : 0, "builtin")],
  ["exec", optionsThenCommand({ short: "cl", shortArg: "a" })],
  ["eval", evalHandler],
  ["source", source],
  [".", source],
  ["trap", trap],
  ["alias", alias],
  [
    "hash",
    dangerousOption(
      "p",
      `"hash -p" binds a command name to a program of its choosing, so later names may not run what they say`,
    ),
  ],
  [
    "enable",
    dangerousOption("f", `"enable -f" loads a builtin from a shared library, whose code Lathe cannot see`),
  ],
]);

/** Programs, recognised by their file name wherever they live (`/usr/bin/env` is `env`). */
const PROGRAMS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["env", env],
  ["nice", optionsThenCommand({ shortArg: "n", numeric: true, longArg: { adjustment: "n" }, long: HELP })],
  ["nohup", optionsThenCommand({ long: HELP })],
  [
    "timeout",
    optionsThenCommand(
      {
        short: "v",
        shortArg: "sk",
        long: { "preserve-status": "preserve-status", foreground: "foreground", verbose: "v", ...HELP },
        longArg: { signal: "s", "kill-after": "k" },
      },
      1,
    ),
  ],
  [
    "stdbuf",
    optionsThenCommand({ shortArg: "ioe", longArg: { input: "i", output: "o", error: "e" }, long: HELP }),
  ],
  [
    "time",
    optionsThenCommand({
      short: "pvqa",
      shortArg: "fo",
      long: { portability: "p", verbose: "v", quiet: "q", append: "a", ...HELP },
      longArg: { format: "f", output: "o" },
    }),
  ],
  ["setsid", optionsThenCommand({ short: "cfw", long: { ctty: "c", fork: "f", wait: "w", ...HELP } })],
  // sudo -e/-l/-v/-K/-V/-h and doas -L/-C run no command.
  ["sudo", elevate(SUDO_SPEC, "elvKVh")],
  ["doas", elevate({ short: "nsL", shortArg: "uC" }, "LC")],
  ["xargs", xargs],
  ["find", find],
  ["watch", watch],
  ...SHELLS.map((name): [string, Handler] => [name, shell]),
]);

/** The program part of a command name (`/usr/bin/env` → `env`). */
export function programName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** Whether a command name is one that can run other commands or code (sudo, env, eval, sh …). */
export function isWrapper(name: string): boolean {
  return BUILTINS.has(name) || PROGRAMS.has(programName(name));
}

/**
 * What a command runs beyond itself: the command a wrapper runs, shell code it evaluates, or why
 * that cannot be known. Empty for an ordinary command.
 */
export function unwrapCommand(name: string, args: ArgvItem[]): WrapperOutcome[] {
  const program = programName(name);
  const handler = BUILTINS.get(name) ?? PROGRAMS.get(program);
  return handler === undefined ? [] : handler(program, args);
}
