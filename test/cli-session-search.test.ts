import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../src/main/engine/store/migrations.ts";
import { useCliWorld } from "./support/cli-world.ts";

// `lathe session list --search` on a store an older Lathe recorded: the first search indexes its
// messages (saying so, once), finds what the old search found, and later searches say nothing.

const world = useCliWorld("lathe-session-search-");

/** lathe.db as the Lathe before the text index left it: conversations of world.root. */
function oldStore(conversations: Record<string, string>): void {
  const before = MIGRATIONS.findIndex((m) => m.includes("message_text_index"));
  const db = new Database(path.join(world.home, "lathe.db"));
  db.pragma("journal_mode = WAL");
  for (const migration of MIGRATIONS.slice(0, before)) db.exec(migration);
  db.pragma(`user_version = ${before}`);
  let id = 0;
  for (const [session, prompt] of Object.entries(conversations)) {
    id += 1;
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, ?)").run(session, world.root, id);
    db.prepare(
      "INSERT INTO conversations (session_id, agent, model, created_at, updated_at) VALUES (?, 'default', 'ollama:m', ?, ?)",
    ).run(session, id, id);
    db.prepare(
      "INSERT INTO messages (id, session_id, seq, run_id, role, created_at) VALUES (?, ?, 0, 'r', 'user', ?)",
    ).run(id, session, id);
    db.prepare("INSERT INTO message_parts (message_id, position, type, text) VALUES (?, 0, 'text', ?)").run(
      id,
      prompt,
    );
  }
  // Many more messages, in one more conversation: more than the background gets through while
  // the command starts, so the search itself has a backlog left to index.
  db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s-filler', ?, 0)").run(world.root);
  db.prepare(
    "INSERT INTO conversations (session_id, agent, model, created_at, updated_at) VALUES ('s-filler', 'default', 'ollama:m', 0, 0)",
  ).run();
  db.transaction(() => {
    for (let seq = 0; seq < FILLER; seq++) {
      const message = db
        .prepare(
          "INSERT INTO messages (session_id, seq, run_id, role, created_at) VALUES ('s-filler', ?, 'r', 'user', 0)",
        )
        .run(seq).lastInsertRowid;
      db.prepare(
        "INSERT INTO message_parts (message_id, position, type, text) VALUES (?, 0, 'text', 'zzz')",
      ).run(message);
    }
  })();
  db.close();
}

const FILLER = 5000;

const search = (text: string) =>
  world.lathe(["session", "list", "--json", `--search=${text}`], { env: { LATHE_DAEMON: "off" } });
const ids = (stdout: string): string[] =>
  stdout
    .trimEnd()
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { id: string }).id)
    .sort();

describe("lathe session list --search on a store an older Lathe recorded", () => {
  it("indexes it on the first search, saying so once, and finds what the old search found", async () => {
    oldStore({
      "s-old-1": "Fix the flaky test in src/app.ts",
      "s-old-2": 'Run rm -rf build/ then say "done"',
      "s-old-3": "Переведи README на русский",
    });
    const first = await search("flaky");
    expect(first.code).toBe(0);
    // Said when there is a backlog left to index as the search starts (nearly always, with so many).
    expect(first.stderr).toMatch(
      /^(lathe: indexing \d+ messages? recorded by an older Lathe for search \(once[^\n]*\n)?$/,
    );
    expect(ids(first.stdout)).toEqual(["s-old-1"]);

    for (const [text, found] of [
      ["FLAKY", ["s-old-1"]],
      ["lak", ["s-old-1"]],
      ["-rf", ["s-old-2"]],
      ['"done"', ["s-old-2"]],
      ["src/app.ts", ["s-old-1"]],
      ["РУССКИЙ", ["s-old-3"]],
      ["te", ["s-old-1"]],
      ["rm", ["s-old-2"]],
      ["kangaroo", []],
    ] as const) {
      const run = await search(text);
      expect({ text, code: run.code, stderr: run.stderr, ids: ids(run.stdout) }).toEqual({
        text,
        code: 0,
        stderr: "",
        ids: found,
      });
    }
  });
});
