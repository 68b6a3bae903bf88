// What a read-only command may do in this folder beyond its words, found by looking at the disk.
// Only a call that starts a process with the OS sandbox off asks (call-policy.ts), so the shell
// tables these checks use are loaded then (a dynamic import), not at every start.
import type { CallPlan } from "../tools/call-plan.ts";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { missingDashFile } from "./no-dash-file.ts";
import { repositoryPrograms } from "./repository-programs.ts";
import { linkedSpecialFile } from "./special-file-links.ts";
import { versionManagerStandIn } from "./version-manager-shims.ts";
import { workspacePathProgram } from "./workspace-path-programs.ts";

/**
 * Why a read-only command may, in this folder, do more than its words say: a program found on
 * PATH in the workspace `root` (workspace-path-programs.ts), a link into another process's /proc
 * folder or to a device (special-file-links.ts), a program its repository names, a toolchain's
 * stand-in that picks what runs from files in the folder (version-manager-shims.ts), a `-` read
 * as a file name that does not exist yet (no-dash-file.ts).
 */
export async function commandDiskReason(
  commands: SimpleCommand[],
  plan: CallPlan,
  base: string,
  root: string,
): Promise<string | undefined> {
  return (
    workspacePathProgram(commands, root) ??
    versionManagerStandIn(commands, process.env.PATH, base) ??
    missingDashFile(commands, base) ??
    (await linkedSpecialFile(plan.mentions ?? [], base)) ??
    repositoryPrograms(commands, base)
  );
}
