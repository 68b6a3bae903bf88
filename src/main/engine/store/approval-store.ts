import type { ApprovalPersistence } from "../policy/approval-cache.ts";
import type { Db } from "./database.ts";

/** "Always" answers kept for a persistent session, until it closes. */
export function sessionApprovals(db: Db, sessionId: string): ApprovalPersistence {
  return {
    load: () =>
      (
        db
          .prepare("SELECT tool, approval_key AS key FROM approvals WHERE session_id = ?")
          .all(sessionId) as Array<{
          tool: string;
          key: string;
        }>
      ).map((r) => [r.tool, r.key] as [string, string]),
    save: (tool, key) => {
      db.prepare(
        "INSERT OR IGNORE INTO approvals (session_id, tool, approval_key, created_at) VALUES (?, ?, ?, ?)",
      ).run(sessionId, tool, key, Date.now());
    },
  };
}

/** "Always" answers kept for a project across sessions — only when the user turned that on. */
export function projectApprovals(db: Db, root: string): ApprovalPersistence {
  return {
    load: () =>
      (
        db
          .prepare("SELECT tool, approval_key AS key FROM project_approvals WHERE root = ?")
          .all(root) as Array<{
          tool: string;
          key: string;
        }>
      ).map((r) => [r.tool, r.key] as [string, string]),
    save: (tool, key) => {
      db.prepare(
        "INSERT OR IGNORE INTO project_approvals (root, tool, approval_key, created_at) VALUES (?, ?, ?, ?)",
      ).run(root, tool, key, Date.now());
    },
  };
}

/** One "always" answer a persistent session keeps. */
export interface StoredApproval {
  sessionId: string;
  tool: string;
  key: string;
  createdAt: number;
}

/** The "always" answers of every session of a folder, oldest first. */
export function approvalsUnder(db: Db, root: string): StoredApproval[] {
  return db
    .prepare(
      `SELECT a.session_id AS sessionId, a.tool, a.approval_key AS key, a.created_at AS createdAt
       FROM approvals a JOIN sessions s ON s.id = a.session_id
       WHERE s.root = ? ORDER BY a.created_at, a.rowid`,
    )
    .all(root) as StoredApproval[];
}

/** Forget one "always" answer of a session, or all of them; returns how many went. */
export function revokeApprovals(db: Db, sessionId: string, which?: { tool: string; key: string }): number {
  const result = which
    ? db
        .prepare("DELETE FROM approvals WHERE session_id = ? AND tool = ? AND approval_key = ?")
        .run(sessionId, which.tool, which.key)
    : db.prepare("DELETE FROM approvals WHERE session_id = ?").run(sessionId);
  return result.changes;
}
