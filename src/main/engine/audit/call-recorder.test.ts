import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineEvents } from "../engine-events.ts";
import { AuditLog } from "../store/audit-log.ts";
import { openDatabase, type Db } from "../store/database.ts";
import type { StageRecord } from "../tools/call-decision.ts";
import type { Envelope } from "../tools/envelope.ts";
import { callRecorder } from "./call-recorder.ts";
import { redactSecrets } from "./redact.ts";

let dir: string;
let db: Db;
let log: AuditLog;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-recorder-"));
  db = openDatabase(path.join(dir, "lathe.db"));
  log = new AuditLog(db);
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

/** Record one bash call that ended with `envelope` after `decisions`; return its audit row. */
function recordCall(command: string, envelope: Envelope, decisions: StageRecord[]) {
  const recorder = callRecorder("s1", "/projects/a", new EngineEvents(), () => log);
  const call = { callId: "c1", toolId: "bash", entry: undefined, args: { command }, startedAt: 1 };
  recorder.started(call);
  recorder.finished(call, envelope, decisions);
  const [row] = log.query();
  if (!row) throw new Error("no row recorded");
  return row;
}

const refused = (reason: string): StageRecord[] => [
  { stage: "capability", outcome: "allow", reason: "within the tool's declared requirements" },
  { stage: "approval", outcome: "deny", reason },
];

describe("callRecorder", () => {
  // Each reason ends with (or holds) a secret a rule masks up to the end of the text: the mask
  // used to be applied to the decisions' JSON text, and ate the JSON's closing quotes.
  it.each([
    ["a private key's first line", "-----BEGIN RSA PRIVATE KEY-----", "echo -----BEGIN RSA PRIVATE KEY-----"],
    ["a token variable at the end", "ghx1234567890abcdef", "export API_TOKEN=ghx1234567890abcdef"],
  ])("keeps the decisions readable JSON when a reason ends with %s", (_name, secret, command) => {
    const row = recordCall(
      command,
      { type: "error", error_text: "refused", metadata: { duration_ms: 1 } },
      refused(`approved earlier in this session (key "${command}")`),
    );
    const decisions = JSON.parse(row.decisionsJson) as StageRecord[];
    expect(decisions.map((d) => [d.stage, d.outcome])).toEqual([
      ["capability", "allow"],
      ["approval", "deny"],
    ]);
    expect(decisions[1]?.reason).toMatch(/^approved earlier in this session \(key "/);
    expect(row.decisionsJson).not.toContain(secret.slice(-12));
    // The store still counts it as denied.
    expect(log.query({ outcome: "denied" })).toHaveLength(1);
  });

  it("masks a secret the envelope head's cut goes through, rather than keeping its start", () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123";
    // The token starts a few characters before the head's 2,000th character.
    for (let pad = 1_930; pad < 2_000; pad += 7) {
      const output = `${"x".repeat(pad)} ${token} and more`;
      const row = recordCall(
        "cat notes.txt",
        { type: "output", data: { output }, metadata: { duration_ms: 1 } },
        [],
      );
      expect(row.envelopeHead).not.toMatch(/ghp_[a-z]/);
      db.prepare("DELETE FROM audit").run();
    }
  });

  it("keeps the envelope head readable as JSON up to its cut, whatever is masked in it", () => {
    const row = recordCall(
      "cat config",
      {
        type: "output",
        data: { output: 'url = "https://me:pw12345@db.example.com" note -----BEGIN EC PRIVATE KEY-----' },
        metadata: { duration_ms: 1 },
      },
      [],
    );
    const head = JSON.parse(row.envelopeHead) as { data: { output: string } };
    expect(head.data.output).toBe('url = "https://me:[REDACTED]@db.example.com" note [REDACTED PRIVATE KEY]');
  });

  it.each([
    ["20,000 paths", 20_000, 0],
    ["20,000 paths with a token across the head's cut", 20_000, 1],
    ["a few paths", 5, 0],
    ["paths whose tokens masks shorten below the cut", 120, 2],
  ])("keeps of a large envelope (%s) the head a whole redaction would give", (_name, count, secrets) => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123";
    const files = Array.from({ length: count }, (_, i) =>
      secrets === 2 || (secrets === 1 && i === 62)
        ? `src/${token}/${i}.ts`
        : `src/dir-${i % 97}/file-${i}.ts`,
    );
    const envelope: Envelope = { type: "output", data: { files }, metadata: { duration_ms: 1 } };
    const row = recordCall("glob", envelope, []);
    const whole = JSON.stringify(redactSecrets(envelope, 2_000));
    expect(row.envelopeHead).toBe(whole.length > 2_000 ? `${whole.slice(0, 2_000)}…` : whole);
    expect(row.envelopeHead).not.toMatch(/ghp_[a-z]/);
  });
});
