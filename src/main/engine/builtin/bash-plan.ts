import path from "node:path";
import type { CallPlan, MentionedPath, PlannedAccess } from "../tools/call-plan.ts";
import { commandEffects } from "../policy/shell/command-effects.ts";
import { dashFileWords } from "../policy/shell/dash-operand.ts";
import { pathsIn } from "../policy/shell/directory-tracking.ts";
import { provablyReadOnly } from "../policy/shell/read-only-command.ts";
import {
  listerDepth,
  listerFollowsGivenLinks,
  listsWholeFolders,
  printsOnlyTotals,
} from "../policy/shell/folder-listers.ts";
import { readsItsFolder, readsWholeFolders } from "../policy/shell/read-only-paths.ts";
import { isPlainGlob, pathOfWord as pathOf } from "../policy/shell/seen-path.ts";
import { expandTilde } from "../policy/shell/tilde-path.ts";
import { wordFileNames } from "../policy/shell/word-file-names.ts";
import {
  analyzeShell,
  type RunsIn,
  type ShellWord,
  type SimpleCommand,
} from "../policy/shell/shell-analysis.ts";

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

/** A URL is not a path (`file://` ones are read as the path they name). */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The parts of an argument that may name a file a program reads (see wordFileNames); `-` names a
 * file only where its program reads it as one (dash-operand.ts), and a URL none (`file://` ones
 * are read as the path they name).
 */
function namedFiles(word: string, dashIsFile: boolean): string[] {
  if (word === "-" && !dashIsFile) return [];
  return wordFileNames(word).flatMap(({ text }) => {
    if (/^file:\/\//i.test(text)) return [text.slice("file://".length) || "/"];
    return text === "" || URL_SCHEME.test(text) ? [] : [text];
  });
}

/**
 * The paths a simple command's arguments name, in every folder it may run in: literal words,
 * and unquoted globs (expanded when the call is decided). Words only known at run time
 * (`$F`, `$(…)`) name nothing the policy can see.
 */
function mentionsOf(c: SimpleCommand): MentionedPath[] {
  const out: MentionedPath[] = [];
  const program = path.posix.basename(c.name);
  const literals = c.args.filter((a) => a.literal).map((a) => a.text);
  const recursive = readsWholeFolders(program, literals);
  const dashFiles = new Set(dashFileWords(program, c.args));
  // `find homelink` lists the link itself: only a path through it reaches the folder it leads to.
  const linkNotFollowed =
    recursive && listsWholeFolders(program, literals) && !listerFollowsGivenLinks(program, literals);
  const depth =
    recursive && listsWholeFolders(program, literals) ? listerDepth(program, literals) : undefined;
  const limited = {
    ...(depth === undefined ? {} : { depth }),
    ...(recursive && listsWholeFolders(program, literals) ? { lister: true } : {}),
    ...(printsOnlyTotals(program, literals) ? { totalOnly: true } : {}),
  };
  // A folder reader given no folder reads the one it runs in.
  if (recursive && readsItsFolder(program, literals) && c.runsIn?.unknown === undefined)
    for (const p of pathsIn(c.runsIn, "."))
      out.push({ text: expandTilde(p), glob: false, recursive, ...limited });
  for (const word of c.args) {
    const glob = isPlainGlob(word);
    if (!word.literal && !glob && pathOf(word) === undefined) continue;
    for (const text of namedFiles(
      word.literal ? word.text : (pathOf(word) ?? word.text),
      dashFiles.has(word),
    )) {
      const expanded = expandTilde(text);
      const relative = !expanded.startsWith("/");
      if (relative && c.runsIn?.unknown !== undefined) continue;
      // After `cd ~`, `.ssh/x` is `~/.ssh/x`: the home folder is expanded once joined.
      for (const p of relative ? pathsIn(c.runsIn, expanded) : [expanded])
        out.push({
          text: expandTilde(p),
          glob,
          ...(recursive ? { recursive } : {}),
          ...(linkNotFollowed ? { linkNotFollowed } : {}),
          ...limited,
        });
    }
  }
  return out;
}

/**
 * What a bash command will do, seen before it runs: every simple command it contains (through
 * pipelines, lists, substitutions and wrappers) as a shell.run access, every redirection target
 * and every path a well-known writer changes (`cp`, `mv`, `rm`, `tee`, `sed -i`, `sort -o`,
 * `tar -C`, link targets, …) as an fs access — in every folder the command may run in after
 * `cd` — and whatever cannot be seen through as a reason the call needs a person.
 */
export function planBashCommand(command: string, cwd?: string): CallPlan {
  const analysis = analyzeShell(command);
  const accesses: PlannedAccess[] = [];
  const mentions: MentionedPath[] = [];
  const unclear = [...analysis.opaque];

  const access = (
    capability: "fs.read" | "fs.write",
    word: ShellWord,
    runsIn: RunsIn | undefined,
    what: string,
  ): void => {
    const target = pathOf(word);
    if (target === undefined) {
      unclear.push(
        `${what} ${capability === "fs.read" ? "reads" : "changes"} ${word.text}, which is only known when the shell runs`,
      );
      return;
    }
    if (STREAMS.has(target)) return;
    const relative = !target.startsWith("/") && !target.startsWith("~");
    if (relative && runsIn?.unknown !== undefined) {
      unclear.push(
        `${what} ${capability === "fs.read" ? "reads" : "changes"} "${target}" relative to a folder that cannot be known: ${runsIn.unknown}`,
      );
      return;
    }
    for (const path of relative ? pathsIn(runsIn, target) : [target])
      accesses.push({ capability, path: expandTilde(path) });
  };

  for (const c of analysis.commands) {
    accesses.push({ capability: "shell.run", command: c });
    mentions.push(...mentionsOf(c));
    const effects = commandEffects(c);
    unclear.push(...effects.unclear);
    for (const w of effects.writes) access("fs.write", w, c.runsIn, `"${c.source}"`);
  }
  for (const r of analysis.redirections) {
    access(r.access === "read" ? "fs.read" : "fs.write", r.target, r.runsIn, `the redirection "${r.source}"`);
  }
  return {
    accesses,
    unclear,
    ...(mentions.length > 0 ? { mentions } : {}),
    ...(cwd ? { cwd } : {}),
    startsProcess: true,
    notReadOnly: provablyReadOnly(analysis),
  };
}
