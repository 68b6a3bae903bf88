import type { Command } from "commander";
import { rootOf, rootOption } from "../cli-options.ts";
import { withEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";

/**
 * `lathe session close <ID>`: end a persistent session, dropping its read-state and sidecars;
 * `lathe session delete <ID>`: remove it and everything it recorded.
 */
export function registerSessionCommand(program: Command): void {
  const session = program
    .command("session")
    .description("Manage persistent sessions (see `lathe call --session`).");
  session
    .command("close")
    .description("End a persistent session: its read-state, approvals and sidecar files are removed.")
    .argument("<id>", "the session id given to `lathe call --session`")
    .addOption(rootOption())
    .action(async (id: string, options: { root?: string }) => {
      await withEngine(rootOf(options), (engine) => engine.closeSession(id), { extensions: false });
      await writeStdout(`Closed session ${id}.\n`);
    });
  session
    .command("delete")
    .description(
      "Delete a session for good: its conversation, checkpoints (and the file contents only they kept), todos, approvals and folder. The audit trail keeps its rows.",
    )
    .argument("<id>", "the session id")
    .addOption(rootOption())
    .action(async (id: string, options: { root?: string }) => {
      await withEngine(rootOf(options), (engine) => engine.deleteSession(id), { extensions: false });
      await writeStdout(`Deleted session ${id}.\n`);
    });
}
