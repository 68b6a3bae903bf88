import path from "node:path";
import { isWithin } from "../../capability/canonical-path.ts";
import type { ShellWord } from "../shell/shell-analysis.ts";
import type { WatchdogCall, WatchdogCheck, WatchdogVerdict } from "../watchdog.ts";
import { argPath, baseName, hasFlag, operands, shellCommands } from "./shell-args.ts";

const HOME_WORDS = [/^~(\/|$)/, /\$\{?HOME\}?/, /^\/\*?$/];

/** Would deleting `target` recursively take the root, the home folder or an ancestor of either? */
function endangers(target: string, call: WatchdogCall): string | undefined {
  if (target === "/") return "the whole filesystem";
  if (isWithin(target, call.root)) return `the workspace root ${call.root}`;
  if (isWithin(target, call.home)) return `the home folder ${call.home}`;
  return undefined;
}

function judge(word: ShellWord, call: WatchdogCall, what: string): WatchdogVerdict | undefined {
  const literal = argPath(word, call.cwd, call.home);
  if (literal) {
    const hit = endangers(literal, call);
    if (hit)
      return {
        decision: "deny",
        reason: `${what} would delete ${hit}. Delete specific files or folders instead.`,
      };
    return undefined;
  }
  if (HOME_WORDS.some((re) => re.test(word.text))) {
    return {
      decision: "deny",
      reason: `${what} would delete the home folder or the filesystem root. Name the exact folder to delete.`,
    };
  }
  if (/^(\.\/)?\.?\*$/.test(word.text) && endangers(path.resolve(call.cwd), call)) {
    return {
      decision: "deny",
      reason: `${what} would delete everything in ${call.cwd}. Name the exact files to delete.`,
    };
  }
  return { decision: "ask", reason: `${what}: cannot tell before it runs what "${word.text}" deletes.` };
}

/** Refuse `rm -r` / `find -delete` aimed at the workspace root, the home folder or `/`. */
export const recursiveDeleteGuard: WatchdogCheck = {
  name: "recursive-delete",
  check(call) {
    let ask: WatchdogVerdict | undefined;
    for (const { command, text } of shellCommands(call.accesses)) {
      const name = baseName(command);
      let targets: ShellWord[] = [];
      if (name === "rm" && hasFlag(command.args, "r", ["--recursive"])) targets = operands(command.args);
      else if (name === "rm" && hasFlag(command.args, "R")) targets = operands(command.args);
      else if (name === "find" && command.args.some((a) => a.text === "-delete" || a.text === "rm")) {
        const starts: ShellWord[] = [];
        for (const a of command.args) {
          if (a.literal && /^[-(!]/.test(a.text)) break;
          starts.push(a);
        }
        targets = starts.length > 0 ? starts : [{ text: ".", literal: true }];
      }
      for (const t of targets) {
        const verdict = judge(t, call, `"${text}"`);
        if (verdict?.decision === "deny") return verdict;
        if (verdict) ask ??= verdict;
      }
    }
    return ask ?? { decision: "allow" };
  },
};
