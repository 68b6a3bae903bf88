import type { WatchdogCheck } from "../watchdog.ts";
import { baseName, shellCommands } from "./shell-args.ts";

/** git's global options that take a value as the next word. */
const GIT_VALUE_OPTIONS = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--config-env",
]);

function isForce(arg: string): boolean {
  return (
    arg === "--force" ||
    arg.startsWith("--force-with-lease") ||
    arg === "--force-if-includes" ||
    arg === "--mirror" ||
    (/^-[A-Za-z]+$/.test(arg) && arg.includes("f")) ||
    (arg.startsWith("+") && arg.length > 1)
  );
}

/** Refuse `git push --force` (and its spellings) unless an allow rule names that push. */
export const forcePushGuard: WatchdogCheck = {
  name: "force-push",
  check(call) {
    for (const { command, text } of shellCommands(call.accesses)) {
      if (baseName(command) !== "git") continue;
      let i = 0;
      while (i < command.args.length) {
        const a = command.args[i]?.text ?? "";
        if (GIT_VALUE_OPTIONS.has(a)) i += 2;
        else if (a.startsWith("-")) i += 1;
        else break;
      }
      if (command.args[i]?.text !== "push") continue;
      const rest = command.args.slice(i + 1);
      if (!rest.some((a) => isForce(a.text))) continue;
      if (call.ruleAllows(text, "push")) continue;
      return {
        decision: "deny",
        reason: `"${text}" force-pushes, which can destroy history on the remote. If you mean it, add an allow rule for this exact command (permission "bash", pattern "${text}").`,
      };
    }
    return { decision: "allow" };
  },
};
