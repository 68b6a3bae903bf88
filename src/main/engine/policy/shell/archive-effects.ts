import { has, parseOptions, valuesOf, type OptionTable } from "./command-options.ts";
import { effects, unclear, withUnknown, word, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Archivers and compressors: the archive they write, the folder they extract into (`tar -C`,
 * `unzip -d`), the files they replace or remove (`gzip f`, `tar --remove-files`), and the
 * options that make them run programs (`tar --to-command`, `--checkpoint-action`, `zip -TT`).
 */

/** tar's short options that take a value, also in the old style (`tar xzf a.tgz`). */
const TAR_VALUES = "bCfFgHIKLNTVX";

const TAR_TABLE: OptionTable = {
  flags: "AcdrtuxzjJZaOpPhikmSvwWBGMRlUso",
  values: TAR_VALUES,
  strict: false,
  long: {
    catenate: "flag",
    concatenate: "flag",
    create: "flag",
    diff: "flag",
    compare: "flag",
    delete: "flag",
    append: "flag",
    list: "flag",
    update: "flag",
    extract: "flag",
    get: "flag",
    directory: "value",
    file: "value",
    "files-from": "value",
    "exclude-from": "value",
    "info-script": "value",
    "new-volume-script": "value",
    "listed-incremental": "value",
    "use-compress-program": "value",
    "to-command": "value",
    "checkpoint-action": "value",
    "rsh-command": "value",
    "rmt-command": "value",
    "index-file": "value",
    "volno-file": "value",
    "absolute-names": "flag",
    "remove-files": "flag",
    "to-stdout": "flag",
    format: "value",
    label: "value",
    "starting-file": "value",
    newer: "value",
    "after-date": "value",
    "tape-length": "value",
    "blocking-factor": "value",
    exclude: "value",
    transform: "value",
    xform: "value",
    owner: "value",
    group: "value",
    mode: "value",
    mtime: "value",
    "strip-components": "value",
    "record-size": "value",
    "newer-mtime": "value",
    suffix: "value",
    backup: "optional",
    checkpoint: "optional",
  },
  alias: {
    create: "c",
    append: "r",
    update: "u",
    catenate: "A",
    concatenate: "A",
    extract: "x",
    get: "x",
    list: "t",
    diff: "d",
    compare: "d",
    directory: "C",
    file: "f",
    "listed-incremental": "g",
    "use-compress-program": "I",
    "info-script": "F",
    "new-volume-script": "F",
    "absolute-names": "P",
    "to-stdout": "O",
  },
};

/** `tar xzf a.tgz -C d` → `tar -x -z -f a.tgz -C d`: the old style, where values follow in order. */
function tarArgs(args: readonly ShellWord[]): ShellWord[] {
  const first = args[0];
  if (
    first === undefined ||
    !first.literal ||
    first.text.startsWith("-") ||
    !/^[A-Za-z]+$/.test(first.text)
  ) {
    return [...args];
  }
  const rest = args.slice(1);
  const out: ShellWord[] = [];
  for (const letter of first.text) {
    out.push(word(`-${letter}`));
    if (TAR_VALUES.includes(letter)) {
      const value = rest.shift();
      if (value !== undefined) out.push(value);
    }
  }
  return [...out, ...rest];
}

const TAR_RUNS: Readonly<Record<string, string>> = {
  "to-command": "pipes every member to a shell command (--to-command)",
  "checkpoint-action": "runs an action at checkpoints (--checkpoint-action can run commands)",
  I: "runs a compression program of its choosing (-I / --use-compress-program)",
  F: "runs a script at the end of each volume (-F / --info-script)",
  "rsh-command": "runs a remote shell program (--rsh-command)",
  "rmt-command": "runs a remote tape program (--rmt-command)",
};

/** What tar does besides listing (`t`): create, append, update, concatenate, extract, compare, delete. */
const TAR_OTHER_MODES = ["c", "r", "u", "A", "x", "d", "delete"];

/** Whether tar with these arguments only lists an archive (`t`, `--list`, in any spelling or place). */
export function tarOnlyLists(args: readonly ShellWord[]): boolean {
  const parsed = parseOptions("tar", tarArgs(args), TAR_TABLE);
  return has(parsed, "t") && !has(parsed, ...TAR_OTHER_MODES);
}

const tar: EffectsOf = (program, args) => {
  // tar reads a first word without `-` as its options (`tar xf a.tar`): one the shell makes up
  // (`tar t*`, beside files named `tI` and `timeout 9 sh -c '…'`) may be any of them.
  const first = args[0];
  if (first !== undefined && !first.literal)
    return unclear(
      `the first word of "${program}", ${shown(first.text)}, is only known when the shell runs, and tar reads a first word as its options (write the options first: tar -tf …)`,
    );
  // Listing names members: a glob among them is read against the disk when the call is decided
  // (a name starting with - or holding a : is refused there; option-like-file-names.ts).
  const parsed = parseOptions(program, tarArgs(args), {
    ...TAR_TABLE,
    globsReadOnDisk: tarOnlyLists(args),
  });
  const reasons: string[] = [];
  for (const [key, reason] of Object.entries(TAR_RUNS))
    if (has(parsed, key)) reasons.push(`"${program}" ${reason}`);
  const writes: ShellWord[] = [...valuesOf(parsed, "g", "index-file", "volno-file")];
  const archives = valuesOf(parsed, "f");
  const extracting = has(parsed, "x");
  if (has(parsed, "c", "r", "u", "A", "delete")) writes.push(...archives);
  if (extracting && !has(parsed, "O")) {
    const folders = valuesOf(parsed, "C");
    writes.push(...(folders.length > 0 ? folders : [word(".")]));
    if (has(parsed, "P"))
      reasons.push(`"${program} -P" extracts members with absolute names wherever they point`);
  }
  if (has(parsed, "remove-files")) writes.push(...parsed.operands);
  return withUnknown(
    parsed,
    effects(
      writes.filter((w) => w.text !== "-"),
      reasons,
    ),
  );
};

/**
 * zip's options are irregular (two-letter short options, values after some of them), so every
 * word that is not an option counts as a file it may write: the archive is one of them, and
 * `-m` removes the others.
 */
const zip: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  for (const a of args) {
    if (!a.literal) {
      reasons.push(
        `${shown(a.text)} is only known when the shell runs and could be an option or the archive of "${program}"`,
      );
      continue;
    }
    const eq = a.text.startsWith("--") ? a.text.indexOf("=") : -1;
    const name = eq < 0 ? a.text : a.text.slice(0, eq);
    if (name === "-TT" || /^-TT./.test(a.text) || ("--unzip-command".startsWith(name) && name.length > 4)) {
      reasons.push(`"${program}" runs the command given by -TT to test the archive`);
    }
    if (eq >= 0) writes.push(word(a.text.slice(eq + 1)));
    else if (!a.text.startsWith("-") || a.text === "-") {
      if (a.text !== "-") writes.push(a);
    }
  }
  const archive = writes[0];
  if (archive !== undefined && !/\.[^/]*$/.test(archive.text))
    writes.push({ ...archive, text: `${archive.text}.zip` });
  return effects(writes, reasons);
};

const unzip: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  let extracting = true;
  let folder: ShellWord | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal || !a.text.startsWith("-")) continue;
    if (a.text === "-d") folder = args[++i];
    else if (/^-d./.test(a.text)) folder = word(a.text.slice(2));
    else if (a.text === "-P" || a.text === "-x") i += a.text === "-P" ? 1 : 0;
    else if (/^-[A-Za-z]*[lptvzZc]/.test(a.text) && !a.text.startsWith("--")) extracting = false;
  }
  if (args.some((a) => !a.literal)) {
    return unclear(
      `the arguments of "${program}" include a word only known when the shell runs, which could choose where it extracts`,
    );
  }
  if (extracting) writes.push(folder ?? word("."));
  return effects(writes);
};

const COMPRESS_TABLE: OptionTable = {
  flags: "cdfhklLnNqrtvV123456789zTFD",
  values: "SobM",
  strict: false,
  long: {
    stdout: "flag",
    "to-stdout": "flag",
    decompress: "flag",
    uncompress: "flag",
    list: "flag",
    test: "flag",
    keep: "flag",
    suffix: "value",
    output: "value",
    "output-dir-flat": "value",
    "output-dir-mirror": "value",
  },
  alias: { stdout: "c", "to-stdout": "c", list: "l", test: "t", suffix: "S", output: "o" },
};

/** gzip and friends replace each file with its (de)compressed form beside it, unless -c, -l or -t. */
function compressor(noInPlace = false): EffectsOf {
  return (program, args) => {
    const parsed = parseOptions(program, args, COMPRESS_TABLE);
    const writes: ShellWord[] = [...valuesOf(parsed, "o", "output-dir-flat", "output-dir-mirror")];
    if (!noInPlace && !has(parsed, "c", "l", "t"))
      writes.push(...parsed.operands.filter((o) => o.text !== "-"));
    return withUnknown(parsed, effects(writes));
  };
}

/** ar KEY ARCHIVE [members]: r, q, d, m and s change the archive, x extracts into the working folder. */
const ar: EffectsOf = (program, args) => {
  const operands = args.filter((a) => !(a.literal && /^--/.test(a.text)));
  const key = operands[0];
  const archive = operands[1];
  if (key === undefined || !key.literal)
    return unclear(`the operation of "${program}" is only known when the shell runs`);
  const writes: ShellWord[] = [];
  if (/[rqdms]/.test(key.text) && archive !== undefined) writes.push(archive);
  if (/x/.test(key.text)) writes.push(word("."));
  return effects(writes);
};

/** 7z: `-oDIR` is where it extracts; `a`, `u`, `d`, `rn` change the archive (the first operand after the command). */
const sevenZip: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const operands = args.filter((a) => !(a.literal && a.text.startsWith("-")));
  const verb = operands[0]?.text ?? "";
  for (const a of args) if (a.literal && /^-o./.test(a.text)) writes.push(word(a.text.slice(2)));
  if (/^(a|u|d|rn)$/.test(verb) && operands[1] !== undefined) writes.push(operands[1]);
  if (/^(x|e)$/.test(verb) && !args.some((a) => /^-o./.test(a.text))) writes.push(word("."));
  if (args.some((a) => !a.literal))
    return unclear(`the arguments of "${program}" include a word only known when the shell runs`);
  return effects(writes);
};

const COMPRESSORS = [
  "gzip",
  "gunzip",
  "bzip2",
  "bunzip2",
  "xz",
  "unxz",
  "lzma",
  "unlzma",
  "zstd",
  "unzstd",
  "lz4",
  "unlz4",
  "compress",
  "uncompress",
  "pigz",
  "unpigz",
  "lzip",
  "brotli",
];

export const ARCHIVE_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["tar", tar],
  ["zip", zip],
  ["unzip", unzip],
  ["ar", ar],
  ["7z", sevenZip],
  ["7za", sevenZip],
  ["7zz", sevenZip],
  ...COMPRESSORS.map((name): [string, EffectsOf] => [name, compressor()]),
]);
