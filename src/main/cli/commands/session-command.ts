import type { Command } from "commander";
import { counted } from "../../engine/light.ts";
import { CliError } from "../cli-error.ts";
import { limitParser, parseSessionId, rootOf, rootOption } from "../cli-options.ts";
import { ExitCode } from "../exit-codes.ts";
import { withEngine } from "../open-engine.ts";
import { writeStderr, writeStdout } from "../output.ts";
import { shownText } from "../shown-path.ts";
import { mergeSessions, sessionJson, sessionTable } from "../session-table.ts";
import { registerSessionCompactCommand } from "./session-compact-command.ts";

interface ListOptions {
  root?: string;
  search?: string;
  limit: number;
  json?: boolean;
}

/**
 * `lathe session close <ID>`: end a persistent session, dropping its read-state and sidecars;
 * `lathe session delete <ID>`: remove it and everything it recorded.
 */
export function registerSessionCommand(program: Command): void {
  const session = program
    .command("session")
    .description(
      "List, rename, compact, close and delete sessions (`lathe run`'s conversations, `lathe call`/`lathe batch --session`).",
    );
  session
    .command("list")
    .description(
      "List a folder's sessions, newest first: its conversations (`lathe run`, the app) and the sessions of `lathe call`/`lathe batch --session`.",
    )
    .addOption(rootOption())
    .option(
      "--search <text>",
      "only sessions whose title, task or text (prompts and answers) contains this, any case",
    )
    .option("--limit <n>", "the newest N sessions", limitParser(5000), 50)
    .option("--json", "one JSON object per line (JSONL)")
    .action(async (options: ListOptions) => {
      const { root, sessions } = await withEngine(
        rootOf(options),
        async (engine) => {
          // Once after an upgrade: a search on a store an older Lathe recorded indexes it first.
          const backlog = options.search !== undefined ? engine.searchBacklog() : 0;
          if (backlog > 0) {
            await writeStderr(
              `lathe: indexing ${counted(backlog, "message")} recorded by an older Lathe for search (once; later searches are instant)…\n`,
            );
            await engine.searchIndexed();
          }
          const catalog = engine.sessionCatalog();
          const filter = {
            root: engine.root,
            ...(options.search !== undefined ? { query: options.search } : {}),
            limit: options.limit,
          };
          return {
            root: engine.root,
            sessions: mergeSessions(catalog.list(filter), catalog.listCallSessions(filter), options.limit),
          };
        },
        { extensions: false },
      );
      if (options.json) {
        await writeStdout(sessions.length > 0 ? `${sessions.map(sessionJson).join("\n")}\n` : "");
        return;
      }
      if (sessions.length === 0) {
        await writeStdout(
          options.search !== undefined
            ? `No session in ${root} matches "${options.search}".\n`
            : `No sessions in ${root} yet. Start one with: lathe run "<prompt>"\n`,
        );
        return;
      }
      await writeStdout(sessionTable(sessions));
    });
  session
    .command("rename")
    .description('Give a session a title of your choosing ("" brings back the automatic one).')
    .argument("<id>", "the session id", parseSessionId)
    .argument("<title>", "the new title (at most 200 characters)")
    .addOption(rootOption())
    .action(async (id: string, title: string, options: { root?: string }) => {
      const renamed = await withEngine(
        rootOf(options),
        async (engine) => {
          const catalog = engine.sessionCatalog();
          engine.requireOwnSession(id, "rename it");
          try {
            const kept = catalog.rename(id, title);
            // A call session has no prompt to be titled by: cleared, it has no title.
            return kept !== "" ? { custom: kept } : { automatic: catalog.get(id)?.title ?? "" };
          } catch (err) {
            if (err instanceof RangeError) throw new CliError(err.message, ExitCode.usage);
            throw err;
          }
        },
        { extensions: false },
      );
      await writeStdout(
        renamed.custom !== undefined
          ? `Renamed session ${id}: ${shownText(renamed.custom)}\n`
          : `Session ${id} has its automatic title again: ${renamed.automatic || "(none yet)"}\n`,
      );
    });
  registerSessionCompactCommand(session);
  session
    .command("close")
    .description("End a persistent session: its read-state, approvals and sidecar files are removed.")
    .argument("<id>", "the session id given to `lathe call --session`", parseSessionId)
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
    .argument("<id>", "the session id", parseSessionId)
    .addOption(rootOption())
    .action(async (id: string, options: { root?: string }) => {
      await withEngine(rootOf(options), (engine) => engine.deleteSession(id), { extensions: false });
      await writeStdout(`Deleted session ${id}.\n`);
    });
}
