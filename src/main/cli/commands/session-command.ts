import type { Command } from "commander";
import type { SessionSummary } from "../../engine/index.ts";
import { CliError } from "../cli-error.ts";
import { limitParser, parseSessionId, rootOf, rootOption } from "../cli-options.ts";
import { ExitCode } from "../exit-codes.ts";
import { withEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";

interface ListOptions {
  root?: string;
  search?: string;
  limit: number;
  json?: boolean;
}

/** Longest model shown in the table: a GGUF file's path is cut from the left, keeping its name. */
const MODEL_WIDTH = 32;

const when = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

function shortModel(model: string): string {
  return model.length <= MODEL_WIDTH ? model : `…${model.slice(model.length - MODEL_WIDTH + 1)}`;
}

/** The sessions as a table: id, last update (UTC), model, title (a task's says whose task it is). */
function table(sessions: readonly SessionSummary[]): string {
  const rows = sessions.map((s) => [
    s.id,
    when(s.updatedAt),
    shortModel(s.model),
    `${s.parentId ? `(task of ${s.parentId}) ` : ""}${s.title || "(no prompt yet)"}`,
  ]);
  const header = ["ID", "UPDATED (UTC)", "MODEL", "TITLE"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  return `${[header, ...rows].map(line).join("\n")}\n`;
}

/**
 * `lathe session close <ID>`: end a persistent session, dropping its read-state and sidecars;
 * `lathe session delete <ID>`: remove it and everything it recorded.
 */
export function registerSessionCommand(program: Command): void {
  const session = program
    .command("session")
    .description(
      "List, rename, close and delete sessions (`lathe run`'s conversations, `lathe call --session`).",
    );
  session
    .command("list")
    .description("List a folder's recorded sessions (its `lathe run` and app conversations), newest first.")
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
        async (engine) => ({
          root: engine.root,
          sessions: engine.sessionCatalog().list({
            root: engine.root,
            ...(options.search !== undefined ? { query: options.search } : {}),
            limit: options.limit,
          }),
        }),
        { extensions: false },
      );
      if (options.json) {
        const lines = sessions.map((s) =>
          JSON.stringify({
            id: s.id,
            title: s.title,
            title_source: s.titleSource,
            agent: s.agent,
            model: s.model,
            parent_id: s.parentId ?? null,
            created_at: new Date(s.createdAt).toISOString(),
            updated_at: new Date(s.updatedAt).toISOString(),
          }),
        );
        await writeStdout(lines.length > 0 ? `${lines.join("\n")}\n` : "");
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
      await writeStdout(table(sessions));
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
            catalog.rename(id, title);
          } catch (err) {
            if (err instanceof RangeError) throw new CliError(err.message, ExitCode.usage);
            throw err;
          }
          return catalog.get(id);
        },
        { extensions: false },
      );
      await writeStdout(
        renamed?.titleSource === "custom"
          ? `Renamed session ${id}: ${renamed.title}\n`
          : `Session ${id} has its automatic title again: ${renamed?.title || "(no prompt yet)"}\n`,
      );
    });
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
