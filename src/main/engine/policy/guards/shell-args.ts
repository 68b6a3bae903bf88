import path from "node:path";
import type { ResolvedAccess } from "../../tools/call-plan.ts";
import type { ShellWord, SimpleCommand } from "../shell/shell-analysis.ts";

/** The simple commands of a call (bash and anything else that plans shell.run accesses). */
export function shellCommands(
  accesses: readonly ResolvedAccess[],
): Array<{ command: SimpleCommand; text: string }> {
  const out: Array<{ command: SimpleCommand; text: string }> = [];
  for (const a of accesses) if (a.capability === "shell.run") out.push({ command: a.command, text: a.text });
  return out;
}

/** The command's own name without a standard bin directory (`/usr/bin/rm` → `rm`). */
export function baseName(command: SimpleCommand): string {
  return path.posix.basename(command.name);
}

/** Arguments that are not options (`--` ends options). */
export function operands(args: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  let optionsDone = false;
  for (const a of args) {
    if (!optionsDone && a.literal && a.text === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && a.literal && a.text.startsWith("-") && a.text !== "-") continue;
    out.push(a);
  }
  return out;
}

/** Whether a short flag letter or a long option is given (`-rf` has r and f). */
export function hasFlag(args: readonly ShellWord[], short: string, long: readonly string[] = []): boolean {
  for (const a of args) {
    if (!a.literal) continue;
    if (a.text === "--") return false;
    if (long.some((l) => a.text === l || a.text.startsWith(`${l}=`))) return true;
    if (/^-[A-Za-z]+$/.test(a.text) && a.text.includes(short)) return true;
  }
  return false;
}

/** The absolute path an argument names, seen from the working directory (`~/…` is the home folder). */
export function argPath(word: ShellWord, cwd: string, home: string): string | undefined {
  if (!word.literal) return /^~(\/[^$`*?[{]*)?$/.test(word.text) ? `${home}${word.text.slice(1)}` : undefined;
  const value =
    word.text.includes("=") && !word.text.startsWith("/")
      ? word.text.slice(word.text.indexOf("=") + 1)
      : word.text;
  if (value === "") return undefined;
  return path.resolve(cwd, value);
}

/** Paths a dynamic word can only mean at run time: home, LATHE_HOME and the like. */
export function dynamicMentions(word: ShellWord, needles: readonly RegExp[]): boolean {
  return !word.literal && needles.some((n) => n.test(word.text));
}
