import os from "node:os";
import type { CallPlan, PlannedAccess } from "../policy/call-plan.ts";
import { commandEffects } from "../policy/shell/command-effects.ts";
import { provablyReadOnly } from "../policy/shell/read-only-command.ts";
import { analyzeShell, type ShellWord } from "../policy/shell/shell-analysis.ts";

/** Redirection targets that are streams, not files: `2>/dev/null` touches nothing. */
const STREAMS = new Set([
  "/dev/null",
  "/dev/tty",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/fd/0",
  "/dev/fd/1",
  "/dev/fd/2",
]);

/** A word naming a path: its literal value, `~/…` expanded as the shell will, or undefined when dynamic. */
function pathOf(word: ShellWord): string | undefined {
  if (word.literal) return word.text;
  if (word.text === "~" || /^~\/[^$`*?[{\\'"]*$/.test(word.text))
    return `${os.homedir()}${word.text.slice(1)}`;
  return undefined;
}

/**
 * What a bash command will do, seen before it runs: every simple command it contains (through
 * pipelines, lists, substitutions and wrappers) as a shell.run access, every redirection target
 * and every path a well-known writer changes (`cp`, `mv`, `rm`, `tee`, `sed -i`, …) as an fs
 * access, and whatever cannot be seen through as a reason the call needs a person.
 */
export function planBashCommand(command: string, cwd?: string): CallPlan {
  const analysis = analyzeShell(command);
  const accesses: PlannedAccess[] = [];
  const unclear = [...analysis.opaque];
  for (const c of analysis.commands) {
    accesses.push({ capability: "shell.run", command: c });
    const effects = commandEffects(c);
    unclear.push(...effects.unclear);
    for (const w of effects.writes) {
      const target = pathOf(w);
      if (target === undefined)
        unclear.push(`"${c.source}" changes ${w.text}, which is only known when the shell runs`);
      else if (!STREAMS.has(target)) accesses.push({ capability: "fs.write", path: target });
    }
  }
  for (const r of analysis.redirections) {
    const target = pathOf(r.target);
    if (target !== undefined && STREAMS.has(target)) continue;
    if (target === undefined) {
      unclear.push(
        `the redirection target ${r.target.text} (in "${r.source}") is only known when the shell runs`,
      );
    } else {
      accesses.push({ capability: r.access === "read" ? "fs.read" : "fs.write", path: target });
    }
  }
  return {
    accesses,
    unclear,
    ...(cwd ? { cwd } : {}),
    startsProcess: true,
    notReadOnly: provablyReadOnly(analysis),
  };
}
