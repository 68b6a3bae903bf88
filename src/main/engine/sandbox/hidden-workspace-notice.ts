import { homeRelative, type HiddenPathSet } from "./hidden-path-set.ts";

/**
 * What to tell the user once, at start, when the workspace itself lies in a hidden path: every
 * file tool would refuse every file, and commands see nothing there. Opening `~/.ssh` may be
 * meant, but `sandbox.denyRead` was set (or kept) to stop exactly that, so it is not lifted
 * silently: the notice says why the tools will refuse and what setting changes it.
 * Undefined when the workspace is not hidden.
 */
export function hiddenWorkspaceNotice(root: string, hidden: HiddenPathSet): string | undefined {
  const found = hidden.find(hidden.canonical(root));
  if (!found) return undefined;
  const entry = homeRelative(found.entry);
  const folder = homeRelative(root);
  if (found.hiddenBy === "lathe-home") {
    return `This folder (${folder}) is inside Lathe's own data (${entry}: the conversations, settings and file copies of every folder), which no tool or command may read or write: read, write, edit, glob and grep will refuse every file here, and commands cannot see them. Open another folder (copy what you need out of ${entry} first).`;
  }
  return `This folder (${folder}) is inside ${entry}, which "sandbox.denyRead" hides from every tool and command: read, write, edit, glob and grep will refuse every file here, and commands cannot see them. If you mean to work here, set "sandbox.denyRead" in ${hidden.settingsFile} to a list without ${entry} (it then stays readable to every command Lathe runs); otherwise open another folder.`;
}
