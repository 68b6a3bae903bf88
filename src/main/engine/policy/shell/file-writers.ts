import { isLongOption } from "./long-option-prefix.ts";
import { has, parseOptions, valuesOf, type OptionTable, type ParsedArgs } from "./command-options.ts";
import { effects, joinPath, unclear, withUnknown, word, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Ordinary commands that write files — coreutils and friends — with every option that names a
 * file or folder they write (`sort -o`, `cp -t`, `uniq IN OUT`, `split … PREFIX`), read the way
 * getopt reads them, so no spelling hides a write from the capability check.
 */

interface WriterSpec {
  table: OptionTable;
  /** Option keys whose value is a file or folder written. */
  writeOptions?: readonly string[];
  /** Option keys that make the command run code or write where Lathe cannot see, with why. */
  unclearOptions?: Readonly<Record<string, string>>;
  /** The operands written. */
  operands: (operands: ShellWord[], parsed: ParsedArgs) => ShellWord[];
}

const HELP: Readonly<Record<string, "flag">> = { help: "flag", version: "flag" };

const all = (operands: ShellWord[]): ShellWord[] => operands;
const none = (): ShellWord[] => [];

/**
 * A glob in the last path component of a command that does not follow symlinks (rm, rmdir,
 * unlink): it can only remove entries of its literal folder, so that folder is what it writes.
 */
function globFolder(target: ShellWord): ShellWord {
  if (target.literal || /[$`'"\\{~]/.test(target.text)) return target;
  const slash = target.text.lastIndexOf("/");
  const folder = slash < 0 ? "." : target.text.slice(0, slash) || "/";
  const last = target.text.slice(slash + 1);
  if (/[*?[]/.test(folder)) return target;
  // `.*` can match `..` in older bash versions.
  if (last.startsWith(".")) return word(folder === "." ? ".." : `${folder}/..`);
  return word(folder);
}

function writer(spec: WriterSpec): EffectsOf {
  return (program, args) => {
    const parsed = parseOptions(program, args, spec.table);
    const writes = [
      ...spec.operands(parsed.operands, parsed),
      ...valuesOf(parsed, ...(spec.writeOptions ?? [])),
    ];
    const reasons: string[] = [];
    for (const [key, reason] of Object.entries(spec.unclearOptions ?? {})) {
      if (has(parsed, key)) reasons.push(`"${program}" ${reason}`);
    }
    return withUnknown(parsed, effects(writes, reasons));
  };
}

/** With `-t DIR` the operands go into DIR; otherwise the last operand is the destination. */
function destination(operands: ShellWord[], parsed: ParsedArgs): ShellWord[] {
  return has(parsed, "t") ? [] : operands.slice(-1);
}

const CP_LONG = {
  archive: "flag",
  "attributes-only": "flag",
  backup: "optional",
  "copy-contents": "flag",
  debug: "flag",
  dereference: "flag",
  force: "flag",
  interactive: "flag",
  link: "flag",
  "no-clobber": "flag",
  "no-dereference": "flag",
  "no-target-directory": "flag",
  "one-file-system": "flag",
  parents: "flag",
  preserve: "optional",
  "no-preserve": "value",
  recursive: "flag",
  reflink: "optional",
  "remove-destination": "flag",
  sparse: "value",
  "strip-trailing-slashes": "flag",
  suffix: "value",
  "symbolic-link": "flag",
  "target-directory": "value",
  update: "optional",
  verbose: "flag",
  "keep-directory-symlink": "flag",
  context: "optional",
  ...HELP,
} as const;

const CP_ALIAS = {
  archive: "a",
  dereference: "L",
  force: "f",
  interactive: "i",
  link: "l",
  "no-clobber": "n",
  "no-dereference": "P",
  "no-target-directory": "T",
  "one-file-system": "x",
  recursive: "r",
  "symbolic-link": "s",
  "target-directory": "t",
  suffix: "S",
  verbose: "v",
};

const cp: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    flags: "abdfHilLnPpRrsTuvxZ",
    values: "St",
    long: CP_LONG,
    alias: CP_ALIAS,
  });
  const writes = [...destination(parsed.operands, parsed), ...valuesOf(parsed, "t")];
  const target = valuesOf(parsed, "t")[0] ?? parsed.operands.at(-1);
  const sources = has(parsed, "t") ? parsed.operands : parsed.operands.slice(0, -1);
  // Links instead of copies: a link pointing out of the workspace is a way out for later writes.
  if (has(parsed, "s") && target !== undefined) {
    for (const source of sources) writes.push(joinPath(target, source.text), source);
  } else if (has(parsed, "l")) writes.push(...sources);
  return withUnknown(parsed, effects(writes));
};

const mv = writer({
  table: {
    flags: "bfinTuvZ",
    values: "St",
    long: {
      backup: "optional",
      force: "flag",
      interactive: "flag",
      "no-clobber": "flag",
      "no-copy": "flag",
      "strip-trailing-slashes": "flag",
      suffix: "value",
      "target-directory": "value",
      "no-target-directory": "flag",
      update: "optional",
      verbose: "flag",
      context: "flag",
      exchange: "flag",
      debug: "flag",
      ...HELP,
    },
    alias: { "target-directory": "t", suffix: "S", force: "f" },
  },
  writeOptions: ["t"],
  // mv changes its sources too.
  operands: all,
});

const install = writer({
  table: {
    flags: "bcCdDpsTvZ",
    values: "gmoSt",
    long: {
      backup: "optional",
      compare: "flag",
      directory: "flag",
      group: "value",
      mode: "value",
      owner: "value",
      "preserve-timestamps": "flag",
      strip: "flag",
      "strip-program": "value",
      suffix: "value",
      "target-directory": "value",
      "no-target-directory": "flag",
      verbose: "flag",
      "preserve-context": "flag",
      context: "optional",
      debug: "flag",
      ...HELP,
    },
    alias: { directory: "d", "target-directory": "t", "strip-program": "strip-program" },
  },
  writeOptions: ["t"],
  unclearOptions: { "strip-program": "runs the program named by --strip-program" },
  operands: (operands, parsed) => (has(parsed, "d") ? operands : destination(operands, parsed)),
});

const RM = writer({
  table: {
    flags: "dfirRvI",
    long: {
      force: "flag",
      interactive: "optional",
      "one-file-system": "flag",
      "no-preserve-root": "flag",
      "preserve-root": "optional",
      recursive: "flag",
      dir: "flag",
      verbose: "flag",
      ...HELP,
    },
  },
  operands: (operands) => operands.map(globFolder),
});

const simple = (table: OptionTable, operands: WriterSpec["operands"] = all): EffectsOf =>
  writer({ table, operands });

/** chmod reads a mode such as `-x` or `-rw` where getopt would see an option. */
const chmod: EffectsOf = (program, args) => {
  const mode = /^-[rwxXstugoa=+,0-7-]+$/;
  const filtered = args.filter((a) => !(a.literal && mode.test(a.text)));
  const parsed = parseOptions(program, filtered, {
    flags: "cfvR",
    long: {
      changes: "flag",
      silent: "flag",
      quiet: "flag",
      verbose: "flag",
      "no-preserve-root": "flag",
      "preserve-root": "flag",
      reference: "value",
      recursive: "flag",
      dereference: "flag",
      "no-dereference": "flag",
      ...HELP,
    },
  });
  const hadMode = filtered.length !== args.length || has(parsed, "reference");
  return withUnknown(parsed, effects(hadMode ? parsed.operands : parsed.operands.slice(1)));
};

const OWNER_TABLE: OptionTable = {
  flags: "cfhvRHLP",
  long: {
    changes: "flag",
    silent: "flag",
    quiet: "flag",
    verbose: "flag",
    dereference: "flag",
    "no-dereference": "flag",
    from: "value",
    "no-preserve-root": "flag",
    "preserve-root": "flag",
    reference: "value",
    recursive: "flag",
    ...HELP,
  },
};

/** chown OWNER FILE…, chgrp GROUP FILE… (no owner operand with --reference). */
const owner = writer({
  table: OWNER_TABLE,
  operands: (operands, parsed) => (has(parsed, "reference") ? operands : operands.slice(1)),
});

const sort = writer({
  table: {
    flags: "bdfgiMhnRrVcCmsuz",
    values: "kotST",
    long: {
      "ignore-leading-blanks": "flag",
      "dictionary-order": "flag",
      "ignore-case": "flag",
      "general-numeric-sort": "flag",
      "ignore-nonprinting": "flag",
      "month-sort": "flag",
      "human-numeric-sort": "flag",
      "numeric-sort": "flag",
      "random-sort": "flag",
      "random-source": "value",
      reverse: "flag",
      sort: "value",
      "version-sort": "flag",
      "batch-size": "value",
      check: "optional",
      "compress-program": "value",
      debug: "flag",
      "files0-from": "value",
      key: "value",
      merge: "flag",
      output: "value",
      stable: "flag",
      "buffer-size": "value",
      "field-separator": "value",
      "temporary-directory": "value",
      parallel: "value",
      unique: "flag",
      "zero-terminated": "flag",
      ...HELP,
    },
    alias: { output: "o", "temporary-directory": "T", "compress-program": "compress-program" },
    globsReadOnDisk: true,
  },
  writeOptions: ["o", "T"],
  unclearOptions: { "compress-program": "runs the program named by --compress-program" },
  operands: none,
});

const shuf = writer({
  table: {
    flags: "erz",
    values: "inoS",
    long: {
      echo: "flag",
      "input-range": "value",
      "head-count": "value",
      output: "value",
      "random-source": "value",
      repeat: "flag",
      "zero-terminated": "flag",
      ...HELP,
    },
    alias: { output: "o" },
  },
  writeOptions: ["o"],
  operands: none,
});

/** uniq [IN [OUT]]: the second operand is written. */
const uniq = simple(
  {
    flags: "cdDiuz",
    values: "fsw",
    long: {
      count: "flag",
      repeated: "flag",
      "all-repeated": "optional",
      "skip-fields": "value",
      group: "optional",
      "ignore-case": "flag",
      "skip-chars": "value",
      unique: "flag",
      "zero-terminated": "flag",
      "check-chars": "value",
      ...HELP,
    },
    numeric: true,
  },
  (operands) => operands.slice(1, 2),
);

/** split [FILE [PREFIX]]: writes PREFIXaa, PREFIXab … (x… by default). */
const split = writer({
  table: {
    flags: "dxeu",
    values: "abClnt",
    long: {
      "suffix-length": "value",
      "additional-suffix": "value",
      bytes: "value",
      "line-bytes": "value",
      "numeric-suffixes": "optional",
      "hex-suffixes": "optional",
      "elide-empty-files": "flag",
      filter: "value",
      lines: "value",
      number: "value",
      separator: "value",
      unbuffered: "flag",
      verbose: "flag",
      ...HELP,
    },
    numeric: true,
    alias: { filter: "filter" },
  },
  unclearOptions: { filter: "runs the shell command given by --filter" },
  operands: (operands) => [{ ...(operands[1] ?? word("x")), text: `${operands[1]?.text ?? "x"}aa` }],
});

const csplit: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    flags: "ksqz",
    values: "bfn",
    long: {
      "suffix-format": "value",
      prefix: "value",
      "keep-files": "flag",
      "suppress-matched": "flag",
      digits: "value",
      quiet: "flag",
      silent: "flag",
      "elide-empty-files": "flag",
      ...HELP,
    },
    alias: { prefix: "f" },
  });
  const prefix = valuesOf(parsed, "f")[0] ?? word("xx");
  return withUnknown(parsed, effects([{ ...prefix, text: `${prefix.text}00` }]));
};

/** xxd [options] [IN [OUT]]: the second operand is written, in every mode. */
const xxd = simple({ flags: "abCEeiprudh", values: "cglosnR", long: { version: "flag" } }, (operands) =>
  operands.slice(1, 2),
);

const dd: EffectsOf = (_program, args) =>
  effects(
    args.filter((a) => a.text.startsWith("of=")).map((a) => ({ text: a.text.slice(3), literal: a.literal })),
  );

const tee = simple({
  flags: "aip",
  long: { append: "flag", "ignore-interrupts": "flag", "output-error": "optional", ...HELP },
});

const touch = simple({
  flags: "acfhm",
  values: "drt",
  long: {
    "no-create": "flag",
    date: "value",
    "no-dereference": "flag",
    reference: "value",
    time: "value",
    ...HELP,
  },
});

const mkdir = simple({
  flags: "pv",
  values: "m",
  optional: "Z",
  long: { mode: "value", parents: "flag", verbose: "flag", context: "optional", ...HELP },
});

const truncate = simple({
  flags: "co",
  values: "rs",
  long: { "no-create": "flag", "io-blocks": "flag", reference: "value", size: "value", ...HELP },
});

const shred = simple({
  flags: "fuvxz",
  values: "ns",
  optional: "",
  long: {
    force: "flag",
    iterations: "value",
    "random-source": "value",
    size: "value",
    remove: "optional",
    verbose: "flag",
    exact: "flag",
    zero: "flag",
    ...HELP,
  },
});

const mktemp = writer({
  table: {
    flags: "dqut",
    values: "p",
    long: {
      directory: "flag",
      "dry-run": "flag",
      quiet: "flag",
      suffix: "value",
      tmpdir: "optional",
      ...HELP,
    },
    alias: { tmpdir: "p" },
  },
  writeOptions: ["p"],
  // A template with a folder in it creates the file there.
  operands: (operands) => operands.filter((o) => o.text.includes("/")),
});

const iconv = writer({
  table: {
    flags: "cls",
    values: "fto",
    long: {
      "from-code": "value",
      "to-code": "value",
      output: "value",
      list: "flag",
      silent: "flag",
      ...HELP,
    },
    alias: { output: "o" },
    strict: false,
  },
  writeOptions: ["o"],
  operands: none,
});

/** GNU time, strace, ltrace, valgrind: their log goes to the file an option names. */
const logTo = (values: string, long: Record<string, "value">, alias: Record<string, string>): EffectsOf =>
  writer({ table: { values, long, alias, strict: false, posix: true }, writeOptions: ["o"], operands: none });

/** script [options] [FILE]: the typescript goes to FILE (./typescript by default). */
const script = writer({
  table: {
    flags: "aefqhV",
    values: "IOBTmEoc",
    optional: "t",
    long: {
      "log-in": "value",
      "log-out": "value",
      "log-io": "value",
      "log-timing": "value",
      "logging-format": "value",
      append: "flag",
      command: "value",
      return: "flag",
      flush: "flag",
      force: "flag",
      echo: "value",
      "output-limit": "value",
      quiet: "flag",
      timing: "optional",
      ...HELP,
    },
    alias: { "log-in": "I", "log-out": "O", "log-io": "B", "log-timing": "T", timing: "t" },
  },
  writeOptions: ["I", "O", "B", "T", "t"],
  operands: (operands) => (operands.length > 0 ? operands.slice(0, 1) : [word("typescript")]),
});

/** flock FILE … creates FILE to hold the lock. */
const flock: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, { flags: "sxunoFhV", values: "wE", posix: true, strict: false });
  const lock = parsed.operands[0];
  return lock === undefined || /^\d+$/.test(lock.text) ? effects() : effects([lock]);
};

/**
 * less writes a log of its input with -o/-O/--log-file; `+cmd` runs less commands (`!` runs a
 * shell); a lesskey file (-k, --lesskey-file, --lesskey-src, --lesskey-content) may set LESSOPEN
 * in its #env section, a program less runs on every file. less takes a long option by any
 * prefix that names one option (`--log-f=x`, `--lesskey-s=k`). With -t it opens the file a tags
 * file names (on Lathe's terminal, `less -F -t foo` shows it).
 */
const less: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) continue;
    const long = a.text.startsWith("--");
    const log = long
      ? isLongOption(a.text, "log-file") || isLongOption(a.text, "LOG-FILE")
        ? /^[^=]*(?:=(.*))?$/.exec(a.text)
        : null
      : /^-[A-Za-z]*?[oO](.*)$/.exec(a.text);
    if (log !== null && a.text.startsWith("-")) {
      const value = log[1] !== undefined && log[1] !== "" ? word(log[1]) : args[i + 1];
      if (value !== undefined) writes.push(value);
    }
    if (
      (long && isLongOption(a.text, "lesskey-file", "lesskey-src", "lesskey-content")) ||
      (!long && /^-[A-Za-z]*?k/.test(a.text))
    )
      reasons.push(
        `"${program} ${a.text}" reads key bindings from a lesskey file, whose #env section can set LESSOPEN, a program less runs on every file`,
      );
    // `less -t tag` opens the file a tags file (./tags, or -T's) names for the tag: any file.
    if ((long && isLongOption(a.text, "tag")) || (!long && /^-[A-Za-z]*?t/.test(a.text)))
      reasons.push(
        `"${program} ${a.text}" opens the file a tags file names for the tag, which Lathe does not check against the hidden paths; name the file to less instead`,
      );
    if (a.text.startsWith("+"))
      reasons.push(`"${program}" runs the commands ${shown(a.text)} when it starts`);
  }
  return effects(writes, reasons);
};

export const FILE_WRITERS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["rm", RM],
  [
    "rmdir",
    simple(
      {
        flags: "pv",
        long: { "ignore-fail-on-non-empty": "flag", parents: "flag", verbose: "flag", ...HELP },
      },
      (o) => o.map(globFolder),
    ),
  ],
  ["unlink", simple({ long: HELP }, (o) => o.map(globFolder))],
  ["touch", touch],
  ["mkdir", mkdir],
  ["mkfifo", simple({ values: "m", optional: "Z", long: { mode: "value", context: "optional", ...HELP } })],
  [
    "mknod",
    simple({ values: "m", optional: "Z", long: { mode: "value", context: "optional", ...HELP } }, (o) =>
      o.slice(0, 1),
    ),
  ],
  ["chmod", chmod],
  ["chown", owner],
  ["chgrp", owner],
  [
    "chattr",
    (_p, args) => effects(args.filter((a) => !/^[-+=][A-Za-z]+$/.test(a.text) && !/^-[RVfpv]/.test(a.text))),
  ],
  ["setfacl", (p) => unclear(`"${p}" changes access rules in ways Lathe does not follow`)],
  ["truncate", truncate],
  ["shred", shred],
  ["tee", tee],
  ["cp", cp],
  ["mv", mv],
  ["install", install],
  ["dd", dd],
  ["sort", sort],
  ["shuf", shuf],
  ["uniq", uniq],
  ["split", split],
  ["csplit", csplit],
  ["xxd", xxd],
  ["mktemp", mktemp],
  ["iconv", iconv],
  ["sponge", simple({ flags: "a" })],
  ["time", logTo("fo", { output: "value", format: "value" }, { output: "o" })],
  ["strace", logTo("abeEIoOpPsSuUX", { output: "value" }, { output: "o" })],
  ["ltrace", logTo("aAeEfFnopsSuUw", { output: "value" }, { output: "o" })],
  ["script", script],
  ["flock", flock],
  ["less", less],
  ["patch", (p) => unclear(`"${p}" changes the files its diff names, which Lathe cannot see before it runs`)],
  [
    "fallocate",
    simple({
      flags: "cdinpvxz",
      values: "lo",
      long: { length: "value", offset: "value", ...HELP },
      strict: false,
    }),
  ],
  ["dos2unix", simple({ strict: false, flags: "" })],
  ["unix2dos", simple({ strict: false, flags: "" })],
  [
    "setfattr",
    simple({
      flags: "h",
      values: "nvx",
      long: { name: "value", value: "value", remove: "value", restore: "value", ...HELP },
      strict: false,
    }),
  ],
  ["chcon", owner],
  [
    "uudecode",
    (p, args) => {
      const output = args.findIndex((a) => a.text === "-o" || a.text === "--output-file");
      const file = output >= 0 ? args[output + 1] : undefined;
      return file !== undefined ? effects([file]) : unclear(`"${p}" writes the file named inside its input`);
    },
  ],
  [
    "cpio",
    (p) => unclear(`"${p}" creates or extracts files named by its input or archive, possibly anywhere`),
  ],
  [
    "pax",
    (p) => unclear(`"${p}" creates or extracts files named by its input or archive, possibly anywhere`),
  ],
  [
    "rename",
    (p) => unclear(`"${p}" renames files with a Perl expression (code) or a pattern Lathe does not follow`),
  ],
  ["prename", (p) => unclear(`"${p}" renames files with a Perl expression, which is code`)],
]);
