import os from "node:os";
import type { CallPlan, PlannedAccess } from "../policy/call-plan.ts";
import { analyzeShell } from "../policy/shell/shell-analysis.ts";

/** Redirection targets that are streams, not files: `2>/dev/null` touches nothing. */
const STREAMS = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2"]);

/**
 * What a bash command will do, seen before it runs: every simple command it contains (through
 * pipelines, lists, substitutions and wrappers) as a shell.run access, every redirection target
 * as an fs.read or fs.write access, and whatever the parser could not see through as a reason
 * the call needs a person.
 */
export function planBashCommand(command: string, cwd?: string): CallPlan {
  const analysis = analyzeShell(command);
  const accesses: PlannedAccess[] = analysis.commands.map((c) => ({ capability: "shell.run", command: c }));
  const unclear = [...analysis.opaque];
  for (const r of analysis.redirections) {
    if (r.target.literal && STREAMS.has(r.target.text)) continue;
    // `> ~/.bashrc`: the shell expands a leading ~/ to the home folder, so check that very path.
    const home = !r.target.literal && /^~\/[^$`*?[{\\'"]*$/.test(r.target.text);
    if (r.target.literal || home) {
      const target = home ? `${os.homedir()}${r.target.text.slice(1)}` : r.target.text;
      accesses.push({ capability: r.access === "read" ? "fs.read" : "fs.write", path: target });
    } else {
      unclear.push(`the redirection target ${r.target.text} (in "${r.source}") is only known when the shell runs`);
    }
  }
  return { accesses, unclear, ...(cwd ? { cwd } : {}) };
}
