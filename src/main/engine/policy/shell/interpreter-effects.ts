import { has, parseOptions, valuesOf, type OptionTable, type ParsedArgs } from "./command-options.ts";
import { effects, unclear, word, type CommandEffects, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Interpreters run code. Code in the command line (`python3 -c`, `node -e`, `perl -e`), on
 * standard input (a here-document, a pipe, no script at all, `-`, `/dev/stdin`) or in a file
 * produced on the fly (`python3 <(…)`) is code the shell analysis cannot see, so it needs a
 * person. A script file in the workspace runs as the program it is; what it does is contained
 * by the OS sandbox and, without one, by the rule that only provably read-only commands run
 * unattended.
 */

/** Script operands that are really standard input or a pipe. */
function streamScript(script: ShellWord): string | undefined {
  if (!script.literal)
    return `${shown(script.text)}, a file only known when the shell runs (such as a process substitution)`;
  if (script.text === "-") return "its standard input";
  if (/^\/dev\/(stdin|fd\/|tty)|^\/proc\/[^/]+\/fd\//.test(script.text))
    return `${shown(script.text)}, which is a stream rather than a file`;
  return undefined;
}

interface InterpreterSpec {
  table: OptionTable;
  /** Option keys whose value is code. */
  inline: readonly string[];
  /** Option keys that run a module or file the option names (no script operand follows). */
  modules?: readonly string[];
  /** Option keys after which it prints and exits. */
  prints?: readonly string[];
  /** Option keys that need a person, and why. */
  refuse?: Readonly<Record<string, string>>;
  /** Extra checks (written files, in-place edits). */
  extra?: (parsed: ParsedArgs, script: ShellWord | undefined, rest: ShellWord[]) => CommandEffects;
}

function interpreter(spec: InterpreterSpec): EffectsOf {
  return (program, args) => {
    const parsed = parseOptions(program, args, { ...spec.table, posix: true });
    const reasons = [...parsed.unknown];
    if (has(parsed, ...(spec.prints ?? []))) return effects();
    for (const option of parsed.options) {
      if (spec.inline.includes(option.key)) {
        reasons.push(
          `${program} runs the code ${shown(option.value?.text ?? "")} given in the command line, which Lathe cannot analyse`,
        );
      }
      const refusal = spec.refuse?.[option.key];
      if (refusal !== undefined) reasons.push(`${program} ${refusal}`);
    }
    const inline = parsed.options.some((o) => spec.inline.includes(o.key));
    const module = parsed.options.some((o) => (spec.modules ?? []).includes(o.key));
    const script = inline || module ? undefined : parsed.operands[0];
    const rest = inline || module ? parsed.operands : parsed.operands.slice(1);
    if (!inline && !module) {
      if (script === undefined)
        reasons.push(`${program} runs code read from its standard input, which Lathe cannot see`);
      else {
        const stream = streamScript(script);
        if (stream !== undefined) reasons.push(`${program} runs code read from ${stream}`);
      }
    }
    const extra = spec.extra?.(parsed, script, rest) ?? effects();
    return effects(extra.writes, [...reasons, ...extra.unclear]);
  };
}

const python = interpreter({
  table: {
    flags: "bBdEhiIOPqsSuvVx?",
    values: "cmWX",
    long: {
      "check-hash-based-pycs": "value",
      help: "flag",
      "help-env": "flag",
      "help-xoptions": "flag",
      "help-all": "flag",
      version: "flag",
    },
  },
  inline: ["c"],
  modules: ["m"],
  prints: ["h", "?", "V", "help", "help-env", "help-xoptions", "help-all", "version"],
  refuse: { i: "-i reads more code from its standard input when the script ends" },
  // -X pycache_prefix=DIR writes the compiled files there.
  extra: (parsed) =>
    effects(
      valuesOf(parsed, "X")
        .filter((v) => v.text.startsWith("pycache_prefix="))
        .map((v) => word(v.text.slice("pycache_prefix=".length))),
    ),
});

/** node: many options; only those that give code, preload code or change where it comes from matter. */
const node: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    strict: false,
    posix: true,
    values: "erpC",
    long: {
      eval: "value",
      print: "value",
      require: "value",
      import: "value",
      loader: "value",
      "experimental-loader": "value",
      conditions: "value",
      "input-type": "value",
      title: "value",
      "env-file": "value",
      interactive: "flag",
      test: "flag",
      run: "value",
      check: "flag",
      version: "flag",
      help: "flag",
      "v8-options": "flag",
      "stack-trace-limit": "value",
    },
    alias: { eval: "e", print: "p", require: "r", interactive: "i", check: "c", version: "v", help: "h" },
  });
  if (has(parsed, "v", "h", "v8-options")) return effects();
  const reasons: string[] = [];
  for (const option of parsed.options) {
    if (option.key === "e" || option.key === "p") {
      reasons.push(
        `${program} runs the code ${shown(option.value?.text ?? "")} given in the command line, which Lathe cannot analyse`,
      );
    }
    if (["r", "import", "loader", "experimental-loader"].includes(option.key)) {
      const value = option.value;
      if (value === undefined || !value.literal || /^data:/i.test(value.text)) {
        reasons.push(
          `${program} preloads ${shown(value?.text ?? "")}, code given in the command line or only known when the shell runs`,
        );
      }
    }
    if (option.key === "i") reasons.push(`${program} -i reads code from its standard input`);
  }
  const inline = has(parsed, "e", "p");
  const needsScript = !inline && !has(parsed, "test", "run", "c");
  const script = parsed.operands[0];
  if (needsScript) {
    if (script === undefined)
      reasons.push(`${program} runs code read from its standard input, which Lathe cannot see`);
    else {
      const stream = streamScript(script);
      if (stream !== undefined) reasons.push(`${program} runs code read from ${stream}`);
    }
  }
  return effects([], reasons);
};

/** perl reads its switches in its own way: `-lne`, `-pi.bak`, `-Mstrict`, `-e'code'`. */
const perl: EffectsOf = (program, args) => {
  const reasons: string[] = [];
  const writes: ShellWord[] = [];
  let inline = false;
  let inPlace: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) {
      if (/^["']?[-$`*?[{]/.test(a.text))
        reasons.push(
          `${shown(a.text)} is only known when the shell runs and could be a switch of ${program}`,
        );
      break;
    }
    if (a.text === "--") {
      i++;
      break;
    }
    if (!a.text.startsWith("-") || a.text === "-") break;
    if (a.text === "--version" || a.text === "--help" || /^-[vh]$/.test(a.text)) return effects();
    const cluster = a.text.slice(1);
    for (let j = 0; j < cluster.length; j++) {
      const letter = cluster[j] as string;
      const rest = cluster.slice(j + 1);
      if (letter === "e" || letter === "E") {
        inline = true;
        const code = rest !== "" ? rest : (args[++i]?.text ?? "");
        reasons.push(
          `${program} runs the code ${shown(code)} given in the command line, which Lathe cannot analyse`,
        );
        break;
      }
      if (letter === "M" || letter === "m") {
        const module = rest !== "" ? rest : (args[++i]?.text ?? "");
        reasons.push(
          `${program} -${letter}${module} loads a module with an import list that perl runs as code`,
        );
        break;
      }
      if (letter === "I") {
        if (rest === "") i++;
        break;
      }
      if (letter === "i") {
        inPlace = rest;
        break;
      }
      // -l and -0 take octal digits (-0 also -0xHH), -C a number: never letters such as the e of -le.
      if (letter === "l" || letter === "0" || letter === "C") {
        const digits =
          letter === "0" && cluster[j + 1] === "x" ? /^x[0-9a-fA-F]*/ : letter === "C" ? /^\d*/ : /^[0-7]*/;
        j += (digits.exec(cluster.slice(j + 1))?.[0] ?? "").length;
        continue;
      }
      if ("xdDFV".includes(letter)) break;
      if (!"acfnpsStTuUwWX".includes(letter)) {
        reasons.push(`${program} is given the switch -${letter}, which Lathe does not know`);
        break;
      }
    }
  }
  const operands = args.slice(i);
  const files = inline ? operands : operands.slice(1);
  if (!inline) {
    const script = operands[0];
    if (script === undefined)
      reasons.push(`${program} runs code read from its standard input, which Lathe cannot see`);
    else {
      const stream = streamScript(script);
      if (stream !== undefined) reasons.push(`${program} runs code read from ${stream}`);
    }
  }
  if (inPlace !== undefined) {
    writes.push(...files);
    if (inPlace.includes("/") || inPlace.includes("*"))
      reasons.push(`${program} -i${inPlace} writes backups to another folder`);
  }
  return effects(writes, reasons);
};

const ruby = interpreter({
  table: {
    flags: "acdhlnpsSvwyU",
    values: "erIECFK",
    optional: "ixW0T",
    long: {
      version: "flag",
      help: "flag",
      verbose: "flag",
      copyright: "flag",
      yydebug: "flag",
      jit: "flag",
      "disable-gems": "flag",
    },
    strict: false,
  },
  inline: ["e"],
  prints: ["h", "version", "help", "copyright"],
  refuse: { C: "-C runs the script in another folder", r: "-r loads a library before the script" },
  extra: (parsed, _script, rest) => effects(has(parsed, "i") ? rest : []),
});

const php = interpreter({
  table: {
    flags: "ahHilmnqsvwe",
    values: "rBREFfcdtSz",
    long: { version: "flag", help: "flag" },
    strict: false,
  },
  inline: ["r", "B", "R", "E"],
  modules: ["f", "S"],
  prints: ["v", "h", "m", "version", "help"],
  refuse: {
    a: "-a reads code interactively from its standard input",
    d: "-d changes settings such as files it runs first",
    S: "-S starts a web server",
    F: "-F runs a file for every input line",
    z: "-z loads a Zend extension",
  },
});

const lua = interpreter({
  table: { flags: "ivEW", values: "el" },
  inline: ["e"],
  prints: ["v"],
  refuse: { i: "-i reads code from its standard input" },
});

const tcl = interpreter({ table: { values: "", long: { encoding: "value" } }, inline: [] });

const rscript = interpreter({
  table: {
    flags: "",
    values: "e",
    long: { version: "flag", help: "flag", verbose: "flag", "default-packages": "value", vanilla: "flag" },
    strict: false,
  },
  inline: ["e"],
  prints: ["version", "help"],
});

const julia = interpreter({
  table: {
    flags: "hvqi",
    values: "eELCJtpOgH",
    strict: false,
    long: {
      version: "flag",
      help: "flag",
      eval: "value",
      print: "value",
      load: "value",
      project: "optional",
      threads: "value",
    },
  },
  inline: ["e", "E", "eval", "print"],
  prints: ["v", "h", "version", "help"],
  refuse: {
    L: "-L loads a file before the script",
    load: "--load loads a file before the script",
    i: "-i reads code interactively",
  },
});

/** Programs that are a language of their own, with shell escapes and file writes built in. */
const ALWAYS: Readonly<Record<string, string>> = {
  sqlite3:
    "can run shell commands (.shell, .system) and write files (.output, ATTACH) from its arguments or its input",
  dc: "runs shell commands with ! in its program",
  m4: "runs shell commands with syscmd and esyscmd in its input",
  ed: "runs shell commands with ! and writes files with w, from commands read on its standard input",
  red: "writes files with w, from commands read on its standard input",
  ex: "is an editor that can run commands and write any file",
  vi: "is an editor that can run commands and write any file",
  vim: "is an editor that can run commands and write any file",
  nvim: "is an editor that can run commands and write any file",
  view: "is an editor that can run commands and write any file",
  vimdiff: "is an editor that can run commands and write any file",
  emacs: "is an editor that can run commands and write any file",
  nano: "is an editor that can write any file",
  pico: "is an editor that can write any file",
  micro: "is an editor that can run commands and write any file",
  osascript: "runs AppleScript or JavaScript",
  pwsh: "runs PowerShell code",
  powershell: "runs PowerShell code",
  jshell: "runs Java code read from its input",
  irb: "runs Ruby code read from its input",
  ghci: "runs Haskell code read from its input",
  R: "runs R code read from its input",
  groovy: "runs Groovy code",
  deno: "runs JavaScript (deno eval, deno repl) with its own permissions",
  bun: "runs JavaScript, including code given with -e",
};

function always(reason: string): EffectsOf {
  return (program, args) =>
    args.length === 1 && /^--?(version|help|V|h)$/.test(args[0]?.text ?? "")
      ? effects()
      : unclear(`"${program}" ${reason}`);
}

const PYTHONS = [
  "python",
  "python2",
  "python3",
  ...Array.from({ length: 16 }, (_, i) => `python3.${i}`),
  "pypy",
  "pypy3",
];

export const INTERPRETER_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ...PYTHONS.map((name): [string, EffectsOf] => [name, python]),
  ["node", node],
  ["nodejs", node],
  ["perl", perl],
  ["ruby", ruby],
  ["php", php],
  ["lua", lua],
  ["luajit", lua],
  ["tclsh", tcl],
  ["wish", tcl],
  ["Rscript", rscript],
  ["julia", julia],
  ...Object.entries(ALWAYS).map(([name, reason]): [string, EffectsOf] => [name, always(reason)]),
]);
