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
