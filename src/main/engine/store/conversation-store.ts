import type { Envelope } from "../tools/envelope.ts";
import { type Db, writeTransaction } from "./database.ts";

/** One piece of a stored message. */
export type StoredPart =
  | { type: "text"; text: string; cutOff?: true }
  | { type: "reasoning"; text: string; cutOff?: true }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; envelope: Envelope };

type MessageRole = "user" | "assistant" | "tool";

export interface NewMessage {
  runId: string;
  role: MessageRole;
  parts: StoredPart[];
}

export interface StoredMessage extends NewMessage {
  /** Position in the conversation, from 0. */
  seq: number;
  createdAt: number;
}

/** A recorded run event, as JSON (the agent layer knows its shape). */
interface StoredEvent {
  seq: number;
  runId: string;
  type: string;
  data: unknown;
}

export interface ConversationRecord {
  sessionId: string;
  /** The workspace folder of the session. */
  root: string;
  agent: string;
  model: string;
  parentSessionId: string | null;
  createdAt: number;
  updatedAt: number;
}

interface ChildTask {
  parentSessionId: string;
  childSessionId: string;
  toolCallId: string | null;
  description: string;
  createdAt: number;
}

/** A person's prompt: the user message that starts a run. */
export interface StoredPrompt {
  /** The message's position in the conversation. */
  seq: number;
  runId: string;
  text: string;
  createdAt: number;
}

/**
 * A summary the model is sent in place of the conversation's messages up to `throughSeq` (which
 * stay in the store). It was made when the conversation had `madeAtSeq` messages.
 */
export interface StoredCompaction {
  id: number;
  runId: string | null;
  throughSeq: number;
  madeAtSeq: number;
  summary: string;
  /** The estimated tokens of what the model was sent before and after. */
  tokensBefore: number;
  tokensAfter: number;
  createdAt: number;
}

export type NewCompaction = Omit<StoredCompaction, "id" | "createdAt">;

/** What cutting a conversation removed. */
interface ConversationCut {
  messages: number;
  /** The runs whose messages and events were removed, in order. */
  runIds: string[];
  /** The tool call ids of the removed messages (their tasks' links are removed too). */
  toolCallIds: string[];
}

/** What one flush writes, in one transaction. */
export interface ConversationBatch {
  messages: Array<NewMessage & { seq: number }>;
  events: Array<{ seq: number; runId: string; type: string; json: string }>;
}

interface PartRow {
  message_id: number;
  type: StoredPart["type"];
  text: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  json: string | null;
}

function partColumns(part: StoredPart): [string | null, string | null, string | null, string | null] {
  switch (part.type) {
    case "text":
    case "reasoning":
      // A part the model never finished (its step was cut short) says so in the json column.
      return [part.text, null, null, part.cutOff ? JSON.stringify({ cutOff: true }) : null];
    case "tool-call":
      return [null, part.toolCallId, part.toolName, JSON.stringify(part.input ?? null)];
    case "tool-result":
      return [null, part.toolCallId, part.toolName, JSON.stringify(part.envelope)];
  }
}

function partOf(row: PartRow): StoredPart {
  switch (row.type) {
    case "text":
    case "reasoning": {
      const cutOff = row.json !== null && (JSON.parse(row.json) as { cutOff?: unknown }).cutOff === true;
      return { type: row.type, text: row.text ?? "", ...(cutOff ? { cutOff: true as const } : {}) };
    }
    case "tool-call":
      return {
        type: "tool-call",
        toolCallId: row.tool_call_id ?? "",
        toolName: row.tool_name ?? "",
        input: JSON.parse(row.json ?? "null"),
      };
    case "tool-result":
      return {
        type: "tool-result",
        toolCallId: row.tool_call_id ?? "",
        toolName: row.tool_name ?? "",
        envelope: JSON.parse(row.json ?? "null") as Envelope,
      };
  }
}

/**
 * Conversations in SQLite, beside the sessions and the audit trail: each session's messages and
 * their parts (text, reasoning, tool calls, tool result envelopes), the run events a replay
 * re-emits, and links from a parent session to the child sessions its tasks started.
 */
export class ConversationStore {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  get(sessionId: string): ConversationRecord | undefined {
    return this.db
      .prepare(
        `SELECT c.session_id AS sessionId, s.root, c.agent, c.model, c.parent_session_id AS parentSessionId,
                c.created_at AS createdAt, c.updated_at AS updatedAt
         FROM conversations c JOIN sessions s ON s.id = c.session_id WHERE c.session_id = ?`,
      )
      .get(sessionId) as ConversationRecord | undefined;
  }

  /** Start the conversation of a session (whose row must exist), or note the agent and model of a new turn. */
  begin(sessionId: string, info: { agent: string; model: string; parentSessionId?: string }): void {
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO conversations (session_id, agent, model, parent_session_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET agent = excluded.agent, model = excluded.model, updated_at = excluded.updated_at`,
      )
      .run(sessionId, info.agent, info.model, info.parentSessionId ?? null, now, now);
  }

  /** The next free sequence numbers for messages and events. */
  nextSeq(sessionId: string): { message: number; event: number } {
    const m = this.db
      .prepare("SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM messages WHERE session_id = ?")
      .get(sessionId) as {
      n: number;
    };
    const e = this.db
      .prepare("SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM run_events WHERE session_id = ?")
      .get(sessionId) as {
      n: number;
    };
    return { message: m.n, event: e.n };
  }

  /** Write a batch of messages and events atomically. */
  write(sessionId: string, batch: ConversationBatch): void {
    if (batch.messages.length === 0 && batch.events.length === 0) return;
    const insertMessage = this.db.prepare(
      "INSERT INTO messages (session_id, seq, run_id, role, created_at) VALUES (?, ?, ?, ?, ?)",
    );
    const insertPart = this.db.prepare(
      "INSERT INTO message_parts (message_id, position, type, text, tool_call_id, tool_name, json) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const insertEvent = this.db.prepare(
      "INSERT INTO run_events (session_id, seq, run_id, type, json) VALUES (?, ?, ?, ?, ?)",
    );
    const now = Date.now();
    writeTransaction(this.db, () => {
      for (const m of batch.messages) {
        const id = insertMessage.run(sessionId, m.seq, m.runId, m.role, now).lastInsertRowid;
        m.parts.forEach((part, position) => insertPart.run(id, position, part.type, ...partColumns(part)));
      }
      for (const e of batch.events) insertEvent.run(sessionId, e.seq, e.runId, e.type, e.json);
      if (batch.messages.length > 0) {
        this.db.prepare("UPDATE conversations SET updated_at = ? WHERE session_id = ?").run(now, sessionId);
      }
    })();
  }

  /** The conversation's messages, in order. */
  messages(sessionId: string): StoredMessage[] {
    const rows = this.db
      .prepare(
        "SELECT id, seq, run_id AS runId, role, created_at AS createdAt FROM messages WHERE session_id = ? ORDER BY seq",
      )
      .all(sessionId) as Array<{
      id: number;
      seq: number;
      runId: string;
      role: MessageRole;
      createdAt: number;
    }>;
    const parts = this.db
      .prepare(
        `SELECT p.message_id, p.type, p.text, p.tool_call_id, p.tool_name, p.json
         FROM message_parts p JOIN messages m ON m.id = p.message_id
         WHERE m.session_id = ? ORDER BY p.message_id, p.position`,
      )
      .all(sessionId) as PartRow[];
    const byMessage = new Map<number, StoredPart[]>();
    for (const row of parts) {
      const list = byMessage.get(row.message_id) ?? [];
      list.push(partOf(row));
      byMessage.set(row.message_id, list);
    }
    return rows.map((r) => ({
      seq: r.seq,
      runId: r.runId,
      role: r.role,
      createdAt: r.createdAt,
      parts: byMessage.get(r.id) ?? [],
    }));
  }

  /** The recorded run events of a session, in order (optionally of one run). */
  events(sessionId: string, runId?: string): StoredEvent[] {
    const rows = (
      runId === undefined
        ? this.db
            .prepare(
              "SELECT seq, run_id AS runId, type, json FROM run_events WHERE session_id = ? ORDER BY seq",
            )
            .all(sessionId)
        : this.db
            .prepare(
              "SELECT seq, run_id AS runId, type, json FROM run_events WHERE session_id = ? AND run_id = ? ORDER BY seq",
            )
            .all(sessionId, runId)
    ) as Array<{ seq: number; runId: string; type: string; json: string }>;
    return rows.map((r) => ({ seq: r.seq, runId: r.runId, type: r.type, data: JSON.parse(r.json) }));
  }

  /** The session's compactions, oldest first (the last one is what the model is sent). */
  compactions(sessionId: string): StoredCompaction[] {
    return this.db
      .prepare(
        `SELECT id, run_id AS runId, through_seq AS throughSeq, made_at_seq AS madeAtSeq, summary,
                tokens_before AS tokensBefore, tokens_after AS tokensAfter, created_at AS createdAt
         FROM compactions WHERE session_id = ? ORDER BY id`,
      )
      .all(sessionId) as StoredCompaction[];
  }

  /** Record a compaction of the conversation (its messages are left as they are). */
  addCompaction(sessionId: string, compaction: NewCompaction): StoredCompaction {
    const createdAt = Date.now();
    const id = this.db
      .prepare(
        `INSERT INTO compactions (session_id, run_id, through_seq, made_at_seq, summary, tokens_before, tokens_after, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        sessionId,
        compaction.runId,
        compaction.throughSeq,
        compaction.madeAtSeq,
        compaction.summary,
        compaction.tokensBefore,
        compaction.tokensAfter,
        createdAt,
      ).lastInsertRowid;
    return { ...compaction, id: Number(id), createdAt };
  }

  /** The session's prompts (the user messages that start its runs), in order. */
  prompts(sessionId: string): StoredPrompt[] {
    return this.db
      .prepare(
        `SELECT m.seq, m.run_id AS runId, m.created_at AS createdAt,
                COALESCE((SELECT group_concat(p.text, '') FROM message_parts p
                          WHERE p.message_id = m.id AND p.type = 'text'), '') AS text
         FROM messages m WHERE m.session_id = ? AND m.role = 'user' ORDER BY m.seq`,
      )
      .all(sessionId) as StoredPrompt[];
  }

  /**
   * Remove the conversation from message `fromSeq` on: those messages, every run event of the
   * runs they belong to, and the links to tasks their tool calls started. The caller checks that
   * `fromSeq` starts a run (a prompt), so no run is left half-recorded.
   */
  cut(sessionId: string, fromSeq: number): ConversationCut {
    return writeTransaction(this.db, (): ConversationCut => {
      const runIds = (
        this.db
          .prepare(
            "SELECT run_id AS runId, MIN(seq) AS first FROM messages WHERE session_id = ? AND seq >= ? GROUP BY run_id ORDER BY first",
          )
          .all(sessionId, fromSeq) as Array<{ runId: string }>
      ).map((r) => r.runId);
      const toolCallIds = (
        this.db
          .prepare(
            `SELECT DISTINCT p.tool_call_id AS id FROM message_parts p JOIN messages m ON m.id = p.message_id
             WHERE m.session_id = ? AND m.seq >= ? AND p.type = 'tool-call' AND p.tool_call_id IS NOT NULL`,
          )
          .all(sessionId, fromSeq) as Array<{ id: string }>
      ).map((r) => r.id);
      const removed = this.db
        .prepare("DELETE FROM messages WHERE session_id = ? AND seq >= ?")
        .run(sessionId, fromSeq).changes;
      const dropEvents = this.db.prepare("DELETE FROM run_events WHERE session_id = ? AND run_id = ?");
      for (const runId of runIds) dropEvents.run(sessionId, runId);
      const unlink = this.db.prepare(
        "DELETE FROM child_tasks WHERE parent_session_id = ? AND tool_call_id = ?",
      );
      for (const id of toolCallIds) unlink.run(sessionId, id);
      // A summary made after the cut point covers messages that are gone or summarises a moment
      // that no longer happened: the model is sent the originals again.
      this.db
        .prepare("DELETE FROM compactions WHERE session_id = ? AND (made_at_seq > ? OR through_seq >= ?)")
        .run(sessionId, fromSeq, fromSeq);
      this.db
        .prepare("UPDATE conversations SET updated_at = ? WHERE session_id = ?")
        .run(Date.now(), sessionId);
      return { messages: removed, runIds, toolCallIds };
    })();
  }

  /** Record that a task in `parentSessionId` started `childSessionId`. */
  linkChild(
    parentSessionId: string,
    childSessionId: string,
    info: { toolCallId?: string; description: string },
  ): void {
    this.db
      .prepare(
        `INSERT INTO child_tasks (parent_session_id, child_session_id, tool_call_id, description, created_at)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(parentSessionId, childSessionId, info.toolCallId ?? null, info.description, Date.now());
  }

  children(parentSessionId: string): ChildTask[] {
    return this.db
      .prepare(
        `SELECT parent_session_id AS parentSessionId, child_session_id AS childSessionId, tool_call_id AS toolCallId,
                description, created_at AS createdAt
         FROM child_tasks WHERE parent_session_id = ? ORDER BY created_at, child_session_id`,
      )
      .all(parentSessionId) as ChildTask[];
  }
}
