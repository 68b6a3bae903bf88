import { isLongOption } from "./long-option-prefix.ts";
import { shown } from "./shown-text.ts";

/**
 * What `ps` and `pgrep` show of other processes. Inside the OS sandbox a command has its own
 * process namespace and sees none; with the sandbox off it sees every process of the machine,
 * and a process's command line may hold a secret: the stdio MCP servers Lathe starts take their
 * arguments from settings no command may read (`"args": ["--api-key", …]` in `$LATHE_HOME`), and
 * other programs get passwords and tokens that way too. Their names, ids and resource use are
 * harmless, so listings that show only those stay read-only (`ps`, `ps -e`, `ps -e -o pid,comm`,
 * `pgrep -l node`); one that prints command lines (`ps aux`, `ps -ef`, `-o args`, `pgrep -a`) or
 * environments (`ps e`) is not.
 */

/** Format fields that print a process's whole command line. */
const COMMAND_LINE_FIELDS = /^(args|cmd|command|cmdline)$/;

/** Short UNIX-style ps options that take a value. */
const PS_VALUE_LETTERS = "CGgOopqsTtUu";

/** Long ps options that show no command line (a `--format` is checked field by field). */
const PS_SAFE_LONG =
  /^--(no-headers?|headers|sort|pid|ppid|quick-pid|user|User|group|Group|tty|sid|deselect|forest|cols|columns|width|lines|rows|help|version|cumulative)(=.*)?$/;

const NAMES_ONLY = `(to list processes, name the fields: "ps -e -o pid,comm")`;

function commandLineField(format: string): string | undefined {
  return format
    .split(/[,\s]+/)
    .map((field) => field.split("=")[0] ?? "")
    .find((name) => COMMAND_LINE_FIELDS.test(name));
}

function psReason(args: readonly string[]): string | undefined {
  const other = `ps ${args.join(" ")}`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith("--")) {
      const format = /^--format(=(.*))?$/.exec(arg);
      if (format !== null) {
        const fields = format[1] !== undefined ? (format[2] ?? "") : (args[++i] ?? "");
        const field = commandLineField(fields);
        if (field !== undefined)
          return `"${other}" shows the command lines of other processes (${field}), which may hold keys Lathe keeps from commands ${NAMES_ONLY}`;
        continue;
      }
      if (!PS_SAFE_LONG.test(arg))
        return `"${other}" is given ${shown(arg)}, which Lathe does not know to keep other processes' command lines out ${NAMES_ONLY}`;
      if (
        !arg.includes("=") &&
        /^--(sort|pid|ppid|quick-pid|user|User|group|Group|tty|sid|cols|columns|width|lines|rows)$/.test(arg)
      )
        i++;
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        if (letter === "f" || letter === "F")
          return `"${other}" shows the command lines of other processes (-${letter}), which may hold keys Lathe keeps from commands ${NAMES_ONLY}`;
        if (PS_VALUE_LETTERS.includes(letter)) {
          const value = j < arg.length - 1 ? arg.slice(j + 1) : (args[++i] ?? "");
          const field = "oO".includes(letter) ? commandLineField(value) : undefined;
          if (field !== undefined)
            return `"${other}" shows the command lines of other processes (${field}), which may hold keys Lathe keeps from commands ${NAMES_ONLY}`;
          break;
        }
      }
      continue;
    }
    // A lone `-` is no option: procps says "garbage option" and lists nothing.
    if (arg === "-") continue;
    // BSD style (`aux`, `axe`, a pid list): the COMMAND column is the whole command line unless `c`.
    if (/^[A-Za-z]+$/.test(arg) && arg.includes("e"))
      return `"ps ${arg}" shows the environment of other processes, which may hold the keys Lathe withholds from commands`;
    if (!(/^[A-Za-z]+$/.test(arg) && arg.includes("c")))
      return `"${other}" shows the command lines of other processes (the BSD form without c), which may hold keys Lathe keeps from commands ${NAMES_ONLY}`;
  }
  return undefined;
}

/**
 * pgrep -a (--list-full, by any prefix getopt takes: `--list-f`) prints other processes' command
 * lines; -f (--full) matches the pattern against them, so whether it finds a process tells
 * whether one's command line holds the pattern: `pgrep -f 'api-key=a'`, then `=b` …, reads a
 * key a letter at a time.
 */
function pgrepReason(args: readonly string[]): string | undefined {
  const short = (letter: string) => (a: string) => /^-[A-Za-z]+$/.test(a) && a.includes(letter);
  const list = args.find((a) => isLongOption(a, "list-full") || short("a")(a));
  if (list !== undefined)
    return `"pgrep ${list}" shows the command lines of other processes, which may hold keys Lathe keeps from commands (pgrep -l shows their names)`;
  const full = args.find((a) => isLongOption(a, "full") || short("f")(a));
  return full === undefined
    ? undefined
    : `"pgrep ${full}" matches its pattern against the command lines of other processes, which tells whether one holds it (a key, a letter at a time); match the process name instead (pgrep -l name)`;
}

/** Why listing processes with these (literal) arguments shows what the sandbox would hide; undefined when it does not. */
export function processListingReason(program: string, args: readonly string[]): string | undefined {
  if (program === "ps") return psReason(args);
  if (program === "pgrep") return pgrepReason(args);
  return undefined;
}
