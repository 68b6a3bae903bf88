import { chmod, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, type Run } from "./support/lathe-cli.ts";

// `lathe checkpoints`, `lathe restore`, `lathe rewind` and `lathe session delete` as users run
// them: the real bin/lathe.mjs in child processes, on a temp folder with its own LATHE_HOME.

const world = useCliWorld("lathe-cp-cli-");

const lathe = (args: string[]): Promise<Run> => world.lathe(args);
const text = (relative: string): Promise<string | undefined> =>
  readFile(path.join(world.root, relative), "utf8").catch(() => undefined);

async function call(tool: string, args: unknown, session = "s1"): Promise<void> {
  const run = await lathe(["call", tool, JSON.stringify(args), "--session", session, "--mode", "yolo"]);
  expect(envelopeOf(run).type, run.stdout).toBe("output");
}

interface ListedCheckpoint {
  id: number;
  tool: string;
  time: string;
  paths: Array<{ path: string; type: string; change: string }>;
  restored_by: number | null;
  kind: string;
}

async function listed(session = "s1"): Promise<ListedCheckpoint[]> {
  const run = await lathe(["checkpoints", "--session", session, "--json"]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ListedCheckpoint[];
}

describe("lathe checkpoints and lathe restore", () => {
  it("lists what write and bash changed, and restores a checkpoint (exit 0) with a way to undo it", async () => {
    await writeFile(path.join(world.root, "notes.txt"), "first\n");
    await call("read", { path: "notes.txt" });
    await call("write", { path: "notes.txt", content: "second\n" });
    await call("bash", { command: "rm notes.txt && mkdir out && echo r > out/report.txt" });

    const list = await listed();
    expect(list.map((c) => [c.id, c.tool, c.paths.map((p) => `${p.path}:${p.change}`)])).toEqual([
      [1, "write", ["notes.txt:modified"]],
      [2, "bash", ["notes.txt:deleted", "out:created", "out/report.txt:created"]],
    ]);
    expect(Number.isNaN(Date.parse(list[0]!.time))).toBe(false);

    const human = await lathe(["checkpoints", "--session", "s1"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^ +1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}write +notes\.txt \(modified\)$/m,
    );
    expect(human.stdout).toContain("out/ (created)");

    const restored = await lathe(["restore", "2", "--session", "s1"]);
    expect(restored).toMatchObject({ code: 0, stderr: "" });
    expect(restored.stdout).toContain("Restored checkpoint 2 (bash) in session s1:");
    expect(restored.stdout).toMatch(/recreate +notes\.txt/);
    expect(restored.stdout).toContain("Undo with: lathe restore 3 --session s1");
    expect(await text("notes.txt")).toBe("second\n");
    expect(await text("out/report.txt")).toBeUndefined();

    const first = await lathe(["restore", "1", "--session", "s1", "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ applied: true, undoCheckpoint: 4 });
    expect(await text("notes.txt")).toBe("first\n");
    expect((await listed()).map((c) => [c.id, c.kind, c.restored_by])).toEqual([
      [1, "tool", 4],
      [2, "tool", 3],
      [3, "restore", null],
      [4, "restore", null],
    ]);
  });

  it("a dry run says --force leaves what cannot be restored as it is, not that it overwrites it", async () => {
    await writeFile(path.join(world.root, "a.txt"), "v1\n");
    await call("bash", { command: "echo v2 > a.txt && echo b2 > b.txt" });
    await writeFile(path.join(world.root, "b.txt"), "the person's edit\n");
    await rm(path.join(world.home, "checkpoints", "blobs"), { recursive: true });

    const dry = await lathe(["restore", "1", "--session", "s1", "--dry-run"]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toMatch(
      /restore +a\.txt {2}CANNOT RESTORE: its previous content is missing or damaged/,
    );
    expect(dry.stderr).toBe(
      "error: 2 paths need a decision (marked above): run without --dry-run and with --force, which overwrites the 1 changed since and leaves the 1 that cannot be restored as it is.\n",
    );
  });

  it("refuses to overwrite a file the person changed (exit 1, nothing changed) until --force", async () => {
    await writeFile(path.join(world.root, "a.txt"), "v1\n");
    await call("bash", { command: "echo v2 > a.txt && echo new > b.txt" });
    await writeFile(path.join(world.root, "a.txt"), "the person's edit\n");

    const dry = await lathe(["restore", "1", "--session", "s1", "--dry-run"]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("Restoring checkpoint 1 (bash) would:");
    expect(dry.stdout).toMatch(/restore +a\.txt {2}CONFLICT: it was changed since/);
    expect(dry.stdout).toMatch(/delete +b\.txt$/m);

    expect(dry.stderr).toBe(
      "error: 1 path needs a decision (marked above): run without --dry-run and with --force, which overwrites the 1 changed since.\n",
    );

    const refused = await lathe(["restore", "1", "--session", "s1"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(
      "error: checkpoint 1 (bash) was not restored: 1 path changed since the checkpoint:",
    );
    expect(refused.stderr).toContain("a.txt: it was changed since, outside this session's tools");
    expect(refused.stderr).toContain("Nothing was changed. Run again with --force");
    expect(await text("a.txt")).toBe("the person's edit\n");
    expect(await text("b.txt")).toBe("new\n");

    const forced = await lathe(["restore", "1", "--session", "s1", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/restore +a\.txt {2}\(overwritten: it was changed since/);
    expect(await text("a.txt")).toBe("v1\n");
    expect(await text("b.txt")).toBeUndefined();

    // What --force overwrote is in the undo checkpoint.
    expect((await lathe(["restore", "2", "--session", "s1"])).code).toBe(0);
    expect(await text("a.txt")).toBe("the person's edit\n");
  });

  it.each([
    {
      name: "write, then the person makes the file executable",
      tool: ["write", { path: "run.sh", content: "echo written\n" }] as const,
      start: 0o644,
      person: 0o755,
      conflict: "its mode was changed since (755 now, 644 when write left it)",
    },
    {
      name: "a command that only chmods, then the person makes the file private",
      tool: ["bash", { command: "chmod 755 run.sh" }] as const,
      start: 0o644,
      person: 0o600,
      conflict: "its mode was changed since (600 now, 755 when bash left it)",
    },
  ])("$name: a conflict in --dry-run, refused (exit 1), restored with --force", async (row) => {
    const file = path.join(world.root, "run.sh");
    await writeFile(file, "echo hi\n");
    await chmod(file, row.start);
    await call("read", { path: "run.sh" });
    await call(row.tool[0], row.tool[1]);
    const left = await text("run.sh");
    // Positive control: nothing changed since, so the dry run finds no conflict.
    const clean = await lathe(["restore", "1", "--session", "s1", "--dry-run"]);
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.stdout).not.toContain("CONFLICT");

    await chmod(file, row.person);
    const dry = await lathe(["restore", "1", "--session", "s1", "--dry-run"]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain(`restore   run.sh  CONFLICT: ${row.conflict}, outside this session's tools`);

    const refused = await lathe(["restore", "1", "--session", "s1"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`run.sh: ${row.conflict}`);
    expect(refused.stderr).toContain("Nothing was changed. Run again with --force");
    expect((await stat(file)).mode & 0o7777).toBe(row.person);
    expect(await text("run.sh")).toBe(left);

    const forced = await lathe(["restore", "1", "--session", "s1", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`(overwritten: ${row.conflict}`);
    expect((await stat(file)).mode & 0o7777).toBe(row.start);
    expect(await text("run.sh")).toBe("echo hi\n");
  });

  it.each([
    { args: ["restore", "1", "--session", "nobody"], code: 1, says: 'There is no session "nobody"' },
    { args: ["restore", "9", "--session", "s1"], code: 1, says: "Session s1 has no checkpoint 9" },
    { args: ["checkpoints", "--session", "nobody"], code: 1, says: 'There is no session "nobody"' },
    {
      args: ["rewind", "--session", "s1", "--before", "5"],
      code: 1,
      says: "message 5 is not a prompt of session s1",
    },
    { args: ["restore", "abc", "--session", "s1"], code: 2, says: "Use a whole number from 1" },
    { args: ["restore", "0", "--session", "s1"], code: 2, says: "Use a whole number from 1" },
    { args: ["restore", "1"], code: 2, says: "required option '--session <id>' not specified" },
    { args: ["checkpoints"], code: 2, says: "required option '--session <id>' not specified" },
    {
      args: ["rewind", "--session", "s1"],
      code: 2,
      says: "required option '--before <message>' not specified",
    },
    { args: ["rewind", "--session", "s1", "--before", "-1"], code: 2, says: "Use a whole number" },
  ])("lathe $args exits $code: $says", async ({ args, code, says }) => {
    // Refusals about a real session (exit 1) need one; usage errors (exit 2) are caught before.
    if (code === 1) await call("write", { path: "x.txt", content: "x\n" });
    const run = await lathe(args);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(says);
  });

  it("shows a file name holding a newline on one line of the table, quoted", async () => {
    await call("bash", { command: "printf x > $'two\\nlines.txt'" }, "s3");
    const human = await lathe(["checkpoints", "--session", "s3"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('"two\\nlines.txt" (created)');
    expect(human.stdout.split("\n").filter((l) => l.includes("lines.txt"))).toHaveLength(1);
    expect((await listed("s3"))[0]?.paths.map((p) => p.path)).toEqual(["two\nlines.txt"]);
  });

  it("lists the new commands in the help", async () => {
    const run = await lathe(["--help"]);
    for (const command of ["checkpoints", "restore", "rewind"])
      expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    const restore = await lathe(["restore", "--help"]);
    for (const flag of [
      "<checkpoint-id>",
      "--session <id>",
      "--force",
      "--dry-run",
      "--json",
      "--root <dir>",
    ])
      expect(restore.stdout).toContain(flag);
  });

  it("lathe session delete removes the session's checkpoints and the contents only they kept", async () => {
    await writeFile(path.join(world.root, "file.txt"), "content only s1 kept\n");
    await call("bash", { command: "echo now > file.txt" });
    await call("bash", { command: "true" }, "s2"); // s2's workspace index holds "now"
    // Blobs used in the last minute are spared (a call may be about to refer to them): age them.
    const db = new Database(path.join(world.home, "lathe.db"));
    db.prepare("UPDATE checkpoint_blobs SET last_used_at = 0").run();
    db.close();
    const blobTexts = async (): Promise<string[]> => {
      const dir = path.join(world.home, "checkpoints", "blobs");
      const entries = await readdir(dir, { recursive: true, withFileTypes: true });
      const files = entries.filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name));
      return (await Promise.all(files.map((f) => readFile(f, "utf8")))).sort();
    };
    expect(await blobTexts()).toEqual(["content only s1 kept\n", "now\n"]);

    const deleted = await lathe(["session", "delete", "s1"]);
    expect(deleted).toMatchObject({ code: 0, stdout: "Deleted session s1.\n" });
    expect((await lathe(["checkpoints", "--session", "s1"])).stderr).toContain('There is no session "s1"');
    expect(await blobTexts()).toEqual(["now\n"]);
    const again = await lathe(["session", "delete", "s1"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`There is no session "s1" in ${world.root}.`);
  });
});

describe("lathe rewind", () => {
  it("takes a session back to before a prompt, and lathe run --resume continues from there", async () => {
    await writeFile(path.join(world.root, "a.txt"), "alpha\n");
    const server = await world.serve({
      models: ["m"],
      replies: (request) => {
        const prompt = JSON.stringify(request.messages.filter((m) => m.role === "user").at(-1)?.content);
        const answered = request.messages.at(-1)?.role === "tool";
        if (answered) return { text: "Done." };
        if (prompt.includes("first"))
          return { toolCalls: [{ name: "bash", arguments: { command: "echo one > a.txt" } }] };
        if (prompt.includes("second")) {
          return {
            toolCalls: [{ name: "bash", arguments: { command: "echo two > a.txt && echo b > b.txt" } }],
          };
        }
        return { text: "Resumed." };
      },
    });
    const model = ["--model", "openai-compatible:m", "--mode", "yolo"];
    const first = await lathe(["run", "the first change", ...model, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const start = JSON.parse(first.stdout.split("\n")[0] as string) as Extract<RunEvent, { type: "start" }>;
    const session = start.sessionId;
    expect((await lathe(["run", "the second change", ...model, "--resume", session])).code).toBe(0);
    expect(await text("a.txt")).toBe("two\n");

    const list = await lathe(["checkpoints", "--session", session]);
    expect(list.stdout).toMatch(/^prompt 0: "the first change"$/m);
    const second = /^prompt (\d+): "the second change"$/m.exec(list.stdout);
    expect(second).not.toBeNull();
    const before = second![1] as string;

    const dry = await lathe(["rewind", "--session", session, "--before", before, "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`Rewinding session ${session} to before prompt ${before} would remove`);
    expect(dry.stdout).toMatch(/restore +a\.txt/);
    expect(dry.stdout).toMatch(/delete +b\.txt/);
    expect(await text("a.txt")).toBe("two\n");

    const rewound = await lathe(["rewind", "--session", session, "--before", before]);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain(`Rewound session ${session} to before prompt ${before}`);
    expect(rewound.stdout).toContain(`--resume ${session}`);
    expect(await text("a.txt")).toBe("one\n");
    expect(await text("b.txt")).toBeUndefined();

    const resumed = await lathe(["run", "carry on", ...model, "--resume", session]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const last = server.requests.at(-1)!;
    const history = JSON.stringify(last.messages);
    expect(history).toContain("the first change");
    expect(history).not.toContain("the second change");
  });
});

describe("a session of another folder", () => {
  it("is neither listed, restored nor rewound from here: its conversation and files stay as they are", async () => {
    const other = await world.folder("other");
    await world.serve({ models: ["m"], replies: () => ({ text: "Noted." }) });
    // A conversation (no file changed, so no checkpoint) in the other folder.
    const started = await world.lathe(["run", "remember this", "--model", "openai-compatible:m", "--json"], {
      cwd: other,
    });
    expect(started.code, started.stderr).toBe(0);
    const session = (JSON.parse(started.stdout.split("\n")[0] as string) as { sessionId: string }).sessionId;
    const refusal = (then: string) =>
      `error: Session ${session} belongs to the folder ${other}, not ${world.root}. Pass --root ${other} to ${then}.\n`;

    // And a session there whose write made checkpoint 1 (of that folder's file).
    const theirs = await world.lathe(
      [
        "call",
        "write",
        '{"path":"theirs.txt","content":"theirs\\n"}',
        "--session",
        "theirs",
        "--mode",
        "yolo",
      ],
      { cwd: other },
    );
    expect(envelopeOf(theirs).type, theirs.stdout).toBe("output");
    const theirRefusal = (then: string) =>
      `error: Session theirs belongs to the folder ${other}, not ${world.root}. Pass --root ${other} to ${then}.\n`;

    const cases: Array<[args: string[], then: string]> = [
      [["checkpoints", "--session", session], "list its checkpoints"],
      [["restore", "1", "--session", session], "restore its checkpoints"],
      [["restore", "1", "--session", session, "--dry-run"], "restore its checkpoints"],
      [["rewind", "--session", session, "--before", "0", "--dry-run"], "rewind it"],
      [["rewind", "--session", session, "--before", "0"], "rewind it"],
    ];
    for (const [args, then] of cases) {
      const refused = await lathe(args);
      expect(refused, args.join(" ")).toMatchObject({ code: 1, stdout: "", stderr: refusal(then) });
    }
    for (const args of [
      ["restore", "1", "--session", "theirs"],
      ["restore", "1", "--session", "theirs", "--dry-run"],
      ["restore", "2", "--session", "theirs"],
      ["rewind", "--session", "theirs", "--before", "0"],
    ]) {
      const then = args[0] === "rewind" ? "rewind it" : "restore its checkpoints";
      const refused = await lathe(args);
      expect(refused, args.join(" ")).toMatchObject({ code: 1, stdout: "", stderr: theirRefusal(then) });
    }
    // Their file is as their write left it.
    expect(await readFile(path.join(other, "theirs.txt"), "utf8")).toBe("theirs\n");
    // The conversation is whole: from its own folder, a rewind would still remove both messages.
    const own = await world.lathe(["rewind", "--session", session, "--before", "0", "--dry-run"], {
      cwd: other,
    });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain(`Rewinding session ${session} to before prompt 0 would remove 2 messages`);
  });
});
