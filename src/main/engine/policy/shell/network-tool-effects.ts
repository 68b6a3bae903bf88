import { has, parseOptions, valuesOf } from "./command-options.ts";
import { effects, unclear, withUnknown, word, type EffectsOf } from "./effect-kit.ts";
import type { ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Network clients write files too (`curl -o`, `wget -P`, `ssh -E`) and some run local commands
 * (`ssh -o ProxyCommand=…`, `socat EXEC:`, `nc -e`). Where they connect is the sandbox's and the
 * exfiltration guard's business; what they write and run locally is checked here.
 */

const curl: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    strict: false,
    flags: "O",
    values: "oDcKTdFHuxXAeEbrwzYyCmQ",
    long: {
      output: "value",
      "output-dir": "value",
      "remote-name": "flag",
      "remote-name-all": "flag",
      "dump-header": "value",
      "cookie-jar": "value",
      trace: "value",
      "trace-ascii": "value",
      libcurl: "value",
      stderr: "value",
      "etag-save": "value",
      hsts: "value",
      "alt-svc": "value",
      config: "value",
      "create-dirs": "flag",
      "upload-file": "value",
      data: "value",
      header: "value",
      user: "value",
      proxy: "value",
      request: "value",
      form: "value",
      "write-out": "value",
    },
    alias: {
      output: "o",
      "dump-header": "D",
      "cookie-jar": "c",
      config: "K",
      "remote-name": "O",
      "upload-file": "T",
    },
  });
  const writes: ShellWord[] = valuesOf(
    parsed,
    "o",
    "D",
    "c",
    "trace",
    "trace-ascii",
    "libcurl",
    "stderr",
    "etag-save",
    "hsts",
    "alt-svc",
  ).filter((w) => w.text !== "-" && w.text !== "%");
  const folders = valuesOf(parsed, "output-dir");
  if (has(parsed, "O", "remote-name-all")) writes.push(...(folders.length > 0 ? folders : [word(".")]));
  else writes.push(...folders);
  const reasons = has(parsed, "K")
    ? [`${program} -K reads more options (such as where to write) from a file`]
    : [];
  return withUnknown(parsed, effects(writes, reasons));
};

const wget: EffectsOf = (program, args) => {
  const parsed = parseOptions(program, args, {
    strict: false,
    flags: "xrpNmkKcqvdnb",
    values: "OoaPeiBtTwQUlAR",
    long: {
      "output-document": "value",
      "output-file": "value",
      "append-output": "value",
      "directory-prefix": "value",
      execute: "value",
      config: "value",
      "input-file": "value",
      "save-cookies": "value",
      "warc-file": "value",
      "use-askpass": "value",
      "post-file": "value",
      "body-file": "value",
      "default-page": "value",
      "force-directories": "flag",
      "rejected-log": "value",
      "hsts-file": "value",
    },
    alias: {
      "output-document": "O",
      "output-file": "o",
      "append-output": "a",
      "directory-prefix": "P",
      execute: "e",
      "input-file": "i",
    },
  });
  const writes = valuesOf(
    parsed,
    "O",
    "o",
    "a",
    "P",
    "save-cookies",
    "warc-file",
    "rejected-log",
    "hsts-file",
  ).filter((w) => w.text !== "-");
  if (!has(parsed, "O", "P")) writes.push(word("."));
  const reasons: string[] = [];
  if (has(parsed, "e")) reasons.push(`${program} -e runs wgetrc commands, which can change where it writes`);
  if (has(parsed, "config"))
    reasons.push(`${program} --config reads settings (such as where to write) from a file`);
  if (has(parsed, "use-askpass")) reasons.push(`${program} --use-askpass runs the program it names`);
  return withUnknown(parsed, effects(writes, reasons));
};

const SSH_VALUES = "BbcDEeFIiJLlmOoPpQRSWw";

/** ssh, scp, sftp: local commands hide in -o options and config files; -E and -S write files. */
function secureShell(kind: "ssh" | "scp" | "sftp"): EffectsOf {
  return (program, args) => {
    const parsed = parseOptions(program, args, {
      strict: false,
      posix: kind === "ssh",
      flags: "46AaCfGgKkMNnqsTtVvXxYy1235rp3",
      values: kind === "ssh" ? SSH_VALUES : "cFiJlloPSDbRX",
    });
    const reasons: string[] = [];
    if (has(parsed, "o"))
      reasons.push(`${program} -o can set commands it runs locally (ProxyCommand, LocalCommand …)`);
    if (has(parsed, "F"))
      reasons.push(`${program} -F reads a config file that can set commands it runs locally`);
    if (kind !== "ssh" && has(parsed, "S")) reasons.push(`${program} -S runs the program it names as ssh`);
    if (kind === "ssh" && has(parsed, "f"))
      reasons.push(`${program} -f keeps running in the background after the call`);
    if (kind === "sftp")
      reasons.push(`${program} runs commands (including local ! commands) from its input or batch file`);
    const writes: ShellWord[] = kind === "ssh" ? valuesOf(parsed, "E", "S") : [];
    if (kind === "scp") {
      const target = parsed.operands.at(-1);
      if (target !== undefined && !/^[^/]*:/.test(target.text)) writes.push(target);
    }
    return withUnknown(parsed, effects(writes, reasons));
  };
}

const netcat: EffectsOf = (program, args) => {
  const runs = args.find(
    (a) =>
      !a.literal || /^-[A-Za-z]*[ec]|^--(exec|sh-exec|lua-exec)|^-o|^--output|^--append-output/.test(a.text),
  );
  return runs === undefined
    ? effects()
    : unclear(`${program} ${shown(runs.text)} runs a command or writes a file of its choosing`);
};

/** openssl: `-out`, `-keyout` and friends name files it writes; engines load code. */
const openssl: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (
      /^-(out|keyout|writerand|sess_out|signature|certout|CAserial|rand_out)$/.test(a.text) &&
      args[i + 1] !== undefined
    ) {
      writes.push(args[++i] as ShellWord);
    }
    if (/^-(engine|provider-path|provider|config)$/.test(a.text))
      reasons.push(`${program} ${a.text} loads code or settings from elsewhere`);
  }
  return effects(writes, reasons);
};

const gpg: EffectsOf = (_program, args) => {
  const writes: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if ((a.text === "-o" || a.text === "--output") && args[i + 1] !== undefined)
      writes.push(args[++i] as ShellWord);
    else if (a.text.startsWith("--output=")) writes.push(word(a.text.slice(9)));
    else if (a.text === "--homedir" && args[i + 1] !== undefined) writes.push(args[++i] as ShellWord);
  }
  return effects(writes);
};

const sshKeygen: EffectsOf = (_program, args) => {
  const writes: ShellWord[] = [];
  for (let i = 0; i < args.length; i++)
    if (args[i]?.text === "-f" && args[i + 1] !== undefined) writes.push(args[++i] as ShellWord);
  return effects(writes);
};

/** rsync: the destination (last operand, when local) and --log-file are written; -e and --rsync-path run programs. */
const rsync: EffectsOf = (program, args) => {
  const writes: ShellWord[] = [];
  const reasons: string[] = [];
  const operands: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!a.literal) {
      operands.push(a);
      if (/^["']?[-$`*?[{]/.test(a.text))
        reasons.push(
          `${shown(a.text)} is only known when the shell runs and could be an option of ${program}`,
        );
      continue;
    }
    if (/^(-e|--rsh|--rsync-path)(=|$)/.test(a.text) || /^-[A-Za-z]*e$/.test(a.text)) {
      reasons.push(`${program} ${a.text} runs the program it is given`);
      if (!a.text.includes("=")) i++;
    } else if (
      /^--(log-file|write-batch|only-write-batch|backup-dir|temp-dir|partial-dir)(=|$)/.test(a.text)
    ) {
      const value = a.text.includes("=") ? word(a.text.slice(a.text.indexOf("=") + 1)) : args[++i];
      if (value !== undefined) writes.push(value);
    } else if (!a.text.startsWith("-")) operands.push(a);
  }
  const target = operands.at(-1);
  if (operands.length >= 2 && target !== undefined && !/^[^/]*:/.test(target.text)) writes.push(target);
  if (args.some((a) => a.text === "--remove-source-files")) writes.push(...operands.slice(0, -1));
  return effects(writes, reasons);
};

export const NETWORK_TOOL_EFFECTS: ReadonlyMap<string, EffectsOf> = new Map<string, EffectsOf>([
  ["curl", curl],
  ["wget", wget],
  ["ssh", secureShell("ssh")],
  ["scp", secureShell("scp")],
  ["sftp", secureShell("sftp")],
  [
    "socat",
    (p) =>
      unclear(
        `"${p}" opens the addresses it is given, which can create files (CREATE:, OPEN:) or run commands (EXEC:, SYSTEM:)`,
      ),
  ],
  ["nc", netcat],
  ["ncat", netcat],
  ["netcat", netcat],
  ["openssl", openssl],
  ["gpg", gpg],
  ["gpg2", gpg],
  ["ssh-keygen", sshKeygen],
  ["rsync", rsync],
]);
