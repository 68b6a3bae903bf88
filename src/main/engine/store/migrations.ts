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
  `
  CREATE TABLE conversations (
    session_id         TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    agent              TEXT NOT NULL,
    model              TEXT NOT NULL,
    parent_session_id  TEXT,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
  );
  CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES conversations(session_id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    run_id      TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    created_at  INTEGER NOT NULL,
    UNIQUE (session_id, seq)
  );
  CREATE TABLE message_parts (
    message_id    INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    type          TEXT NOT NULL CHECK (type IN ('text', 'reasoning', 'tool-call', 'tool-result')),
    text          TEXT,
    tool_call_id  TEXT,
    tool_name     TEXT,
    json          TEXT,
    PRIMARY KEY (message_id, position)
  );
  CREATE TABLE run_events (
    session_id  TEXT NOT NULL REFERENCES conversations(session_id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    run_id      TEXT NOT NULL,
    type        TEXT NOT NULL,
    json        TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE TABLE child_tasks (
    parent_session_id  TEXT NOT NULL REFERENCES conversations(session_id) ON DELETE CASCADE,
    child_session_id   TEXT NOT NULL,
    tool_call_id       TEXT,
    description        TEXT NOT NULL,
    created_at         INTEGER NOT NULL,
    PRIMARY KEY (parent_session_id, child_session_id)
  );
  `,
  `
  CREATE TABLE todos (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    content     TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
    PRIMARY KEY (session_id, position)
  );
  `,
  `
  CREATE TABLE session_titles (
    session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    title       TEXT NOT NULL,
    updated_at  INTEGER NOT NULL
  );
  `,
  `
  CREATE TABLE checkpoint_blobs (
    hash          TEXT PRIMARY KEY,
    size          INTEGER NOT NULL,
    last_used_at  INTEGER NOT NULL
  );
  CREATE TABLE checkpoints (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    root          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('tool', 'restore', 'rewind')),
    tool          TEXT NOT NULL,
    call_id       TEXT,
    tool_call_id  TEXT,
    message_seq   INTEGER,
    run_id        TEXT,
    created_at    INTEGER NOT NULL,
    restored_by   INTEGER REFERENCES checkpoints(id) ON DELETE SET NULL,
    undoes_json   TEXT
  );
  CREATE INDEX checkpoints_by_session ON checkpoints (session_id, id);
  CREATE TABLE checkpoint_entries (
    checkpoint_id  INTEGER NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
    path           TEXT NOT NULL,
    type           TEXT NOT NULL CHECK (type IN ('file', 'folder')),
    before_exists  INTEGER NOT NULL,
    before_hash    TEXT,
    before_mode    INTEGER,
    after_exists   INTEGER NOT NULL,
    after_hash     TEXT,
    note           TEXT,
    PRIMARY KEY (checkpoint_id, path)
  );
  CREATE INDEX checkpoint_entries_by_hash ON checkpoint_entries (before_hash);
  CREATE TABLE checkpoint_index (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    type        TEXT NOT NULL CHECK (type IN ('file', 'folder')),
    size        INTEGER NOT NULL,
    mtime_ms    REAL NOT NULL,
    ctime_ms    REAL NOT NULL,
    ino         INTEGER NOT NULL,
    mode        INTEGER NOT NULL,
    hash        TEXT,
    PRIMARY KEY (session_id, path)
  );
  CREATE INDEX checkpoint_index_by_hash ON checkpoint_index (hash);
  `,
  // Which process is running an agent in a session now (store/run-leases.ts). No reference to
  // sessions: a run takes its lease before it creates its session.
  `
  CREATE TABLE run_leases (
    session_id    TEXT PRIMARY KEY,
    token         TEXT NOT NULL,
    pid           INTEGER NOT NULL,
    host          TEXT NOT NULL,
    started_at    INTEGER NOT NULL,
    heartbeat_at  INTEGER NOT NULL
  );
  `,
  // The folder each audited call ran in (the engine's real path): an audit view shows one
  // folder's calls. Rows written before this have NULL (their folder was never recorded).
  `
  ALTER TABLE audit ADD COLUMN root TEXT;
  CREATE INDEX audit_by_root ON audit (root, id);
  `,
  // The permission bits a change left a file with, so that a restore sees a later chmod as a
  // change since (checkpoints/restore-plan.ts). Entries written before this have NULL: only
  // their content is compared, as it was then.
  `
  ALTER TABLE checkpoint_entries ADD COLUMN after_mode INTEGER;
  `,
  // Deleting a checkpoint (a session delete deletes all of its own) clears every restored_by that
  // points at it (ON DELETE SET NULL): without an index SQLite walks all the checkpoints of every
  // session once per checkpoint deleted, and deleting a session of 2,000 checkpoints among 60,000
  // took 6 s.
  `
  CREATE INDEX checkpoints_by_restorer ON checkpoints (restored_by);
  `,
  // A task's session is found by its own id (session list shows whose task it is; deleting a
  // session drops its links): the table's key starts with the parent, so without this index every
  // conversation listed walked all the links — 1.8 s for a list of 5,000 among 20,000 links.
  `
  CREATE INDEX child_tasks_by_child ON child_tasks (child_session_id);
  `,
  // The text of prompts and answers, indexed for `session list --search` (session-catalog.ts): a
  // LIKE over every message took 1.5 s at 80,000 of them. Trigrams find any substring of three
  // characters or more, in any case and script, whatever the punctuation. Contentless (the text
  // stays in message_parts alone); a row's id is its part's: message id × 2^20 + position (no
  // message has a million parts; one beyond that is left out rather than collide with the next
  // message's). The triggers keep it in step with every write, rewind and delete (cascades too).
  // What older Lathes recorded is the backlog, messages below message_text_backlog.below: it is
  // indexed a little at a time in the background (text-index-backlog.ts), as indexing 80,000
  // messages in this migration would hold the database for many seconds; a search looks at the
  // backlog's messages with LIKE meanwhile.
  `
  CREATE VIRTUAL TABLE message_text_index USING fts5 (
    text, content = '', contentless_delete = 1, tokenize = 'trigram'
  );
  CREATE TRIGGER message_text_indexed AFTER INSERT ON message_parts
  WHEN new.type = 'text' AND new.text IS NOT NULL AND new.position < 1048576 BEGIN
    INSERT OR REPLACE INTO message_text_index (rowid, text) VALUES (new.message_id * 1048576 + new.position, new.text);
  END;
  CREATE TRIGGER message_text_unindexed AFTER DELETE ON message_parts
  WHEN old.type = 'text' AND old.text IS NOT NULL AND old.position < 1048576 BEGIN
    DELETE FROM message_text_index WHERE rowid = old.message_id * 1048576 + old.position;
  END;
  CREATE TRIGGER message_text_reindexed AFTER UPDATE ON message_parts BEGIN
    DELETE FROM message_text_index
      WHERE old.type = 'text' AND old.text IS NOT NULL AND old.position < 1048576
        AND rowid = old.message_id * 1048576 + old.position;
    INSERT OR REPLACE INTO message_text_index (rowid, text)
      SELECT new.message_id * 1048576 + new.position, new.text
      WHERE new.type = 'text' AND new.text IS NOT NULL AND new.position < 1048576;
  END;
  CREATE TABLE message_text_backlog (below INTEGER NOT NULL);
  INSERT INTO message_text_backlog (below) SELECT MAX(id) + 1 FROM messages HAVING MAX(id) IS NOT NULL;
  `,
  // The files tool calls are changing right now, across processes (file-claims.ts): a claim
  // lives for one write or edit, so two calls on one file cannot both pass their read check.
  `
  CREATE TABLE file_claims (
    path        TEXT PRIMARY KEY,
    token       TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    claimed_at  INTEGER NOT NULL
  );
  CREATE INDEX file_claims_by_token ON file_claims (token);
  `,
  // Which processes have a persistent session open for tool calls now (session-users.ts): a
  // delete, close or rewind of it is refused while another live one does. No reference to
  // sessions: a use ends on its own, and a delete that goes ahead (its users hung) leaves rows
  // that count for nothing and go at the next look.
  `
  CREATE TABLE session_users (
    token         TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL,
    pid           INTEGER NOT NULL,
    host          TEXT NOT NULL,
    started_at    INTEGER NOT NULL,
    heartbeat_at  INTEGER NOT NULL
  );
  CREATE INDEX session_users_by_session ON session_users (session_id);
  `,
  // Summaries of a conversation's older part that the model is sent in place of it (the
  // messages themselves stay): the latest one of a session covers its messages up to
  // `through_seq`; it was made when the conversation had `made_at_seq` messages, so a rewind to
  // before that point drops it and the originals go back to the model.
  `
  CREATE TABLE compactions (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id         TEXT,
    through_seq    INTEGER NOT NULL,
    made_at_seq    INTEGER NOT NULL,
    summary        TEXT NOT NULL,
    tokens_before  INTEGER NOT NULL,
    tokens_after   INTEGER NOT NULL,
    created_at     INTEGER NOT NULL
  );
  CREATE INDEX compactions_by_session ON compactions (session_id, id);
  `,
  // An audit view narrows a folder's trail by session or tool (the app's filters, `lathe audit
  // --session` and `--tool`) and lists the folder's sessions for its filter. With (root, id)
  // alone each walked the folder's every row: on a trail of 500,000 calls 0.7 s a filter and
  // 1.4 s for the list (now a few ms and 0.16 s). Building them on such a trail takes 5 s, once.
  `
  CREATE INDEX audit_by_root_session ON audit (root, session_id, id);
  CREATE INDEX audit_by_root_tool ON audit (root, tool_id, id);
  `,
  // A checkpoint id is what a person notes (or a script keeps) for `lathe restore <id>`: it is
  // never given again. With a plain INTEGER PRIMARY KEY the next row got max(id) + 1, so deleting
  // the session that held the newest checkpoints handed their ids to another session's. SQLite
  // adds AUTOINCREMENT only to a new table: both tables are copied into new ones, ids, links and
  // all, which take the old names (a rename rewrites the references to them). Each new table
  // refers to the other new one before the old ones are dropped, as dropping a table deletes its
  // rows first and would cascade to the entries. Ids deleted before this are not known, and may
  // be given once more; none after.
  `
  CREATE TABLE checkpoints_kept (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    root          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('tool', 'restore', 'rewind')),
    tool          TEXT NOT NULL,
    call_id       TEXT,
    tool_call_id  TEXT,
    message_seq   INTEGER,
    run_id        TEXT,
    created_at    INTEGER NOT NULL,
    restored_by   INTEGER REFERENCES checkpoints_kept(id) ON DELETE SET NULL,
    undoes_json   TEXT
  );
  INSERT INTO checkpoints_kept
    (id, session_id, root, kind, tool, call_id, tool_call_id, message_seq, run_id, created_at, restored_by, undoes_json)
    SELECT id, session_id, root, kind, tool, call_id, tool_call_id, message_seq, run_id, created_at, restored_by, undoes_json
    FROM checkpoints ORDER BY id;
  CREATE TABLE checkpoint_entries_kept (
    checkpoint_id  INTEGER NOT NULL REFERENCES checkpoints_kept(id) ON DELETE CASCADE,
    path           TEXT NOT NULL,
    type           TEXT NOT NULL CHECK (type IN ('file', 'folder')),
    before_exists  INTEGER NOT NULL,
    before_hash    TEXT,
    before_mode    INTEGER,
    after_exists   INTEGER NOT NULL,
    after_hash     TEXT,
    note           TEXT,
    after_mode     INTEGER,
    PRIMARY KEY (checkpoint_id, path)
  );
  INSERT INTO checkpoint_entries_kept
    (checkpoint_id, path, type, before_exists, before_hash, before_mode, after_exists, after_hash, note, after_mode)
    SELECT checkpoint_id, path, type, before_exists, before_hash, before_mode, after_exists, after_hash, note, after_mode
    FROM checkpoint_entries;
  DROP TABLE checkpoint_entries;
  DROP TABLE checkpoints;
  ALTER TABLE checkpoints_kept RENAME TO checkpoints;
  ALTER TABLE checkpoint_entries_kept RENAME TO checkpoint_entries;
  CREATE INDEX checkpoints_by_session ON checkpoints (session_id, id);
  CREATE INDEX checkpoints_by_restorer ON checkpoints (restored_by);
  CREATE INDEX checkpoint_entries_by_hash ON checkpoint_entries (before_hash);
  `,
  // `lathe audit --outcome error|denied` (and the app's outcome filter) walked the folder's every
  // row, newest first, to find the few that failed: 0.45–0.7 s on a trail of 500,000 calls. A
  // refused call's envelope is an error too, so both filters look among the errors alone, which
  // these hold: partial indexes, as small as the errors are few (the output rows, nearly all
  // of them, are found at once by (root, id) without one). The second serves --all.
  `
  CREATE INDEX audit_errors_by_root ON audit (root, id) WHERE outcome = 'error';
  CREATE INDEX audit_errors ON audit (id) WHERE outcome = 'error';
  `,
];
