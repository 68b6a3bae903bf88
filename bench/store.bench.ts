// The store as it grows: `lathe session list` and `lathe session delete` must cost what the
// listed or deleted sessions hold, not what the rest of the store holds (every call ever audited
// in the folder, every checkpoint of every session). Each is measured on two stores that differ
// only in that rest (ten times more of it: the calls of the folder's agent runs, the checkpoints
// of other sessions); goal: under 50 ms each on the larger store, a person's command answering at
// once. Before their index fixes, the list walked the folder's whole audit trail once per call
// session (7.6 s here) and the delete every checkpoint once per checkpoint deleted (2.4 s).
//
// Then `session list --search` on a store of SEARCH_MESSAGES messages: through the trigram index
// (migration 12) beside the LIKE over every message it replaced, measured in the same run on the
// same store; and what upgrading such a store costs: the migration itself, then indexing the
// messages it holds, a chunk per transaction (the longest chunk is how long the lock is held).
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { openDatabase, writeTransaction, type Db } from "../src/main/engine/store/database.ts";
import { MIGRATIONS } from "../src/main/engine/store/migrations.ts";
import { SessionCatalog } from "../src/main/engine/store/session-catalog.ts";
import { indexBacklogChunk } from "../src/main/engine/store/text-index-backlog.ts";
import { compare, heading, median, sample } from "./lib/report.ts";

const ROOT = "/work/bench-project";
const CALL_SESSIONS = 200;
const CALLS_PER_SESSION = 10;
const DELETED_CHECKPOINTS = 1_000;

/**
 * A store of `CALL_SESSIONS` call sessions in ROOT with their calls, `calls` calls of the folder's
 * agent runs, and `checkpoints` checkpoints of other sessions.
 */
function buildStore(db: Db, calls: number, checkpoints: number): void {
  writeTransaction(db, () => {
    const session = db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, 0)");
    for (let i = 0; i < CALL_SESSIONS; i++) session.run(`cs${i}`, ROOT);
    const audit = db.prepare(
      `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES (?, ?, ?, 'read', '{"path":"a.ts"}', '[]', 'output', '{}', 1, ?)`,
    );
    // Each call session's own calls, then the folder's other calls (its agent runs').
    for (let i = 0; i < CALL_SESSIONS * CALLS_PER_SESSION; i++)
      audit.run(`c${i}`, `cs${i % CALL_SESSIONS}`, ROOT, i);
    for (let i = 0; i < calls; i++) audit.run(`r${i}`, `s-run-${i % 50}`, ROOT, i);
    const checkpoint = db.prepare(
      "INSERT INTO checkpoints (session_id, root, kind, tool, created_at) VALUES (?, ?, 'tool', 'write', 0)",
    );
    for (let i = 0; i < checkpoints; i++) checkpoint.run(`cs${1 + (i % (CALL_SESSIONS - 1))}`, ROOT);
  })();
}

/** Add the session that is deleted, with its checkpoints (each restoring the one before it). */
function addDoomed(db: Db): void {
  writeTransaction(db, () => {
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('doomed', ?, 0)").run(ROOT);
    const checkpoint = db.prepare(
      "INSERT INTO checkpoints (session_id, root, kind, tool, created_at) VALUES ('doomed', ?, 'tool', 'write', 0)",
    );
    for (let i = 0; i < DELETED_CHECKPOINTS; i++) checkpoint.run(ROOT);
  })();
}

const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-store-"));
const figures: Record<"small" | "large", { list: number; remove: number; calls: number; rest: number }> = {
  small: { list: 0, remove: 0, calls: 20_000, rest: 5_000 },
  large: { list: 0, remove: 0, calls: 200_000, rest: 50_000 },
};
for (const [name, f] of Object.entries(figures)) {
  const db = openDatabase(path.join(dir, `${name}.db`));
  buildStore(db, f.calls, f.rest);
  const catalog = new SessionCatalog(db);
  f.list = median(await sample(() => catalog.listCallSessions({ root: ROOT, limit: 50 }), 5));
  const deletes: number[] = [];
  for (let run = 0; run < 3; run++) {
    addDoomed(db);
    deletes.push(...(await sample(() => catalog.delete("doomed"), 1, 0)));
  }
  f.remove = median(deletes);
  db.close();
}

heading(`The store as it grows (${CALL_SESSIONS} call sessions in one folder)`);
const { small, large } = figures;
compare({
  what: "session list (call sessions)",
  ours: { label: `beside ${large.calls} other calls in the folder`, value: large.list },
  theirs: { label: `beside ${small.calls}`, value: small.list },
  goal: "< 50 ms on the larger store",
  met: large.list < 50,
});
compare({
  what: `session delete (${DELETED_CHECKPOINTS} checkpoints)`,
  ours: { label: `among ${large.rest} other checkpoints`, value: large.remove },
  theirs: { label: `among ${small.rest}`, value: small.remove },
  goal: "< 50 ms on the larger store",
  met: large.remove < 50,
});

// --- session list --search --------------------------------------------------------------------

const SEARCH_MESSAGES = 80_000;
const SEARCH_SESSIONS = 1_000;
const WORDS = (
  "the a of to and in is it for on that with as this be test file function error build fix add " +
  "change run type value return import export module config path read write update check list " +
  "session model agent tool call result output input string number array object promise async"
).split(" ");

/** The same pseudo-random words every run: a prompt or answer of 20 to 200 of them. */
function textOf(i: number): string {
  let x = (i * 2654435761) >>> 0;
  const next = (): number => (x = (x * 1103515245 + 12345) >>> 0);
  const words: string[] = [];
  for (let n = 20 + (next() % 180); n > 0; n--) words.push(WORDS[next() % WORDS.length] as string);
  return words.join(" ");
}

/**
 * A store as the Lathe before the index left it: SEARCH_MESSAGES messages of text in
 * SEARCH_SESSIONS conversations of ROOT, every other message also with a tool call. One rare
 * word is said once, in the oldest conversation: a search for it must look at every message.
 */
function buildSearchStore(file: string): void {
  const db = new Database(file);
  const before = MIGRATIONS.findIndex((m) => m.includes("message_text_index"));
  for (const migration of MIGRATIONS.slice(0, before)) db.exec(migration);
  db.pragma(`user_version = ${before}`);
  db.transaction(() => {
    const session = db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, 0)");
    const conversation = db.prepare(
      "INSERT INTO conversations (session_id, agent, model, created_at, updated_at) VALUES (?, 'default', 'ollama:m', ?, ?)",
    );
    for (let i = 0; i < SEARCH_SESSIONS; i++) {
      session.run(`s${i}`, ROOT);
      conversation.run(`s${i}`, i, i);
    }
    const message = db.prepare(
      "INSERT INTO messages (session_id, seq, run_id, role, created_at) VALUES (?, ?, 'r', ?, 0)",
    );
    const part = db.prepare(
      "INSERT INTO message_parts (message_id, position, type, text, tool_call_id, tool_name, json) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (let i = 0; i < SEARCH_MESSAGES; i++) {
      const id = message.run(
        `s${i % SEARCH_SESSIONS}`,
        Math.floor(i / SEARCH_SESSIONS),
        i % 2 ? "assistant" : "user",
      ).lastInsertRowid;
      part.run(id, 0, "text", i === 0 ? `${textOf(i)} kangaroo` : textOf(i), null, null, null);
      if (i % 2) part.run(id, 1, "tool-call", null, `c${i}`, "read", '{"path":"src/app.ts"}');
    }
  })();
  db.close();
}

/** `session list --search` as it was before the index (SessionCatalog.list): a LIKE over every message. */
function likeScan(db: Db, query: string): unknown[] {
  const pattern = `%${query}%`;
  return db
    .prepare(
      `SELECT c.session_id AS id, s.root, c.agent, c.model, c.parent_session_id AS parentId,
              c.created_at AS createdAt, c.updated_at AS updatedAt, t.title AS custom,
              (SELECT ct.description FROM child_tasks ct WHERE ct.child_session_id = c.session_id LIMIT 1) AS task,
              (SELECT p.text FROM messages m JOIN message_parts p ON p.message_id = m.id
                WHERE m.session_id = c.session_id AND m.role = 'user' AND p.type = 'text'
                ORDER BY m.seq, p.position LIMIT 1) AS prompt
       FROM conversations c JOIN sessions s ON s.id = c.session_id
       LEFT JOIN session_titles t ON t.session_id = c.session_id
       WHERE s.root = ? AND (t.title LIKE ?
         OR EXISTS (SELECT 1 FROM child_tasks ct WHERE ct.child_session_id = c.session_id AND ct.description LIKE ?)
         OR EXISTS (SELECT 1 FROM messages m JOIN message_parts p ON p.message_id = m.id
                    WHERE m.session_id = c.session_id AND p.type = 'text' AND p.text LIKE ?))
       ORDER BY c.updated_at DESC, c.session_id LIMIT 50`,
    )
    .all(ROOT, pattern, pattern, pattern);
}

const searchFile = path.join(dir, "search.db");
buildSearchStore(searchFile);
const sizeBefore = (await stat(searchFile)).size;
const migrationStart = performance.now();
const searchDb = openDatabase(searchFile);
const migration = performance.now() - migrationStart;
const searchCatalog = new SessionCatalog(searchDb);
const rareSearch = (): string[] =>
  searchCatalog.list({ root: ROOT, query: "kangaroo", limit: 50 }).map((s) => s.id);
// Before the backlog is indexed, a search looks at its messages with LIKE.
const backlogSearch = median(await sample(rareSearch, 3));
const chunks: number[] = [];
for (let more = true; more;) {
  const t0 = performance.now();
  more = indexBacklogChunk(searchDb);
  chunks.push(performance.now() - t0);
}
searchDb.pragma("wal_checkpoint(TRUNCATE)");
const sizeAfter = (await stat(searchFile)).size;
if (rareSearch().join() !== "s0" || likeScan(searchDb, "kangaroo").length !== 1)
  throw new Error(`the search found ${rareSearch().join() || "nothing"}, not s0 alone`);
const search = {
  rare: median(await sample(rareSearch, 5)),
  rareLike: median(await sample(() => likeScan(searchDb, "kangaroo"), 3)),
  common: median(await sample(() => searchCatalog.list({ root: ROOT, query: "promise", limit: 50 }), 5)),
  commonLike: median(await sample(() => likeScan(searchDb, "promise"), 3)),
};
searchDb.close();

heading(`session list --search (${SEARCH_MESSAGES} messages in ${SEARCH_SESSIONS} conversations)`);
compare({
  what: "a word said once (every message looked at)",
  ours: { label: "trigram index", value: search.rare },
  theirs: { label: "LIKE over every message (before)", value: search.rareLike },
  goal: "< 50 ms",
  met: search.rare < 50,
});
compare({
  what: "a word of every conversation (first 50 listed)",
  ours: { label: "index, then LIKE newest first", value: search.common },
  theirs: { label: "LIKE over every message (before)", value: search.commonLike },
  goal: "< 50 ms",
  met: search.common < 50,
});
compare({
  what: "upgrading: migration 12 on opening the store",
  ours: { label: "migration", value: migration },
  theirs: { label: "a search before the backlog is indexed", value: backlogSearch },
  goal: "< 100 ms",
  met: migration < 100,
});
compare({
  what: `indexing the backlog (${chunks.length} chunks, each its own transaction)`,
  ours: { label: "longest chunk (the lock held)", value: Math.max(...chunks) },
  theirs: { label: "all of it", value: chunks.reduce((a, b) => a + b, 0) },
  goal: "longest chunk < 1 s (another process waits 5 s for the lock)",
  met: Math.max(...chunks) < 1000,
});
console.log(
  `store size: ${(sizeBefore / 2 ** 20).toFixed(1)} MiB before the index, ${(sizeAfter / 2 ** 20).toFixed(1)} MiB with it`,
);

await rm(dir, { recursive: true, force: true });
