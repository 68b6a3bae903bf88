import type { WatchdogCheck, WatchdogVerdict } from "../watchdog.ts";
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

function deny(what: string, why: string): WatchdogVerdict {
  return {
    decision: "deny",
    reason: `${what} is ${why}. Lathe's own settings, trust, hook and plugin files, git's configuration and hooks, MCP servers' files, and (with your home folder in the workspace) its startup files and PATH folders are protected: the agent may not change them. A person can edit it outside the agent.`,
  };
}

/**
 * Refuse writes to the protected paths (policy/protected-paths.ts: `$LATHE_HOME`, `.lathe/`,
 * git's configuration and hooks, `.gitmodules`, MCP servers' files) — wherever they come from (a
 * file tool, a plugin's file access, a shell redirection, a command argument), and even when the
 * file does not exist yet.
 */
export const selfProtectionGuard: WatchdogCheck = {
  name: "self-protection",
  check(call) {
    // Read from disk only when a call writes or runs a command: most calls do neither.
    let entries: ReturnType<typeof call.protectedPaths.entries> | undefined;
    const why = (p: string): string | undefined =>
      call.protectedPaths.reason(p, (entries ??= call.protectedPaths.entries()));
    for (const a of call.accesses) {
      if (a.capability !== "fs.write") continue;
      const reason = why(a.path.absolute);
      if (reason) return deny(a.path.display, reason);
    }
    for (const { command } of shellCommands(call.accesses)) {
      if (READERS.has(baseName(command))) continue;
      for (const word of command.args) {
        const target = argPath(word, call.cwd, call.home);
        const reason = target && why(target);
        if (reason) return deny(word.text, reason);
        if (dynamicMentions(word, MENTIONS_LATHE)) return deny(word.text, "a path naming Lathe's own folder");
      }
    }
    return { decision: "allow" };
  },
};
