import { type Db, writeTransaction } from "./database.ts";
import { unindexedBelow } from "./text-index-backlog.ts";
import { type ContainsMatch, containsMatch, registerFold, trigramPhrase } from "./text-match.ts";

/** A recorded conversation as a list of sessions shows it. */
export interface SessionSummary {
  id: string;
  /** The name the person gave it, else the task's description, else its first prompt (one line). */
  title: string;
  /** Where the title came from: renamed by the person, a task's description, the first prompt, or nothing yet. */
  titleSource: "custom" | "task" | "prompt" | "none";
  agent: string;
  model: string;
  /** The session whose `task` call started this one. */
  parentId: string | undefined;
  createdAt: number;
  updatedAt: number;
}

/**
 * A persistent session without a conversation: opened by `lathe call --session ID` or `lathe
 * batch --session ID`. Its read-state, approvals and checkpoints are real (close, delete,
 * checkpoints and restore work on it), so a person's list shows it, marked as such.
 */
export interface CallSessionSummary {
  id: string;
  /** The name the person gave it; "" when none (it has no prompt to be titled by). */
  title: string;
  titleSource: "custom" | "none";
  createdAt: number;
  /** Its latest tool call in its folder, else when it was opened. */
  updatedAt: number;
  /** When it was closed: a closed one is listed only while it keeps checkpoints to restore. */
  closedAt: number | undefined;
  /** Tool calls the audit trail holds for it in its folder. */
  calls: number;
  checkpoints: number;
}

interface SessionListOptions {
  /** Only sessions of this workspace folder. */
  root: string;
  /**
   * Only sessions whose title, task description or text (prompts and answers) contains this, in
   * any case and any script (see text-match.ts).
   */
  query?: string;
  /** At most this many, newest first (default 500). */
  limit?: number;
}

/**
 * Most matches of the trigram index a search collects: a text found more often is so common that
 * looking conversation by conversation, newest first, finds the first ones listed sooner.
 */
const INDEX_MATCHES_COLLECTED = 5000;

/** Longest title kept from a prompt; the rest is cut with an ellipsis. */
export const TITLE_LENGTH = 80;
/** Longest title a person may give. */
const MAX_TITLE_LENGTH = 200;

interface SummaryRow {
  id: string;
  root: string;
  agent: string;
  model: string;
  parentId: string | null;
  createdAt: number;
  updatedAt: number;
  custom: string | null;
  task: string | null;
  prompt: string | null;
}

/** One line of at most TITLE_LENGTH characters from a prompt: whitespace collapsed, cut at a word. */
export function titleFromText(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= TITLE_LENGTH) return line;
  const cut = line.slice(0, TITLE_LENGTH - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function summaryOf(row: SummaryRow): SessionSummary {
  const custom = row.custom?.trim();
  const task = row.task?.trim();
  const prompt = row.prompt ? titleFromText(row.prompt) : "";
  const [title, titleSource]: [string, SessionSummary["titleSource"]] = custom
    ? [custom, "custom"]
    : task
      ? [titleFromText(task), "task"]
      : prompt
        ? [prompt, "prompt"]
        : ["", "none"];
  return {
    id: row.id,
    title,
    titleSource,
    agent: row.agent,
    model: row.model,
    parentId: row.parentId ?? undefined,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const SUMMARY_SELECT = `
  SELECT c.session_id AS id, s.root, c.agent, c.model, c.parent_session_id AS parentId,
         c.created_at AS createdAt, c.updated_at AS updatedAt,
         t.title AS custom,
         (SELECT ct.description FROM child_tasks ct WHERE ct.child_session_id = c.session_id LIMIT 1) AS task,
         (SELECT p.text FROM messages m JOIN message_parts p ON p.message_id = m.id
           WHERE m.session_id = c.session_id AND m.role = 'user' AND p.type = 'text'
           ORDER BY m.seq, p.position LIMIT 1) AS prompt
  FROM conversations c
  JOIN sessions s ON s.id = c.session_id
  LEFT JOIN session_titles t ON t.session_id = c.session_id`;

/**
 * The recorded conversations of a folder as the app's session list shows them (title, time,
 * model, the task that started it), and what a person does to them: rename, delete (with the
 * tasks they started), search. Reads and writes the same SQLite database as the conversations.
 */
export class SessionCatalog {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
    registerFold(db);
  }

  list(options: SessionListOptions): SessionSummary[] {
    const limit = Math.max(1, Math.min(options.limit ?? 500, 5000));
    const query = options.query?.trim() ?? "";
    if (query === "") return this.listWhere("s.root = @root", { root: options.root, limit });
    const like = containsMatch(query);
    const messages = this.messagesMatch(query, like);
    return this.listWhere(
      `s.root = @root AND (
         ${like.sql("t.title")}
         OR EXISTS (SELECT 1 FROM child_tasks ct WHERE ct.child_session_id = c.session_id AND ${like.sql("ct.description")})
         OR ${messages.sql})`,
      { ...messages.parameters, root: options.root, pattern: like.pattern, limit },
    );
  }

  /**
   * The newest `@limit` conversations that meet `condition` (on c, s and t as in SUMMARY_SELECT),
   * summarised. They are picked first and only they are summarised: a summary's title looks up the
   * first prompt, and doing that for each of a thousand conversations before keeping fifty of them
   * cost more than the search itself.
   */
  private listWhere(condition: string, parameters: Record<string, string | number>): SessionSummary[] {
    const rows = this.db
      .prepare(
        `${SUMMARY_SELECT}
         WHERE c.session_id IN (
           SELECT c.session_id FROM conversations c
           JOIN sessions s ON s.id = c.session_id
           LEFT JOIN session_titles t ON t.session_id = c.session_id
           WHERE ${condition}
           ORDER BY c.updated_at DESC, c.session_id LIMIT @limit)
         ORDER BY c.updated_at DESC, c.session_id`,
      )
      .all(parameters) as SummaryRow[];
    return rows.map(summaryOf);
  }

  /**
   * The condition, on conversation `c`, that one of its prompts or answers contains `query`, with
   * the parameters it adds to `like`'s. Through the trigram index (migration 12) when the text has
   * matches few enough to collect (a rare word: milliseconds where a LIKE over every message took
   * a second and more); by LIKE, conversation by conversation, newest first, when the text is too
   * short for trigrams, or so common that the first conversations listed have it (collecting tens
   * of thousands of matches would cost more). Messages not indexed yet (text-index-backlog.ts) are
   * looked at by LIKE too.
   */
  private messagesMatch(
    query: string,
    like: ContainsMatch,
  ): { sql: string; parameters: Record<string, string | number> } {
    const scan = (range: string): string =>
      `EXISTS (SELECT 1 FROM messages m JOIN message_parts p ON p.message_id = m.id
               WHERE m.session_id = c.session_id ${range} AND p.type = 'text' AND ${like.sql("p.text")})`;
    const phrase = trigramPhrase(query);
    if (phrase === undefined) return { sql: scan(""), parameters: {} };
    const matches = this.db
      .prepare(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM message_text_index WHERE message_text_index MATCH ? LIMIT ?)",
      )
      .get(phrase, INDEX_MATCHES_COLLECTED) as { n: number };
    if (matches.n >= INDEX_MATCHES_COLLECTED) return { sql: scan(""), parameters: {} };
    const indexed = `c.session_id IN (SELECT m.session_id FROM messages m WHERE m.id IN
      (SELECT rowid >> 20 FROM message_text_index WHERE message_text_index MATCH @phrase))`;
    const below = unindexedBelow(this.db);
    if (below === undefined) return { sql: indexed, parameters: { phrase } };
    return { sql: `(${indexed} OR ${scan("AND m.id < @below")})`, parameters: { phrase, below } };
  }

  /**
   * A folder's call sessions (see CallSessionSummary), newest first: the open ones, and the
   * closed ones that still keep checkpoints. `query` matches the name a person gave one.
   * A session's calls are found by its id (audit_by_session); `+a.root` keeps SQLite from
   * walking every call of the folder instead (audit_by_root), once per session: with 1,000 call
   * sessions and 300,000 calls in one folder, `lathe session list` took 40 s that way.
   */
  listCallSessions(options: SessionListOptions): CallSessionSummary[] {
    const limit = Math.max(1, Math.min(options.limit ?? 500, 5000));
    const query = options.query?.trim() ?? "";
    const rows = this.db
      .prepare(
        `SELECT id, custom, createdAt, closedAt, calls, checkpoints, COALESCE(lastCall, createdAt) AS updatedAt
         FROM (
           SELECT s.id, t.title AS custom, s.created_at AS createdAt, s.closed_at AS closedAt,
                  (SELECT MAX(a.started_at) FROM audit a WHERE a.session_id = s.id AND +a.root = s.root) AS lastCall,
                  (SELECT COUNT(*) FROM audit a WHERE a.session_id = s.id AND +a.root = s.root) AS calls,
                  (SELECT COUNT(*) FROM checkpoints k WHERE k.session_id = s.id) AS checkpoints
           FROM sessions s LEFT JOIN session_titles t ON t.session_id = s.id
           WHERE s.root = @root
             AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.session_id = s.id)
             ${query === "" ? "" : `AND ${containsMatch(query).sql("t.title")}`})
         WHERE closedAt IS NULL OR checkpoints > 0
         ORDER BY updatedAt DESC, id LIMIT @limit`,
      )
      .all({
        root: options.root,
        limit,
        ...(query === "" ? {} : { pattern: containsMatch(query).pattern }),
      }) as Array<{
      id: string;
      custom: string | null;
      createdAt: number;
      closedAt: number | null;
      calls: number;
      checkpoints: number;
      updatedAt: number;
    }>;
    return rows.map((row) => {
      const custom = row.custom?.trim() ?? "";
      return {
        id: row.id,
        title: custom,
        titleSource: custom === "" ? "none" : "custom",
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        closedAt: row.closedAt ?? undefined,
        calls: row.calls,
        checkpoints: row.checkpoints,
      };
    });
  }

  /** One recorded conversation's summary, whatever its folder. */
  get(sessionId: string): (SessionSummary & { root: string }) | undefined {
    const row = this.db.prepare(`${SUMMARY_SELECT} WHERE c.session_id = ?`).get(sessionId) as
      SummaryRow | undefined;
    return row ? { ...summaryOf(row), root: row.root } : undefined;
  }

  /**
   * Give a session a name of the person's choosing (an empty title brings back the automatic
   * one). Returns the name kept: spaces collapsed, "" when cleared.
   */
  rename(sessionId: string, title: string): string {
    const trimmed = title.replace(/\s+/g, " ").trim();
    if (trimmed.length > MAX_TITLE_LENGTH) {
      throw new RangeError(
        `A session title has at most ${MAX_TITLE_LENGTH} characters; this one has ${trimmed.length}.`,
      );
    }
    if (trimmed === "") {
      this.db.prepare("DELETE FROM session_titles WHERE session_id = ?").run(sessionId);
      return "";
    }
    this.db
      .prepare(
        `INSERT INTO session_titles (session_id, title, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at`,
      )
      .run(sessionId, trimmed, Date.now());
    return trimmed;
  }

  /** The conversation and every task session it started, nested to any depth: the ids, the given one first. */
  family(sessionId: string): string[] {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE tree(id, depth) AS (
           SELECT ?, 0
           UNION
           SELECT c.session_id, tree.depth + 1 FROM conversations c JOIN tree ON c.parent_session_id = tree.id
           UNION
           SELECT ct.child_session_id, tree.depth + 1 FROM child_tasks ct JOIN tree ON ct.parent_session_id = tree.id
         )
         SELECT id, MIN(depth) AS depth FROM tree GROUP BY id ORDER BY depth, id`,
      )
      .all(sessionId) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /**
   * Delete a conversation and the task sessions it started, with everything recorded for them
   * (messages, run events, todo lists, approvals, read state, titles) in one transaction. The
   * audit trail keeps its rows: it records what tools did, whatever happens to the chat.
   * Returns the ids deleted, the given one first; empty when there was no such session.
   */
  delete(sessionId: string): string[] {
    const exists = this.db.prepare("SELECT 1 FROM sessions WHERE id = ?").get(sessionId) !== undefined;
    if (!exists) return [];
    const ids = this.family(sessionId).filter(
      (id) => this.db.prepare("SELECT 1 FROM sessions WHERE id = ?").get(id) !== undefined,
    );
    const dropSession = this.db.prepare("DELETE FROM sessions WHERE id = ?");
    const dropLinks = this.db.prepare("DELETE FROM child_tasks WHERE child_session_id = ?");
    writeTransaction(this.db, () => {
      for (const id of ids) {
        dropLinks.run(id);
        dropSession.run(id);
      }
    })();
    return ids;
  }
}
