import { isWithin } from "../../capability/canonical-path.ts";
import type { WatchdogCall, WatchdogCheck, WatchdogVerdict } from "../watchdog.ts";
import { argPath, baseName, dynamicMentions, shellCommands } from "./shell-args.ts";

/** Commands that only look at files; naming a protected path in them is fine. */
const READERS = new Set([
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "grep",
  "rg",
  "ls",
  "stat",
  "wc",
  "diff",
  "file",
  "md5sum",
  "sha256sum",
]);
const MENTIONS_LATHE = [/\.lathe\b/, /\bLATHE_HOME\b/];

function protectedRoots(call: WatchdogCall): string[] {
  return [
    call.latheHome,
    `${call.root}/.lathe/settings.json`,
    `${call.root}/.lathe/hooks`,
    `${call.root}/.lathe/tools`,
    `${call.root}/.lathe/agents`,
    `${call.root}/.git/hooks`,
  ];
}

function deny(what: string): WatchdogVerdict {
  return {
    decision: "deny",
    reason: `${what} is one of Lathe's own settings, trust, hook or plugin files (or a git hook), which the agent may not change. A person can edit it outside the agent.`,
  };
}

/**
 * Refuse writes to Lathe's own settings, trust and hook files, project plugins and agents, and
 * git hooks — wherever they come from (a file tool, a shell redirection, a command argument),
 * and even when the file does not exist yet.
 */
export const selfProtectionGuard: WatchdogCheck = {
  name: "self-protection",
  check(call) {
    const roots = protectedRoots(call);
    const isProtected = (p: string) => roots.some((r) => isWithin(r, p));
    for (const a of call.accesses) {
      if (a.capability === "fs.write" && isProtected(a.path.absolute)) return deny(a.path.display);
    }
    for (const { command } of shellCommands(call.accesses)) {
      if (READERS.has(baseName(command))) continue;
      for (const word of command.args) {
        const target = argPath(word, call.cwd, call.home);
        if (target && isProtected(target)) return deny(word.text);
        if (dynamicMentions(word, MENTIONS_LATHE)) return deny(word.text);
      }
    }
    return { decision: "allow" };
  },
};
