import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { runLathe, type Run } from "./support/lathe-cli.ts";

// `lathe session list` and `lathe session rename` as users run them: the real bin/lathe.mjs in
// child processes, with a loopback model, on a temp folder with its own LATHE_HOME.

let other: string;
const world = useCliWorld("lathe-session-cli-", {
  setup: async () => {
    other = await world.folder("other");
    await world.serve({ models: ["m"], replies: () => ({ text: "Noted." }) });
  },
});

const lathe = (args: string[], cwd = world.root): Promise<Run> => runLathe(args, { home: world.home, cwd });

/** Start a session with one prompt; its id. */
async function run(prompt: string, cwd = world.root): Promise<string> {
  const started = await lathe(["run", prompt, "--model", "openai-compatible:m", "--json"], cwd);
  expect(started.code, started.stderr).toBe(0);
  const first = JSON.parse(started.stdout.split("\n")[0] as string) as { sessionId: string };
  return first.sessionId;
}

interface Listed {
  id: string;
  kind: "conversation" | "calls";
  title: string;
  title_source: string;
  model: string;
  parent_id: string | null;
  updated_at: string;
}

async function listed(args: string[] = []): Promise<Listed[]> {
  const list = await lathe(["session", "list", "--json", ...args]);
  expect(list.code, list.stderr).toBe(0);
  return list.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Listed);
}

describe("lathe session list", () => {
  it("lists this folder's sessions newest first, as a table and as JSON lines; --search narrows", async () => {
    const older = await run("Explain the build   script");
    const newer = await run("Fix the flaky test");
    await run("Somewhere else", other);

    const table = await lathe(["session", "list"]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+UPDATED \(UTC\)\s+MODEL\s+TITLE$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${newer}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+openai-compatible:m\\s+Fix the flaky test$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^${older}\\s+.*\\s+Explain the build script$`)),
    ]);

    expect(await listed()).toEqual([
      expect.objectContaining({
        id: newer,
        title: "Fix the flaky test",
        title_source: "prompt",
        model: "openai-compatible:m",
        parent_id: null,
      }),
      expect.objectContaining({ id: older }),
    ]);
    expect((await listed(["--search", "FLAKY"])).map((s) => s.id)).toEqual([newer]);
    // The model's answers are searched too.
    expect((await listed(["--search", "noted"])).map((s) => s.id)).toEqual([newer, older]);
    expect((await listed(["--limit", "1"])).map((s) => s.id)).toEqual([newer]);
  });

  it("says when there is nothing to list, and how to start", async () => {
    expect(await lathe(["session", "list"])).toMatchObject({
      code: 0,
      stdout: `No sessions in ${world.root} yet. Start one with: lathe run "<prompt>"\n`,
    });
    await run("Something");
    expect((await lathe(["session", "list", "--search", "zzz"])).stdout).toBe(
      `No session in ${world.root} matches "zzz".\n`,
    );
    expect((await lathe(["session", "list", "--limit", "0"])).code).toBe(2);
  });
});

describe("lathe session list: the sessions of lathe call and lathe batch", () => {
  it("lists them beside the conversations, marked as made by --session, with what they hold", async () => {
    await writeFile(path.join(world.root, "a.txt"), "one\n");
    const call = (args: string[]) => lathe(["call", ...args]);
    expect((await call(["read", '{"path":"a.txt"}', "--session", "edits"])).code).toBe(0);
    expect(
      (await call(["write", '{"path":"a.txt","content":"two\\n"}', "--session", "edits", "--mode", "yolo"]))
        .code,
    ).toBe(0);
    const batch = await world.lathe(["batch", "--session", "scan"], {
      input: 'glob {"pattern":"*"}\nread {"path":"a.txt"}\n',
    });
    expect(batch.code, batch.stderr).toBe(0);
    const conversation = await run("Newest of all");
    // Closed with nothing to restore: nothing left to list. Closed with a checkpoint: still listed.
    expect((await call(["glob", '{"pattern":"*"}', "--session", "done"])).code).toBe(0);
    for (const id of ["done", "edits"]) expect((await lathe(["session", "close", id])).code).toBe(0);

    const table = (await lathe(["session", "list"])).stdout.trimEnd().split("\n");
    expect(table.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(`^${conversation}\\s+\\S+ \\S+\\s+openai-compatible:m\\s+Newest of all$`),
      ),
      expect.stringMatching(/^scan\s+\S+ \S+\s+lathe call --session\s+\(2 tool calls\)$/),
      expect.stringMatching(
        /^edits\s+\S+ \S+\s+lathe call --session\s+\(closed; 2 tool calls, 1 checkpoint\)$/,
      ),
    ]);
    const json = await listed();
    expect(json.map((s) => [s.id, s.kind])).toEqual([
      [conversation, "conversation"],
      ["scan", "calls"],
      ["edits", "calls"],
    ]);
    expect(json[1]).toEqual({
      id: "scan",
      kind: "calls",
      title: "",
      title_source: "none",
      agent: "",
      model: "",
      parent_id: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      calls: 2,
      checkpoints: 0,
      closed_at: null,
    });
    expect(json[2]).toMatchObject({ id: "edits", checkpoints: 1, closed_at: expect.stringMatching(/Z$/) });

    // What the list offers works on them: a name (found by --search), and delete.
    expect(await lathe(["session", "rename", "scan", "Nightly scan"])).toMatchObject({
      code: 0,
      stdout: "Renamed session scan: Nightly scan\n",
    });
    expect((await listed(["--search", "nightly"])).map((s) => s.id)).toEqual(["scan"]);
    expect((await lathe(["session", "delete", "edits"])).code).toBe(0);
    expect((await listed()).map((s) => s.id)).toEqual([conversation, "scan"]);
    expect((await listed(["--limit", "1"])).map((s) => s.id)).toEqual([conversation]);
  });
});

describe("lathe run --resume of a session of tool calls", () => {
  it("says it has no conversation and how to go on with it, and leaves it as it was", async () => {
    expect((await lathe(["call", "glob", '{"pattern":"*"}', "--session", "scan"])).code).toBe(0);
    const refused = await lathe(["run", "Go on", "--resume", "scan", "--model", "openai-compatible:m"]);
    expect(refused).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        'error: Session scan holds tool calls alone (lathe call or lathe batch with --session scan): it has no conversation to resume. Go on with --session scan on lathe call or lathe batch, or start a conversation with lathe run "<prompt>".\n',
    });
    expect(await listed()).toEqual([expect.objectContaining({ id: "scan", kind: "calls", calls: 1 })]);
    // An id no session has is told apart from it.
    const unknown = await lathe(["run", "Go on", "--resume", "scant", "--model", "openai-compatible:m"]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain('There is no conversation "scant" to resume.');
  });
});

describe("lathe session rename", () => {
  it("names a session, and an empty title brings back the automatic one", async () => {
    const id = await run("Explain the build script");
    expect(await lathe(["session", "rename", id, "  Build   notes "])).toMatchObject({
      code: 0,
      stdout: `Renamed session ${id}: Build notes\n`,
    });
    expect(await listed()).toEqual([
      expect.objectContaining({ id, title: "Build notes", title_source: "custom" }),
    ]);
    // Searching finds it by its new name.
    expect((await listed(["--search", "build notes"])).map((s) => s.id)).toEqual([id]);
    expect((await lathe(["session", "rename", id, ""])).stdout).toBe(
      `Session ${id} has its automatic title again: Explain the build script\n`,
    );
  });

  it("refuses an unknown session, another folder's, and a title too long, changing nothing", async () => {
    const id = await run("Mine");
    const elsewhere = await run("Theirs", other);
    const unknown = await lathe(["session", "rename", "s-nope", "x"]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toBe(
      `error: There is no session "s-nope" in ${world.root}. List this folder's sessions with: lathe session list --root ${world.root}\n`,
    );
    const foreign = await lathe(["session", "rename", elsewhere, "x"]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(
      `error: Session ${elsewhere} belongs to the folder ${other}, not ${world.root}. Pass --root ${other} to rename it.\n`,
    );
    const long = await lathe(["session", "rename", id, "x".repeat(201)]);
    expect(long).toMatchObject({
      code: 2,
      stderr:
        "error: A session title has at most 200 characters; this one has 201.\n" +
        '(run "lathe --help" or "lathe <command> --help" for usage)\n',
    });
    expect(await listed()).toEqual([expect.objectContaining({ id, title: "Mine", title_source: "prompt" })]);
  });
});

describe("lathe session close and delete", () => {
  it("refuse another folder's session (exit 1, nothing changed), as using it is refused", async () => {
    const elsewhere = await run("Theirs", other);
    const refusal = `Session ${elsewhere} belongs to the folder ${other}, not ${world.root}. Pass --root ${other}`;
    for (const command of ["delete", "close"]) {
      const refused = await lathe(["session", command, elsewhere]);
      expect(refused, command).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toBe(`error: ${refusal} to ${command} it.\n`);
    }
    // Still there, still open: its folder resumes it.
    expect(await listed(["--root", other])).toEqual([
      expect.objectContaining({ id: elsewhere, title: "Theirs" }),
    ]);
    const resumed = await lathe(
      ["run", "Again", "--resume", elsewhere, "--model", "openai-compatible:m"],
      other,
    );
    expect(resumed.code, resumed.stderr).toBe(0);

    const deleted = await lathe(["session", "delete", elsewhere, "--root", other]);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted session ${elsewhere}.\n` });
    expect(await listed(["--root", other])).toEqual([]);
  });
});

describe("a session id that leads nowhere here", () => {
  const commands: Array<{ name: string; args: (id: string) => string[]; then: string }> = [
    { name: "session close", args: (id) => ["session", "close", id], then: "close it" },
    { name: "session delete", args: (id) => ["session", "delete", id], then: "delete it" },
    { name: "session rename", args: (id) => ["session", "rename", id, "T"], then: "rename it" },
    { name: "checkpoints", args: (id) => ["checkpoints", "--session", id], then: "list its checkpoints" },
  ];

  it("gets, from every command that takes one, what is wrong and how to list this folder's sessions", async () => {
    for (const [id, cwd] of [
      ["work1", world.root],
      ["work2", world.root],
      ["theirs", other],
    ] as const) {
      const opened = await lathe(["call", "glob", '{"pattern":"*"}', "--session", id], cwd);
      expect(opened.code, opened.stderr).toBe(0);
    }
    const list = `List this folder's sessions with: lathe session list --root ${world.root}`;
    for (const command of commands) {
      const cases = [
        { id: "nope", says: `There is no session "nope" in ${world.root}. ${list}` },
        {
          id: "work",
          says: `There is no session "work" in ${world.root}. Ids are matched whole; these start with "work": work1, work2. ${list}`,
        },
        { id: "work1x", says: `There is no session "work1x" in ${world.root}. ${list}` },
        // "_" is a wildcard to SQL's LIKE, not to an id: nothing starts with "wor_".
        { id: "wor_", says: `There is no session "wor_" in ${world.root}. ${list}` },
        {
          id: "theirs",
          says: `Session theirs belongs to the folder ${other}, not ${world.root}. Pass --root ${other} to ${command.then}.`,
        },
      ];
      for (const { id, says } of cases) {
        const refused = await lathe(command.args(id));
        expect(refused, `${command.name} ${id}`).toEqual({
          code: 1,
          signal: null,
          stdout: "",
          stderr: `error: ${says}\n`,
        });
      }
    }
    // Nothing was closed, deleted or renamed: each session is still open, in its own folder.
    for (const [id, cwd] of [
      ["work1", world.root],
      ["work2", world.root],
      ["theirs", other],
    ] as const) {
      expect(await lathe(["session", "close", id], cwd), id).toMatchObject({
        code: 0,
        stdout: `Closed session ${id}.\n`,
      });
    }
    // A closed session is there still (its checkpoints stay), so closing it again says that.
    expect(await lathe(["session", "close", "work1"])).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "error: Session work1 is already closed. Its checkpoints stay (lathe checkpoints --session work1); lathe session delete work1 removes it for good.\n",
    });
  });
});

describe("lathe audit with filters that match nothing", () => {
  it("says which filters matched nothing, not that nothing was ever recorded", async () => {
    await lathe(["call", "glob", '{"pattern":"*"}']);
    expect((await lathe(["audit"])).stdout).toMatch(/glob/);
    expect((await lathe(["audit", "--session", "nosuch", "--tool", "glob"])).stdout).toBe(
      `No tool invocations in ${world.root} match session nosuch, tool glob. \`lathe audit --all\` shows every folder's.\n`,
    );
    expect((await lathe(["audit", "--all", "--session", "nosuch"])).stdout).toBe(
      "No tool invocations match session nosuch.\n",
    );
  });
});

describe("a session id across commands", () => {
  // One contract for every command that takes a session id: a well-formed id that names no
  // session of this LATHE_HOME is a failure of the state, not of the command line (exit 1, the
  // reason on stderr); a malformed id can never name one, so it is a usage error (exit 2).
  const MODEL = ["--model", "openai-compatible:m"];
  const commands: Array<[what: string, args: (id: string) => string[]]> = [
    ["run --resume", (id) => ["run", "Go on", "--resume", id, ...MODEL]],
    ["run --resume --replay", (id) => ["run", "--resume", id, "--replay"]],
    ["session rename", (id) => ["session", "rename", id, "A title"]],
    ["session close", (id) => ["session", "close", id]],
    ["session delete", (id) => ["session", "delete", id]],
    ["checkpoints", (id) => ["checkpoints", "--session", id]],
    ["restore", (id) => ["restore", "1", "--session", id]],
    ["restore --dry-run", (id) => ["restore", "1", "--session", id, "--dry-run"]],
    ["rewind", (id) => ["rewind", "--session", id, "--before", "0"]],
  ];

  it.each(commands)("lathe %s of an id no session has exits 1 and says so", async (_, args) => {
    const refused = await lathe(args("s-nobody-has-this"));
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^error: There is no (session|conversation) "s-nobody-has-this"/);
  });

  it.each(commands)("lathe %s of a malformed id exits 2 and says what an id may be", async (_, args) => {
    const refused = await lathe(args("no/such:id"));
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain('Session id "no/such:id" is invalid');
  });
});
