import { has, parseOptions, valuesOf } from "./command-options.ts";
import { effects, unclear, word, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Build tools run the code of their build files (a Makefile, package.json scripts, build.rs):
 * that is contained by the OS sandbox, like any program. What is checked here is what the
 * command line itself adds: code given inline or on standard input (`make -f -`, `make --eval`),
 * settings that name programs (`make CC=…`, `npm --script-shell`), folders they work in or write
 * to (`make -C`, `npm --prefix`, `cmake -B`, `gcc -o`), and installs outside the workspace.
 */

/** A file operand or option value that is really a stream (a here-document, a pipe). */
function isStream(value: ShellWord): boolean {
  return !value.literal || value.text === "-" || /^\/dev\/(stdin|fd\/)|^\/proc\/[^/]+\/fd\//.test(value.text);
}

const make: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    flags: "bBdeEhiknpqrRsStvwL",
    values: "CfIoWE",
    optional: "jlO",
    long: {
      "always-make": "flag",
      directory: "value",
      debug: "optional",
      "environment-overrides": "flag",
      eval: "value",
      file: "value",
      makefile: "value",
      help: "flag",
      "ignore-errors": "flag",
      "include-dir": "value",
      jobs: "optional",
      "jobserver-auth": "value",
      "jobserver-style": "value",
      "keep-going": "flag",
      "load-average": "optional",
      "max-load": "optional",
      "check-symlink-times": "flag",
      "just-print": "flag",
      "dry-run": "flag",
      recon: "flag",
      "old-file": "value",
      "assume-old": "value",
      "output-sync": "optional",
      "print-data-base": "flag",
      question: "flag",
      "no-builtin-rules": "flag",
      "no-builtin-variables": "flag",
      shuffle: "optional",
      silent: "flag",
      quiet: "flag",
      "no-silent": "flag",
      "no-keep-going": "flag",
      stop: "flag",
      touch: "flag",
      trace: "flag",
      version: "flag",
      "print-directory": "flag",
      "no-print-directory": "flag",
      "what-if": "value",
      "new-file": "value",
      "assume-new": "value",
      "warn-undefined-variables": "flag",
    },
    alias: {
      directory: "C",
      file: "f",
      makefile: "f",
      eval: "E",
      "what-if": "W",
      "new-file": "W",
      "assume-new": "W",
    },
  });
  if (has(parsed, "v", "version", "h", "help")) return effects();
  const reasons = [...parsed.unknown];
  for (const value of valuesOf(parsed, "E"))
    reasons.push(`${program} --eval runs the makefile text ${shown(value.text)}`);
  for (const file of valuesOf(parsed, "f")) {
    if (isStream(file))
      reasons.push(`${program} -f ${shown(file.text)} reads a makefile from a stream Lathe cannot see`);
  }
  for (const operand of parsed.operands) {
    if (/^[A-Za-z_.][A-Za-z0-9_.]*\s*[:+?!]?=/.test(operand.text) || !operand.literal) {
      reasons.push(
        `${program} ${shown(operand.text)} sets a make variable on the command line, which recipes may run as a command`,
      );
    }
  }
  return effects(valuesOf(parsed, "C"), reasons);
};

const cmake: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) {
      reasons.push(`${shown(a.text)} is only known when the shell runs and could be an option of ${program}`);
      continue;
    }
    const next = args[i + 1];
    if (a.text === "-E")
      return unclear(`${program} -E runs file and process commands (copy, remove, touch, env …)`);
    if (a.text === "-P" && next !== undefined && isStream(next))
      reasons.push(`${program} -P runs a script from a stream Lathe cannot see`);
    if (a.text === "-B" && next !== undefined) writes.push(next);
    if (/^-B./.test(a.text)) writes.push(word(a.text.slice(2)));
    if (a.text === "--build" && next !== undefined) writes.push(next);
    if (a.text === "--install") {
      const prefix = args.findIndex((x) => x.text === "--prefix");
      if (prefix < 0)
        reasons.push(
          `${program} --install installs into the project's install prefix, which may lie outside the workspace`,
        );
      else if (args[prefix + 1] !== undefined) writes.push(args[prefix + 1] as ShellWord);
    }
    const output = /^--(graphviz|trace-redirect|profiling-output|system-information)=(.*)$/.exec(a.text);
    if (output !== null) writes.push(word(output[2] as string));
  }
  return effects(writes, reasons);
};

/** npm settings whose value is a folder npm writes to, and those that name programs or config files. */
const NPM_FOLDERS = new Set([
  "prefix",
  "cache",
  "pack-destination",
  "logs-dir",
  "tmp",
  "C",
  "dir",
  "cwd",
  "modules-folder",
]);
const NPM_REFUSED = new Set([
  "global",
  "g",
  "location",
  "userconfig",
  "globalconfig",
  "script-shell",
  "shell",
  "editor",
  "browser",
  "viewer",
  "git",
  "node-options",
  "onload-script",
  "init-module",
  "call",
  "c",
  "npm-path",
  "node-gyp",
]);

function packageManager(
  program: string,
  args: readonly ShellWord[],
): { writes: ShellWord[]; reasons: string[] } {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) {
      if (/^["']?[-$`*?[{]/.test(a.text))
        reasons.push(
          `${shown(a.text)} is only known when the shell runs and could be a setting of ${program}`,
        );
      continue;
    }
    if (a.text === "--") break;
    const long = /^--(?:no-)?([a-z0-9-]+)(?:=(.*))?$/.exec(a.text);
    const short = /^-([A-Za-z])$/.exec(a.text);
    const key = long?.[1] ?? short?.[1];
    if (key === undefined) {
      if (!a.text.startsWith("-")) operands.push(a.text);
      continue;
    }
    const value = long?.[2] !== undefined ? word(long[2]) : undefined;
    if (key === "location" && value !== undefined && value.text === "project") continue;
    if (NPM_REFUSED.has(key)) {
      reasons.push(`${program} ${a.text} works outside the workspace or runs a program of its choosing`);
      if (value === undefined && !["global", "g"].includes(key) && args[i + 1] !== undefined) i++;
    } else if (NPM_FOLDERS.has(key)) {
      const folder = value ?? args[++i];
      if (folder !== undefined) writes.push(folder);
    }
  }
  const verb = operands[0];
  if (verb === "config" || verb === "c" || verb === "set") {
    if (!/^(get|list|ls)$/.test(operands[1] ?? ""))
      reasons.push(`${program} ${verb} changes npm's settings files outside the workspace`);
  }
  if (verb === "link" || verb === "ln")
    reasons.push(`${program} link installs links in the global folder outside the workspace`);
  return { writes, reasons };
}

const npm: EffectsOf = (program, args) => {
  const { writes, reasons } = packageManager(program, args);
  return effects(writes, reasons);
};

/** gcc, clang and friends: -o and dependency files are writes; plugins, wrappers and specs run code. */
const compiler: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) {
      if (/^["']?[-$`*?[{@]/.test(a.text))
        reasons.push(
          `${shown(a.text)} is only known when the shell runs and could be an option of ${program}`,
        );
      continue;
    }
    if (a.text === "-o" || a.text === "-MF" || a.text === "--output") {
      const value = args[++i];
      if (value !== undefined) writes.push(value);
    } else if (/^-o./.test(a.text)) writes.push(word(a.text.slice(2)));
    else if (/^--output=/.test(a.text)) writes.push(word(a.text.slice(9)));
    else if (/^-MF./.test(a.text)) writes.push(word(a.text.slice(3)));
    else if (
      a.text === "-wrapper" ||
      /^-fplugin|^-B|^-specs|^@|^-fprofile-(generate|use)=|^--sysroot/.test(a.text)
    ) {
      reasons.push(`${program} ${a.text} runs or loads programs and files of its choosing`);
      if (a.text === "-wrapper" || a.text === "-B") i++;
    }
  }
  return effects(writes, reasons);
};

/** tsc writes next to its sources, or where --outDir, --outFile and friends say. */
const tsc: EffectsOf = (_program, args) => {
  const writes: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (
      /^--(outDir|outFile|out|declarationDir|tsBuildInfoFile|generateTrace)$/i.test(a.text) &&
      args[i + 1] !== undefined
    ) {
      writes.push(args[++i] as ShellWord);
    }
  }
  return effects(writes);
};

const go: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    strict: false,
    values: "oC",
    long: { modfile: "value", overlay: "value", toolexec: "value", exec: "value" },
  });
  const verb = parsed.operands[0]?.text;
  const reasons: string[] = [];
  if (verb === "install" || (verb === "env" && has(parsed, "w", "u"))) {
    reasons.push(
      `${program} ${verb} writes outside the workspace (the module cache, GOBIN or the go env file)`,
    );
  }
  if (has(parsed, "toolexec", "exec"))
    reasons.push(`${program} runs the program given by -toolexec or -exec`);
  return effects(valuesOf(parsed, "o", "C"), reasons);
};

const cargo: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (/^--target-dir(=|$)/.test(a.text))
      writes.push(a.text.includes("=") ? word(a.text.split("=")[1] ?? "") : (args[++i] ?? word(".")));
    if (a.text === "-C") writes.push(args[++i] ?? word("."));
    if (/^--config(=|$)/.test(a.text))
      reasons.push(`${program} --config can set programs cargo runs (runners, linkers)`);
    if (a.text === "install") reasons.push(`${program} install writes into ~/.cargo outside the workspace`);
  }
  return effects(writes, reasons);
};

export const BUILD_TOOL_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["make", make],
  ["gmake", make],
  ["cmake", cmake],
  ["npm", npm],
  ["npx", npm],
  ["pnpm", npm],
  ["yarn", npm],
  ...["gcc", "g++", "cc", "c++", "clang", "clang++", "tcc", "ld", "as"].map((n): [string, EffectsOf] => [
    n,
    compiler,
  ]),
  ["tsc", tsc],
  ["go", go],
  ["cargo", cargo],
]);
