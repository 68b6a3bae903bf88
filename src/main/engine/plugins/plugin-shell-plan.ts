import { lstat } from "node:fs/promises";
import path from "node:path";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { CallPlan, PlannedAccess } from "../tools/call-plan.ts";
import { commandEffects } from "../policy/shell/command-effects.ts";
import { analyzeShell, type ShellWord, type SimpleCommand } from "../policy/shell/shell-analysis.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { expandTilde } from "../policy/shell/tilde-path.ts";

/** Redirection targets that are streams, not files. */
const STREAMS = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"]);

/** A URL is not a path (`file:` URLs are, and are judged as the path they name). */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Every exact argument the plugin's tool.yaml spells out: the person approved those words. */
function declaredWords(requires: RequirementSet): Set<string> {
  const words = new Set<string>();
  for (const req of requires.shell ?? [])
    for (const arg of req.args ?? []) if (typeof arg === "string") words.add(arg);
  return words;
}

/** The parts of a free argument that could name a file: the word, and what follows `=` in it. */
function candidates(word: string): string[] {
  if (word.startsWith("-") && !word.includes("=")) return [];
  const out: string[] = [];
  if (!word.startsWith("-")) out.push(word);
  const eq = word.indexOf("=");
  if (eq >= 0 && eq < word.length - 1) out.push(word.slice(eq + 1));
  return out.flatMap((text) => {
    if (/^file:\/\//i.test(text)) return [text.slice("file://".length) || "/"];
    return URL_SCHEME.test(text) ? [] : [text];
  });
}

async function exists(absolute: string): Promise<boolean> {
  try {
    await lstat(absolute);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a word the command gets names a file: an absolute path, anything with a `/`, `.` or
 * `..`, or a name that exists in the working directory. Such words are judged as reads of that
 * path against the plugin's `fs.read`, as a built-in's paths are.
 */
async function isPathArgument(text: string, cwd: string): Promise<boolean> {
  if (text === "" || text.includes("\0")) return false;
  if (path.isAbsolute(text) || text.includes("/") || text === "." || text === "..") return true;
  return exists(path.resolve(cwd, text));
}

function sameCommand(a: SimpleCommand, b: SimpleCommand): boolean {
  return (
    a.name === b.name &&
    a.args.length === b.args.length &&
    a.args.every((w, i) => w.text === b.args[i]?.text && w.literal === b.args[i]?.literal)
  );
}

/**
 * The file a write goes to, as the program takes it: `~/…` is the home folder — git expands the
 * `~/.gitconfig` of `git config --global` itself, a shell (`sh -c`) the `~` it is given —
 * rather than a folder called `~` in the workspace. (A program given a literal `~/x` without a
 * shell would write in the workspace: judged as the home folder, it is refused, never let out.)
 */
function writeTarget(word: ShellWord): string | undefined {
  return word.literal ? expandTilde(word.text) : undefined;
}

/**
 * What a plugin's `runtime.shell.run(cmd, argv)` will do, judged by the same shell analysis as
 * a bash call. The argv is quoted into a command line and analysed, so wrappers (`env`,
 * `xargs`, `find -exec`, `sh -c` …) reveal the commands they run, each of which must be one the
 * plugin declared; dangerous options of known commands (`git -c core.fsmonitor=…`, `sed e`, …)
 * are reasons only a person may approve; files well-known writers change (`cp`, `mv`, `tee`,
 * `sed -i`, …) and redirections in shell code are writes checked against `fs.write`; and every
 * free argument that names a path is a read checked against `fs.read`. Nothing is run here.
 */
export async function planPluginCommand(
  command: SimpleCommand,
  requires: RequirementSet,
  cwd: string,
): Promise<CallPlan> {
  const analysis = analyzeShell(command.source);
  const first = analysis.commands[0];
  if (!first || !sameCommand(first, command)) {
    throw new ToolCallError(
      `runtime.shell.run could not analyse "${command.source}" as one command with those arguments, so it is not run. Pass the program and each argument separately, without shell syntax.`,
      "capability_denied",
    );
  }
  const fixed = declaredWords(requires);
  // Commands first, then writes, then reads: the first refusal is the one that matters most.
  const commands: PlannedAccess[] = [];
  const writes: PlannedAccess[] = [];
  const reads: PlannedAccess[] = [];
  const unclear = [...analysis.opaque];
  const seen = new Set<string>();
  for (const c of analysis.commands) {
    commands.push({ capability: "shell.run", command: c });
    const effects = commandEffects(c);
    unclear.push(...effects.unclear);
    for (const w of effects.writes) {
      const target = writeTarget(w);
      if (target === undefined)
        unclear.push(`"${c.source}" changes ${w.text}, which is only known when it runs`);
      else if (!STREAMS.has(target)) writes.push({ capability: "fs.write", path: target });
    }
    for (const word of c.args) {
      if (!word.literal || fixed.has(word.text)) continue;
      for (const text of candidates(word.text)) {
        if (seen.has(text) || !(await isPathArgument(text, cwd))) continue;
        seen.add(text);
        reads.push({ capability: "fs.read", path: text });
      }
    }
  }
  for (const r of analysis.redirections) {
    const target = writeTarget(r.target);
    if (target !== undefined && STREAMS.has(target)) continue;
    if (target === undefined)
      unclear.push(`the redirection target ${r.target.text} (in "${r.source}") is only known when it runs`);
    else
      (r.access === "read" ? reads : writes).push({
        capability: r.access === "read" ? "fs.read" : "fs.write",
        path: target,
      });
  }
  return { accesses: [...commands, ...writes, ...reads], unclear };
}
