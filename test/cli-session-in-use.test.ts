import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { LATHE_BIN, type Run } from "./support/lathe-cli.ts";

// A call session (`lathe batch --session`, `lathe call --session`, the app) used by one process
// while another deletes, closes or rewinds it: real processes on a real SQLite store.

const running: ChildProcessWithoutNullStreams[] = [];
const world = useCliWorld("lathe-inuse-");
// Registered after the world's hooks, so it runs before the world is removed.
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

const lathe = (args: string[]): Promise<Run> => world.lathe(args, { env: { LATHE_DAEMON: "off" } });

/** A `lathe batch --session` whose stdin stays open: it holds its session until it ends. */
function startBatch(sessionId: string) {
  const child = spawn(process.execPath, [LATHE_BIN, "batch", "--session", sessionId, "--mode", "yolo"], {
    cwd: world.root,
    env: { ...process.env, LATHE_HOME: world.home, LATHE_DAEMON: "off" },
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const lines = () => stdout.split("\n").filter((l) => l.startsWith("{"));
  return {
    child,
    stderr: () => stderr,
    exited,
    lines,
    /** Send one call and wait for its envelope (the n-th line of output). */
    async send(line: string): Promise<{ type: string; error_text?: string }> {
      const want = lines().length + 1;
      child.stdin.write(`${line}\n`);
      const deadline = Date.now() + 15_000;
      while (lines().length < want) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no envelope for ${line}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return JSON.parse(lines()[want - 1] as string) as { type: string; error_text?: string };
    },
  };
}

describe("a call session open in another process", () => {
  it("refuses delete, close and rewind naming that process, until it ends (kill -9 included)", async () => {
    const batch = startBatch("s1");
    expect((await batch.send('write {"path":"a.txt","content":"a"}')).type).toBe("output");

    for (const command of [
      ["session", "delete", "s1"],
      ["session", "close", "s1"],
      ["rewind", "--session", "s1", "--before", "1"],
    ]) {
      const refused = await lathe(command);
      expect(refused.code, command.join(" ")).toBe(1);
      expect(refused.stderr).toContain(
        `Session s1 is in use by another Lathe process (pid ${batch.child.pid} on `,
      );
      expect(refused.stderr).toContain("open for tool calls since");
      expect(refused.stderr).not.toMatch(/internal error|FOREIGN KEY|at .*\.ts:\d+/);
    }
    // The batch goes on as if nothing happened: its session and files are all there.
    expect((await batch.send('write {"path":"b.txt","content":"b"}')).type).toBe("output");
    expect((await lathe(["checkpoints", "--session", "s1", "--json"])).code).toBe(0);

    // A holder killed with -9 holds nothing.
    batch.child.kill("SIGKILL");
    await batch.exited;
    const deleted = await lathe(["session", "delete", "s1"]);
    expect(deleted.stderr).toBe("");
    expect(deleted.code).toBe(0);
  });

  it("two processes using one session at once may both go on; a delete waits for both", async () => {
    const first = startBatch("s2");
    const second = startBatch("s2");
    expect((await first.send('write {"path":"one.txt","content":"1"}')).type).toBe("output");
    expect((await second.send('write {"path":"two.txt","content":"2"}')).type).toBe("output");
    first.child.stdin.end();
    expect(await first.exited).toBe(0);
    const refused = await lathe(["session", "delete", "s2"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`(pid ${second.child.pid} on `);
    second.child.stdin.end();
    expect(await second.exited).toBe(0);
    expect((await lathe(["session", "delete", "s2"])).code).toBe(0);
  });

  it("a batch whose session was deleted under it (its process hung) fails once, clearly, and stops", async () => {
    const batch = startBatch("s3");
    expect((await batch.send('write {"path":"a.txt","content":"a"}')).type).toBe("output");
    // The batch's process stops renewing its use, as a hung one would for a minute.
    batch.child.kill("SIGSTOP");
    const db = new Database(path.join(world.home, "lathe.db"));
    try {
      expect(
        db.prepare("UPDATE session_users SET heartbeat_at = 0 WHERE session_id = 's3'").run().changes,
      ).toBe(1);
    } finally {
      db.close();
    }
    const deleted = await lathe(["session", "delete", "s3"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    batch.child.kill("SIGCONT");

    // Calls already sent and calls sent after: the first says why, the batch reads no more.
    const first = await batch.send('write {"path":"late.txt","content":"x"}');
    expect(first.type).toBe("error");
    expect(first.error_text).toBe(
      "Session s3 was deleted by another Lathe process (lathe session delete, or the app) while this one had it open, so its calls can no longer be recorded. Nothing was changed. Start a new session (another --session id, or none) and call again.",
    );
    batch.child.stdin.write('write {"path":"later.txt","content":"y"}\n');
    batch.child.stdin.end();
    expect(await batch.exited).toBe(1);
    expect(batch.lines()).toHaveLength(2);
    expect(existsSync(path.join(world.root, "late.txt"))).toBe(false);
    expect(existsSync(path.join(world.root, "later.txt"))).toBe(false);
    expect(batch.stderr()).not.toMatch(/internal error|FOREIGN KEY/);
    expect(batch.stderr().match(/was deleted by another Lathe process/g)).toHaveLength(1);
    expect(batch.stderr()).toContain("No further line was read.");
  });
});
