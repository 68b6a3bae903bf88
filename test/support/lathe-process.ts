import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import type { RunEvent } from "../../src/main/engine/agent/run-events.ts";
import type { StoredMessage } from "../../src/main/engine/store/conversation-store.ts";
import { ConversationStore } from "../../src/main/engine/store/conversation-store.ts";
import { LATHE_BIN } from "./lathe-cli.ts";

/** A `lathe` process a test can watch, signal and kill while it works. */
export interface LatheProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** The JSON events printed so far (`--json`). */
  events(): RunEvent[];
  /** Resolves once `test` holds for what the process printed (polling). */
  until(what: string, test: () => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the process has exited: its code, signal and when (ms since the epoch). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

export function startLathe(
  args: readonly string[],
  options: { home: string; cwd: string; env?: NodeJS.ProcessEnv },
): LatheProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, LATHE_HOME: options.home, ...options.env };
  delete env.LATHE_DEBUG;
  const child = spawn(process.execPath, [LATHE_BIN, ...args], { cwd: options.cwd, env });
  child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  let done = false;
  void exited.then(() => (done = true));
  const events = (): RunEvent[] =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as RunEvent);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    events,
    async until(what, test, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!test()) {
        if (done) throw new Error(`lathe exited before ${what}.\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        if (Date.now() > deadline)
          throw new Error(`no ${what} within ${timeoutMs} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    exited,
  };
}

/** Point the openai-compatible provider at `baseURL` in the user's settings. */
export async function useEndpoint(
  home: string,
  baseURL: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({ providers: { "openai-compatible": { baseURL, ...extra } } }),
  );
}

/** What the database of a LATHE_HOME holds, read the way a new process would. */
export interface DbSnapshot {
  integrity: string;
  messages(sessionId: string): StoredMessage[];
  events(sessionId: string): RunEvent[];
  /** Any duplicated (session, seq) among messages or events (the schema's keys forbid them). */
  duplicates(): number;
}

export function readDatabase(home: string): DbSnapshot {
  const db = new Database(path.join(home, "lathe.db"), { readonly: true });
  try {
    const integrity = (db.pragma("integrity_check", { simple: true }) as string) ?? "";
    const store = new ConversationStore(db);
    const all = new Map<string, { messages: StoredMessage[]; events: RunEvent[] }>();
    const sessions = db.prepare("SELECT session_id AS id FROM conversations").all() as Array<{ id: string }>;
    for (const { id } of sessions) {
      all.set(id, { messages: store.messages(id), events: store.events(id).map((e) => e.data as RunEvent) });
    }
    const dup = db
      .prepare(
        `SELECT (SELECT COUNT(*) FROM (SELECT session_id, seq FROM messages GROUP BY session_id, seq HAVING COUNT(*) > 1))
              + (SELECT COUNT(*) FROM (SELECT session_id, seq FROM run_events GROUP BY session_id, seq HAVING COUNT(*) > 1)) AS n`,
      )
      .get() as { n: number };
    return {
      integrity,
      messages: (id) => all.get(id)?.messages ?? [],
      events: (id) => all.get(id)?.events ?? [],
      duplicates: () => dup.n,
    };
  } finally {
    db.close();
  }
}

/** Whether every tool call in a history has exactly one result and no result lacks its call. */
export function callsAndResultsMatch(messages: readonly StoredMessage[]): boolean {
  const calls: string[] = [];
  const results: string[] = [];
  for (const m of messages)
    for (const p of m.parts) {
      if (p.type === "tool-call") calls.push(p.toolCallId);
      if (p.type === "tool-result") results.push(p.toolCallId);
    }
  return calls.length === results.length && calls.every((id) => results.filter((r) => r === id).length === 1);
}
