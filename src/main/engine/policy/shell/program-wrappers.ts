import type { ArgvItem, ShellWord } from "./shell-types.ts";
import { shown } from "./shown-text.ts";
import { isPlainGlob } from "./seen-path.ts";
import {
  HELP,
  assignmentOutcomes,
  literal,
  opaque,
  optionsThenCommand,
  runs,
  type Handler,
  type WrapperOutcome,
} from "./wrapper-outcome.ts";
import { scanOptions, type OptionSpec } from "./wrapper-options.ts";

/**
 * Programs that run another command: what they run, in which folder, and the forms Lathe
 * cannot follow (acting on other processes, new sessions that outlive the call, new namespaces).
 * Recognised by their file name wherever they live (`/usr/bin/env` is `env`).
 */

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

const ENV_SPEC: OptionSpec = {
  short: "0iv",
  shortArg: "uCSa",
  long: { null: "0", "ignore-environment": "i", debug: "v", "list-signal-handling": "help", ...HELP },
  longArg: { unset: "u", chdir: "C", "split-string": "S", argv0: "a" },
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
  // Without PATH, bash (and a script it runs, and sh where sh is bash) looks names up in its
  // default PATH, which ends with `.`: `env -i bash -c 'deno --version'` runs ./deno when no deno
  // is in the system's folders. `env -u PATH`, `env -i`, `env -` start the command without it.
  const options = args.slice(0, scan.operand).map((item) => literal(item));
  const clearsPath =
    scan.seen.has("i") ||
    literal(args[scan.operand]) === "-" ||
    options.some((text, at) => text === "-uPATH" || text === "--unset=PATH" || (text === "PATH" && at > 0));
  if (clearsPath && i < args.length)
    outcomes.push(
      opaque(
        `"env" starts ${shown(args[i]?.word.text ?? "")} without PATH, and bash then looks command names up in the folder it runs in too (its default PATH ends with "."), where the workspace's programs are; keep PATH (env -u another variable, or none)`,
      ),
    );
  if (i < args.length) {
    const dir = scan.words.get("C");
    outcomes.push({
      kind: "runs",
      argv: args.slice(i),
      via: "env",
      ...(dir ? { chdir: { word: dir } } : {}),
    });
  }
  return outcomes;
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
    if (scan.seen.has("R")) return [opaque(`"${tool} --chroot" runs the command with another root folder`)];
    if (scan.operand >= args.length) return [];
    const dir = scan.words.get("D");
    return [
      { kind: "runs", argv: args.slice(scan.operand), via: tool, ...(dir ? { chdir: { word: dir } } : {}) },
    ];
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
  // The starting points end at the first word that starts the expression (`--` included: a
  // name starting with `-` after it is still an expression).
  // With -L, -H or -follow a matched link is followed (a link to the home folder lists ~/.ssh).
  let startingPoints = !args.some((a, j) => j < i && /^-[HL]$/.test(a.word.text) && a.word.literal);
  if (args.some((a) => a.word.literal && a.word.text === "-follow")) startingPoints = false;
  while (i < args.length) {
    const item = args[i] as ArgvItem;
    if (item.word.literal && /^[-(!),]/.test(item.word.text)) startingPoints = false;
    // A glob among the starting points is read against the disk when the call is decided: a
    // matched name that would start the expression (`-delete`, `!`, `(`) needs a person
    // (option-like-file-names.ts).
    if (startingPoints && isPlainGlob(item.word)) {
      i++;
      continue;
    }
    if (!item.word.literal) {
      outcomes.push(
        opaque(
          `"find" is given ${shown(item.word.text)}, which is only known when the shell runs and could add an action such as -exec or -delete`,
        ),
      );
      i++;
      continue;
    }
    if (item.word.text === "-files0-from") {
      outcomes.push(opaque(`"find -files0-from" reads the folders to search from a file Lathe cannot see`));
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
    if (filled.length === 0) continue;
    // The source text of a `{}` word is what the user wrote (`{}`, `'{}'`, `"{}"`).
    const inFoundFolder = action === "-execdir" || action === "-okdir";
    outcomes.push({
      kind: "runs",
      argv: filled,
      via: `find ${action}`,
      ...(inFoundFolder
        ? { chdir: { unknown: `"find ${action}" runs the command in the folder of each file it finds` } }
        : {}),
    });
  }
  return outcomes;
};

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

/** A wrapper whose given options make it act on processes that already run instead of a command. */
function actsOnProcesses(spec: OptionSpec, processOptions: string, before: number, what: string): Handler {
  return (tool, args) => {
    const scan = scanOptions(tool, args, spec);
    if (!scan.ok) return [opaque(scan.reason)];
    if (scan.seen.has("help") || scan.seen.has("version")) return [];
    if ([...processOptions].some((o) => scan.seen.has(o))) {
      return [opaque(`"${tool}" ${what} of processes this command did not start`)];
    }
    return runs(args, scan.operand + before, tool);
  };
}

/** `flock FILE cmd…`, `flock FILE -c 'code'`; with only a descriptor number it runs nothing. */
const flock: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, {
    short: "sxunoFhV",
    shortArg: "wE",
    long: {
      shared: "s",
      exclusive: "x",
      unlock: "u",
      nonblock: "n",
      close: "o",
      "no-fork": "F",
      verbose: "verbose",
      ...HELP,
    },
    longArg: { timeout: "w", "conflict-exit-code": "E" },
  });
  if (!scan.ok) return [opaque(scan.reason)];
  const next = args[scan.operand + 1];
  if (next === undefined) return [];
  const text = literal(next);
  if (text === "-c" || text === "--command") {
    const code = args[scan.operand + 2];
    if (code === undefined) return [];
    if (!code.word.literal) {
      return [
        opaque(
          `"${tool} -c" runs the string ${shown(code.word.text)}, which is only known when the shell runs`,
        ),
      ];
    }
    return [
      { kind: "code", code: code.word.text, pos: code.pos, via: "flock -c" },
      opaque(`"${tool} -c" runs the string through the shell named by $SHELL, which may not be bash`),
    ];
  }
  return runs(args, scan.operand + 1, tool);
};

const STRACE_SPEC: OptionSpec = {
  short: "ACcdDfFhikqrtTvVwxyzZn",
  shortArg: "abeEIoOpPsSuUX",
  long: {
    "follow-forks": "f",
    "output-separately": "output-separately",
    "summary-only": "c",
    summary: "C",
    "summary-wall-clock": "w",
    "successful-only": "z",
    "failed-only": "Z",
    "instruction-pointer": "i",
    "stack-trace": "k",
    "no-abbrev": "v",
    "seccomp-bpf": "seccomp-bpf",
    debug: "d",
    ...HELP,
  },
  longArg: {
    attach: "p",
    env: "E",
    user: "u",
    output: "o",
    columns: "a",
    "trace-path": "P",
    "summary-sort-by": "S",
    "summary-columns": "U",
    "const-print-style": "X",
    interruptible: "I",
    "detach-on": "b",
    "string-limit": "s",
    "summary-syscall-overhead": "O",
    trace: "e",
    signal: "e",
    status: "e",
    abbrev: "e",
    verbose: "e",
    raw: "e",
    read: "e",
    write: "e",
    fault: "e",
    inject: "e",
    quiet: "e",
    "decode-fds": "e",
    silence: "e",
  },
  longOptional: {
    "absolute-timestamps": "t",
    timestamps: "t",
    "relative-timestamps": "r",
    "syscall-times": "T",
    daemonize: "D",
    "decode-pids": "decode-pids",
  },
};

/** strace: `-p` attaches to other processes, `-E` changes the command's environment. */
const strace: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, STRACE_SPEC);
  if (!scan.ok) return [opaque(scan.reason)];
  if (scan.seen.has("help") || scan.seen.has("version")) return [];
  if (scan.seen.has("p")) return [opaque(`"${tool} -p" attaches to processes this command did not start`)];
  if (scan.seen.has("E")) return [opaque(`"${tool} -E" changes the environment of the command it runs`)];
  return runs(args, scan.operand, tool);
};

/** script: `-c` runs a string through $SHELL; without it, an interactive shell. */
const script: Handler = (tool, args) => {
  const scan = scanOptions(tool, args, {
    short: "aefqhV",
    shortArg: "IOBTmEoc",
    shortOptional: "t",
    long: { append: "a", return: "e", flush: "f", force: "force", quiet: "q", ...HELP },
    longArg: {
      "log-in": "I",
      "log-out": "O",
      "log-io": "B",
      "log-timing": "T",
      "logging-format": "m",
      echo: "E",
      "output-limit": "o",
      command: "c",
    },
    longOptional: { timing: "t" },
  });
  if (!scan.ok) return [opaque(scan.reason)];
  if (scan.seen.has("help") || scan.seen.has("version")) return [];
  const code = scan.values.get("c");
  if (code === undefined)
    return [opaque(`"${tool}" without -c starts an interactive shell, which Lathe cannot see`)];
  const item = args.find((a) => a.word.text === code || a.word.text.endsWith(code));
  const word = scan.words.get("c");
  if (item === undefined || word?.literal !== true) {
    return [opaque(`"${tool} -c" runs a string that is only known when the shell runs`)];
  }
  return [
    { kind: "code", code, pos: item.pos, via: "script -c" },
    opaque(`"${tool} -c" runs the string through the shell named by $SHELL`),
  ];
};

/** Programs that run a command in a way Lathe does not follow, and why. */
const OPAQUE_RUNNERS: Readonly<Record<string, string>> = {
  gdb: "can run any command (-ex 'shell …', scripts, .gdbinit files) and attach to other processes",
  lldb: "can run any command (scripts, -o 'platform shell …') and attach to other processes",
  ltrace: "can attach to other processes and write its output anywhere",
  valgrind: "runs the command with tools and options Lathe does not follow",
  unshare: "runs the command in new namespaces, where mounts, users and folders can differ",
  nsenter: "runs the command inside the namespaces of another process",
  chroot: "runs the command with another root folder",
  runuser: "runs the command as another user",
  su: "runs a shell or command as another user",
  setpriv: "runs the command with changed privileges",
  capsh: "runs a shell or command with changed capabilities",
  prlimit: "runs the command with changed limits, or changes the limits of other processes",
  fakeroot: "runs the command with preloaded code and can save its state to a file",
  "systemd-run": "asks systemd to run the command outside this call",
  tmux: "starts a server that runs commands outside this call",
  screen: "starts a session that runs commands outside this call",
  at: "schedules commands to run later, outside this call",
  batch: "schedules commands to run later, outside this call",
  crontab: "installs commands that run on a schedule, outside this call",
  daemonize: "starts the command as a daemon that outlives the call",
  "start-stop-daemon": "starts or stops daemons outside this call",
  busybox: "is a multi-call program that runs whichever tool or shell its first argument names",
  parallel: "runs its arguments as shell commands in ways Lathe does not follow",
  "xvfb-run": "runs the command inside a display server it starts",
  "dbus-run-session": "runs the command inside a message bus session it starts",
  sg: "runs a command string as another group",
  newgrp: "starts a shell with another group",
  setarch: "runs the command (or a shell) with another architecture personality",
  linux32: "runs the command (or a shell) with another architecture personality",
  linux64: "runs the command (or a shell) with another architecture personality",
  numactl: "runs the command with options Lathe does not follow",
  firejail: "runs the command inside a sandbox whose options Lathe does not follow",
  bwrap: "runs the command inside a sandbox whose mounts Lathe does not follow",
  proot: "runs the command with another root folder",
  expect: "runs its own scripts, which can start any command",
  entr: "runs the command again whenever files change",
  unbuffer: "runs the command through expect",
  pkexec: "runs the command as another user",
  sudoedit: "edits files as another user",
};

/** Wrappers recognised for one thing only: running a command through an opaque mechanism. */
function opaqueRunner(reason: string): Handler {
  return (tool, args) =>
    args.length === 1 && /^--?(help|version|V|h)$/.test(literal(args[0]) ?? "")
      ? []
      : [opaque(`"${tool}" ${reason}`)];
}

export const PROGRAM_WRAPPERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
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
  // sudo -e/-l/-v/-K/-V/-h and doas -L/-C run no command.
  ["sudo", elevate(SUDO_SPEC, "elvKVh")],
  ["doas", elevate({ short: "nsL", shortArg: "uC" }, "LC")],
  ["xargs", xargs],
  ["find", find],
  ["watch", watch],
  [
    "ionice",
    actsOnProcesses(
      {
        short: "tpPuhV",
        shortArg: "cn",
        long: { ignore: "t", pid: "p", pgid: "P", uid: "u", ...HELP },
        longArg: { class: "c", classdata: "n" },
      },
      "pPu",
      0,
      "changes the I/O priority",
    ),
  ],
  [
    "chrt",
    (tool, args) => {
      const spec: OptionSpec = {
        short: "abdfiompRrvhV",
        shortArg: "TPD",
        long: {
          "all-tasks": "a",
          batch: "b",
          deadline: "d",
          fifo: "f",
          idle: "i",
          other: "o",
          rr: "r",
          "reset-on-fork": "R",
          max: "m",
          pid: "p",
          verbose: "v",
          ...HELP,
        },
        longArg: { "sched-runtime": "T", "sched-period": "P", "sched-deadline": "D" },
      };
      const scan = scanOptions(tool, args, spec);
      if (scan.ok && scan.seen.has("m")) return [];
      return actsOnProcesses(spec, "p", 1, "changes the scheduling")(tool, args);
    },
  ],
  [
    "taskset",
    actsOnProcesses(
      { short: "apchV", long: { "all-tasks": "a", pid: "p", "cpu-list": "c", ...HELP } },
      "p",
      1,
      "changes the CPU affinity",
    ),
  ],
  ["flock", flock],
  [
    "setsid",
    (tool, args) => [
      ...optionsThenCommand({ short: "cfw", long: { ctty: "c", fork: "f", wait: "w", ...HELP } })(tool, args),
      opaque(`"${tool}" starts the command in a new session, so it can outlive the call`),
    ],
  ],
  ["strace", strace],
  ["script", script],
  ...Object.entries(OPAQUE_RUNNERS).map(([name, reason]): [string, Handler] => [name, opaqueRunner(reason)]),
]);
