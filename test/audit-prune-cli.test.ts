import { stat } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// Nothing pruned the audit trail: it grows by every call (500,000 calls took some 430 MB).
// `lathe audit prune --older-than <age>` deletes the older rows (the folder's, or every folder's
// with --all), says how many, and gives their space back to the disk. Lathe never prunes on its own.

const world = useCliWorld("lathe-audit-prune-");

const DAY = 86_400_000;
const OLD_ROWS = 2_000;
/** Each row's arguments: enough that the old rows take megabytes of the file. */
const ARGS = JSON.stringify({ path: "x".repeat(2_000) });

/** The database file and its WAL, as the disk counts them. */
async function bytesOnDisk(file: string): Promise<number> {
  let bytes = 0;
  for (const part of [file, `${file}-wal`])
    bytes += await stat(part).then(
      (s) => s.size,
      () => 0,
    );
  return bytes;
}

/** A store holding OLD_ROWS calls of 40 days ago in the workspace, old calls elsewhere, recent ones. */
async function storeWithOldCalls(): Promise<{ file: string; elsewhere: string }> {
  await world.lathe(["audit"]); // creates the database, as any first command does
  const file = path.join(world.home, "lathe.db");
  const elsewhere = await world.folder("other-project");
  const db = new Database(file);
  const insert = db.prepare(
    `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
     VALUES (?, 's', ?, 'read', ?, '[]', 'output', '{}', 1, ?)`,
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < OLD_ROWS; i++) insert.run(`old-${i}`, world.root, ARGS, now - 40 * DAY + i);
    insert.run("old-elsewhere", elsewhere, ARGS, now - 40 * DAY);
    insert.run("recent", world.root, ARGS, now - 2 * DAY);
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { file, elsewhere };
}

function callIds(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT call_id FROM audit ORDER BY id").pluck().all() as string[];
  } finally {
    db.close();
  }
}

describe("lathe audit prune", () => {
  it("deletes the folder's calls older than the age, says how many, and the file shrinks", async () => {
    const { file } = await storeWithOldCalls();
    // Nothing prunes on its own: other commands leave the old rows where they are.
    await world.lathe(["audit"]);
    expect(envelopeOf(await world.lathe(["call", "glob", '{"pattern":"*"}'])).type).toBe("output");
    expect(callIds(file)).toHaveLength(OLD_ROWS + 3);
    const before = await bytesOnDisk(file);

    const run = await world.lathe(["audit", "prune", "--older-than", "30d"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^Removed 2,000 audit rows: the tool invocations in ${world.root} that started before \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\. The database shrank from [\\d.]+ MB to [\\d.]+ (KB|MB) \\([\\d.]+ MB reclaimed\\)\\.\\n$`,
      ),
    );
    // The other folder's old call, the recent one and the glob stay.
    expect(callIds(file)).toEqual(["old-elsewhere", "recent", expect.any(String)]);
    // The rows held over 4 MB of arguments: the disk has them back.
    expect(await bytesOnDisk(file)).toBeLessThan(before - 3_500_000);
    expect((await world.lathe(["audit", "--limit", "10"])).stdout).toContain("glob");

    // Again: nothing is left that old.
    const again = await world.lathe(["audit", "prune", "--older-than", "30d"]);
    expect(again.stdout).toMatch(/^Removed no audit rows: /);
  });

  it("says on stderr when it rewrites a large database, and not for a small one", async () => {
    const { file } = await storeWithOldCalls();
    const small = await world.lathe(["audit", "prune", "--older-than", "30d"]);
    expect(small.stderr).toBe("");
    // 20,000 more old calls of 2 KB each: a database of some 45 MB.
    const db = new Database(file);
    const insert = db.prepare(
      `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES (?, 's', ?, 'read', ?, '[]', 'output', '{}', 1, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(`big-${i}`, world.root, ARGS, Date.now() - 40 * DAY);
    })();
    db.close();
    const large = await world.lathe(["audit", "prune", "--older-than", "30d"]);
    expect(large.code, large.stderr).toBe(0);
    expect(large.stderr).toMatch(
      /^lathe: giving the space back to the disk: rewriting the database \([\d.]+ MB\), which takes a while…\n$/,
    );
    expect(large.stdout).toMatch(/^Removed 20,000 audit rows: /);
  });

  it("--all prunes every folder's calls; --root names another folder", async () => {
    const { file, elsewhere } = await storeWithOldCalls();
    const other = await world.lathe(["audit", "prune", "--older-than", "30d", "--root", elsewhere]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(new RegExp(`^Removed 1 audit row: the tool invocations in ${elsewhere} `));
    expect(callIds(file)).toHaveLength(OLD_ROWS + 1);
    const all = await world.lathe(["audit", "prune", "--older-than", "1d", "--all"]);
    expect(all.stdout).toMatch(/^Removed 2,001 audit rows: the tool invocations of every folder /);
    expect(callIds(file)).toEqual([]);
  });

  it.each([
    [
      ["--older-than", "30"],
      /"30" is not an age Lathe understands\. Use a whole number above 0 with s, m, h, d or w/,
    ],
    [["--older-than", "0d"], /"0d" is not an age Lathe understands/],
    [["--older-than", "soon"], /"soon" is not an age Lathe understands/],
    [[], /required option '--older-than <age>' not specified/],
    [["--older-than", "30d", "--all", "--root", "."], /--all prunes every folder's invocations/],
    [["--older-than", "30d", "--outcome", "error"], /--outcome is not for prune/],
  ])("refuses %j with a usage error (exit 2) and deletes nothing", async (args, says) => {
    const { file } = await storeWithOldCalls();
    const run = await world.lathe(["audit", "prune", ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(says);
    expect(callIds(file)).toHaveLength(OLD_ROWS + 2);
  });
});
