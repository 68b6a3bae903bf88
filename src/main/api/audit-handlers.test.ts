import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Engine } from "../engine/index.ts";
import { AuditLog, type AuditRow } from "../engine/store/audit-log.ts";
import { openDatabase, type Db } from "../engine/store/database.ts";
import { createAuditHandlers } from "./audit-handlers.ts";

let dir: string;
let db: Db;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-audit-handlers-"));
  db = openDatabase(path.join(dir, "lathe.db"));
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const row = (callId: string, decisionsJson: string): AuditRow => ({
  callId,
  sessionId: "s1",
  root: "/projects/a",
  toolId: "bash",
  originLayer: "builtin",
  originKind: "builtin",
  originName: null,
  descriptorHash: null,
  argsJson: '{"command":"ls"}',
  decisionsJson,
  outcome: "error",
  envelopeHead: "{}",
  durationMs: 1,
  startedAt: 1_700_000_000_000,
});

describe("audit.query", () => {
  it("shows a row whose decisions an older Lathe broke as what it holds, denied when it says so", async () => {
    const log = new AuditLog(db);
    const broken = '[{"stage":"approval","outcome":"deny","reason":"key [REDACTED PRIVATE KEY]';
    log.record(row("c1", broken));
    log.record(row("c2", '[{"stage":"approval","outcome":"deny","reason":"the user rejected the call"}]'));
    const engine = { root: "/projects/a", audit: () => log } as unknown as Engine;
    const query = createAuditHandlers(async () => engine)["audit.query"];

    const page = await query({ limit: 10 });
    const shown = page.entries.map((e) => [e.callId, e.outcome, e.decisions[0]?.reason]);
    expect(shown).toEqual([
      ["c2", "denied", "the user rejected the call"],
      ["c1", "denied", expect.stringContaining(broken)],
    ]);
    // The outcome filter reads such a row too, instead of failing the whole page.
    const denied = await query({ limit: 10, outcome: "denied" });
    expect(denied.entries.map((e) => e.callId)).toEqual(["c2", "c1"]);
  });
});
