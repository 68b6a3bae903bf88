/** Schema migrations, in order; entry N takes `user_version` from N to N+1. Never edit one that shipped. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    root        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    closed_at   INTEGER
  );
  CREATE TABLE read_state (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ms    REAL NOT NULL,
    sha256      TEXT NOT NULL,
    PRIMARY KEY (session_id, path)
  );
  CREATE TABLE approvals (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    tool        TEXT NOT NULL,
    approval_key TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (session_id, tool, approval_key)
  );
  `,
  `
  CREATE TABLE audit (
    id              INTEGER PRIMARY KEY,
    call_id         TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    tool_id         TEXT NOT NULL,
    origin_layer    TEXT,
    origin_kind     TEXT,
    origin_name     TEXT,
    descriptor_hash TEXT,
    args_json       TEXT NOT NULL,
    decisions_json  TEXT NOT NULL,
    outcome         TEXT NOT NULL,
    envelope_head   TEXT NOT NULL,
    duration_ms     INTEGER NOT NULL,
    started_at      INTEGER NOT NULL
  );
  CREATE INDEX audit_by_session ON audit (session_id, id);
  CREATE TABLE project_approvals (
    root         TEXT NOT NULL,
    tool         TEXT NOT NULL,
    approval_key TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (root, tool, approval_key)
  );
  `,
];
