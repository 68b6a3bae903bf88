import path from "node:path";
import type { ShellWord, SimpleCommand } from "./shell-analysis.ts";

/** What a simple command does besides running: files it writes, and what makes it opaque. */
export interface CommandEffects {
  /** Paths the command writes (relative to the working directory, or absolute). */
  writes: ShellWord[];
  /** Reasons a person must look at it: it runs code or writes files that cannot be named first. */
  unclear: string[];
}

/** git options that make git run an arbitrary program or read config from elsewhere. */
const GIT_EXEC_CONFIG =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|pager\.|alias\.|diff\.[^.]+\.(textconv|command)|diff\.external|merge\.[^.]+\.driver|filter\.|credential\.|sequence\.editor|uploadpack\.|receivepack\.|protocol\.|gpg\.program|remote\.[^.]+\.(uploadpack|receivepack|proxy)|http\.proxy|include\.|includeif\.)/i;

function operandsOf(args: readonly ShellWord[], takesValue: ReadonlySet<string> = new Set()): ShellWord[] {
  const out: ShellWord[] = [];
  let done = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    if (!done && a.literal && a.text === "--") {
      done = true;
      continue;
    }
    if (!done && a.literal && a.text.startsWith("-") && a.text !== "-") {
      if (takesValue.has(a.text)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

function optionValue(args: readonly ShellWord[], names: readonly string[]): ShellWord | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    for (const n of names) {
      if (a.text === n) return args[i + 1];
      if (n.startsWith("--") && a.text.startsWith(`${n}=`))
        return { text: a.text.slice(n.length + 1), literal: a.literal };
    }
  }
  return undefined;
}

function hasShortFlag(args: readonly ShellWord[], letter: string, long: readonly string[] = []): boolean {
  return args.some(
    (a) =>
      (/^-[A-Za-z]+$/.test(a.text) && a.text.includes(letter)) ||
      long.some((l) => a.text === l || a.text.startsWith(`${l}=`)),
  );
}

function sedEffects(args: readonly ShellWord[]): CommandEffects {
  const unclear: string[] = [];
  const scripts: string[] = [];
  const expr = optionValue(args, ["-e", "--expression"]);
  if (expr) scripts.push(expr.text);
  const files = operandsOf(args, new Set(["-e", "--expression", "-f", "--file", "-l", "--line-length"]));
  if (!expr && files.length > 0) scripts.push((files.shift() as ShellWord).text);
  for (const script of scripts) {
    // `e` runs a command, `w`/`W` write a file, `r`/`R` read one: none visible from outside.
    if (
      /(^|[;\n{}]\s*|\d\s*|\/\s*)e(\s|$|;)|s(.).*?\3.*?\3[gpIi0-9]*[ew]/.test(script) ||
      /(^|[;\n{}])\s*[wW]\s/.test(script)
    ) {
      unclear.push(`the sed script "${script}" runs a command or writes a file itself`);
    }
  }
  if (optionValue(args, ["-f", "--file"]))
    unclear.push("sed reads its script from a file that is only known when it runs");
  const inPlace = args.some((a) => /^-[A-Za-z]*i/.test(a.text) || a.text.startsWith("--in-place"));
  return { writes: inPlace ? files : [], unclear };
}

function gitEffects(args: readonly ShellWord[]): CommandEffects {
  const unclear: string[] = [];
  const writes: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as ShellWord;
    const [option, inline] =
      a.text.startsWith("--") && a.text.includes("=") ? a.text.split(/=(.*)/s) : [a.text];
    if (option === "--config-env") {
      // The value comes from an environment variable: never visible here.
      unclear.push(
        `git ${a.text} takes configuration from the environment, which can make git run another program`,
      );
      if (inline === undefined) i++;
    } else if (option === "-c" || /^-c./.test(a.text)) {
      const setting = a.text === "-c" ? args[++i] : { text: a.text.slice(2), literal: a.literal };
      if (!setting || !setting.literal || GIT_EXEC_CONFIG.test(setting.text)) {
        unclear.push(
          `git -c ${setting?.text ?? ""} sets configuration that can make git run another program`,
        );
      }
    } else if (option === "--exec-path" || option === "--upload-pack" || option === "--receive-pack") {
      unclear.push(`git ${a.text} makes git run another program`);
    } else if (option === "-C" || option === "--git-dir" || option === "--work-tree") {
      const dir = inline !== undefined ? { text: inline, literal: a.literal } : args[++i];
      if (dir) writes.push(dir);
    } else if (!a.text.startsWith("-")) {
      if (a.text === "config" && args.slice(i + 1).some((b) => GIT_EXEC_CONFIG.test(b.text))) {
        unclear.push("git config sets a value that can make git run another program");
      }
      break;
    }
  }
  return { writes, unclear };
}

function findEffects(args: readonly ShellWord[]): CommandEffects {
  const writes: ShellWord[] = [];
  const unclear: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as ShellWord).text;
    if (["-fprint", "-fprint0", "-fprintf", "-fls"].includes(t) && args[i + 1])
      writes.push(args[i + 1] as ShellWord);
  }
  if (args.some((a) => a.text === "-delete")) {
    const starts: ShellWord[] = [];
    for (const a of args) {
      if (a.literal && /^[-(!]/.test(a.text)) break;
      starts.push(a);
    }
    writes.push(...(starts.length > 0 ? starts : [{ text: ".", literal: true }]));
  }
  return { writes, unclear };
}

/**
 * The file effects and hidden behaviour of well-known commands, judged from their arguments:
 * writers (`cp`, `mv`, `rm`, `tee`, `sed -i`, `ln`, …) name the paths they change so the
 * capability check and the rules see them, and forms that run code the parser cannot see
 * (`git -c core.pager=…`, `sed e`, `awk system()`, `python -c`) are marked unclear.
 */
export function commandEffects(command: SimpleCommand): CommandEffects {
  const name = path.posix.basename(command.name);
  const args = command.args;
  switch (name) {
    case "rm":
    case "rmdir":
    case "touch":
    case "mkdir":
    case "chmod":
    case "chown":
    case "chgrp":
    case "truncate":
    case "shred":
    case "unlink":
      return {
        writes: operandsOf(args, new Set(["-m", "--mode", "-s", "--size", "-r", "--reference"])),
        unclear: [],
      };
    case "tee":
      return { writes: operandsOf(args), unclear: [] };
    case "cp":
    case "mv":
    case "install":
    case "ln": {
      const ops = operandsOf(args, new Set(["-t", "--target-directory", "-S", "--suffix", "-m", "--mode"]));
      const target = optionValue(args, ["-t", "--target-directory"]);
      // mv changes its sources too; ln -s makes a link whose target must stay inside as well.
      const writes = name === "mv" || name === "ln" ? ops : ops.slice(-1);
      return { writes: target ? [...writes, target] : writes, unclear: [] };
    }
    case "dd": {
      const of = args.find((a) => a.text.startsWith("of="));
      return { writes: of ? [{ text: of.text.slice(3), literal: of.literal }] : [], unclear: [] };
    }
    case "sed":
      return sedEffects(args);
    case "git":
      return gitEffects(args);
    case "find":
      return findEffects(args);
    case "awk":
    case "gawk":
    case "mawk":
      return args.some((a) => /system\s*\(|\|\s*"|getline|print[^;]*>/.test(a.text))
        ? { writes: [], unclear: [`the awk program runs commands or writes files itself`] }
        : { writes: [], unclear: [] };
    case "python":
    case "python3":
    case "node":
    case "perl":
    case "ruby":
      return hasShortFlag(args, name === "node" ? "e" : "c", ["--eval", "--print", "-p"]) ||
        (name !== "node" && hasShortFlag(args, "e"))
        ? { writes: [], unclear: [`${name} runs inline code that can do anything`] }
        : { writes: [], unclear: [] };
    case "tar": {
      const dir = optionValue(args, ["-C", "--directory"]);
      const unclear = args.some(
        (a) =>
          /^--(to-command|checkpoint-action|use-compress-program|info-script|new-volume-script)/.test(
            a.text,
          ) || a.text === "-I",
      )
        ? ["tar runs another program"]
        : [];
      const extracting = args.some((a) => /^-?[A-Za-z]*x/.test(a.text) || a.text === "--extract");
      return { writes: extracting ? [dir ?? { text: ".", literal: true }] : [], unclear };
    }
    default:
      return { writes: [], unclear: [] };
  }
}
