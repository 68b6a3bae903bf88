import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../src/main/engine/store/migrations.ts";
import { useCliWorld } from "./support/cli-world.ts";

// The first command after an upgrade indexes a large audit trail, which takes a while: it says so
// on stderr before it starts, rather than seeming to hang.

const world = useCliWorld("lathe-migration-");

const AUDIT_INDEXES = MIGRATIONS.findIndex((sql) => sql.includes("audit_by_root_session"));

function olderStore(file: string, calls: number): void {
  const db = new Database(file);
  for (const sql of MIGRATIONS.slice(0, AUDIT_INDEXES)) db.exec(sql);
  db.pragma(`user_version = ${AUDIT_INDEXES}`);
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO audit (call_id, session_id, tool_id, args_json, decisions_json, outcome, envelope_head,
                        duration_ms, started_at, root)
     SELECT 'c' || i, 's' || (i % 50), 'read', '{}', '[]', 'ok', '{}', 1, i, '/elsewhere' FROM n`,
  ).run(calls);
  db.close();
}

describe("lathe on a store an older Lathe wrote", () => {
  it("says what the long migration does, once, and then works as usual", async () => {
    const file = path.join(world.home, "lathe.db");
    olderStore(file, 80_000);
    const first = await world.lathe(["audit"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(
      `lathe: updating the database ${file} for this version of Lathe (once): indexing the 80,000 rows of its audit table…\n`,
    );
    const again = await world.lathe(["audit"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
    expect(again.stdout).toBe(first.stdout);
  });
});
