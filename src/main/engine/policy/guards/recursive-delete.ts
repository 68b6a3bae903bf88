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

/** find's tests of an entry's name (`-name`, `-iname`) or of its whole path as find shows it. */
const NAME_TESTS = new Set(["-name", "-iname"]);
const PATH_TESTS = new Set(["-path", "-ipath", "-wholename", "-iwholename"]);
/** What makes find's expression more than tests that must all pass. */
const OPERATORS = new Set(["-o", "-or", ",", "!", "-not", "(", ")"]);

/** A find pattern (fnmatch, `*` matching `/` and a leading dot too) as a regular expression. */
function findPattern(pattern: string, ignoreCase: boolean): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    const close = c === "[" ? pattern.indexOf("]", i + 2) : -1;
    if (c === "*") source += ".*";
    else if (c === "?") source += ".";
    else if (close !== -1) {
      const set = pattern
        .slice(i + 1, close)
        .replace(/^!/, "^")
        .replace(/\\/g, "\\\\");
      source += `[${set}]`;
      i = close;
    } else if (c === "\\" && i + 1 < pattern.length) source += `\\${pattern[++i] as string}`;
    else source += c.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, `s${ignoreCase ? "i" : ""}`);
}

/**
 * Whether `find STARTS EXPRESSION -delete` deletes only entries of a name it picks
 * (`find . -name '*.log' -delete`), never a starting point itself nor everything below one: its
 * expression is tests that must all pass (no `-o`, `!` or parentheses), one of them a name or
 * path pattern that names something in particular (more than `*`, `?` and dots), which no
 * starting point passes under the name find gives it (`.` for `.`, `ws` for `/tmp/ws`).
 */
function deletesOnlyNamed(starts: readonly ShellWord[], expression: readonly ShellWord[]): boolean {
  if (expression.some((a) => OPERATORS.has(a.text))) return false;
  if (!starts.every((s) => s.literal)) return false;
  let named = false;
  for (let i = 0; i < expression.length - 1; i++) {
    const test = (expression[i] as ShellWord).text;
    const pattern = expression[i + 1] as ShellWord;
    const byName = NAME_TESTS.has(test);
    if (!byName && !PATH_TESTS.has(test)) continue;
    if (/[$`]/.test(pattern.text) || pattern.text.replace(/[*?.[\]]/g, "") === "") continue;
    let re: RegExp;
    try {
      re = findPattern(pattern.text, test.startsWith("-i"));
    } catch {
      return false; // a bracket expression no regular expression takes: judged as before
    }
    const startNames = starts.map((s) => (byName ? path.posix.basename(s.text) || s.text : s.text));
    if (startNames.some((name) => re.test(name))) return false;
    named = true;
  }
  return named;
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
        const expression = command.args.slice(starts.length);
        if (starts.length === 0) starts.push({ text: ".", literal: true });
        targets = deletesOnlyNamed(starts, expression) ? [] : starts;
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
