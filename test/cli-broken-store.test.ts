import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";

// A $LATHE_HOME/lathe.db that is not a database (overwritten, a disk's garbage): every command
// that needs it fails with one line that names the file and what to do, and leaves it as it was.
// A command that makes no tool call says nothing about tool calls.

const garbage = "not a database, a person's notes\n".repeat(300);
const world = useCliWorld("lathe-broken-store-", {
  setup: async () => {
    await writeFile(path.join(world.home, "lathe.db"), garbage);
  },
});

const NO_CALL_COMMANDS = [
  ["audit"],
  ["audit", "--all", "--json"],
  ["session", "list"],
  ["checkpoints", "--session", "s1"],
  ["session", "close", "s1"],
];

describe("a lathe.db that is not a database", () => {
  it.each(NO_CALL_COMMANDS.map((args) => [args.join(" "), args]))(
    "lathe %s: exit 1, one line saying what is wrong and what to do, the file untouched",
    async (_name, args) => {
      const run = await world.lathe(args as string[], { env: { LATHE_DAEMON: "off" } });
      expect(run.stdout).toBe("");
      expect(run.stderr.trimEnd().split("\n")).toEqual([
        expect.stringMatching(
          /^error: Lathe could not open its database in .*lathe\.db: the file is not a Lathe database \(SQLITE_NOTADB\)\. Move .*lathe\.db aside with its .*lathe\.db-wal and .*lathe\.db-shm files/,
        ),
      ]);
      expect(run.code).toBe(1);
      expect(await readFile(path.join(world.home, "lathe.db"), "utf8")).toBe(garbage);
    },
  );

  /** How many times stderr says why the database cannot be used. */
  const reasonsSaid = (stderr: string): number => stderr.split("SQLITE_NOTADB").length - 1;

  it("lathe call: the call is not run, its envelope says why, and stderr says it once, and that the call is not in the trail", async () => {
    await writeFile(path.join(world.root, "a.txt"), "hello\n");
    const run = await world.lathe(["call", "read", '{"path":"a.txt"}'], { env: { LATHE_DAEMON: "off" } });
    expect(JSON.parse(run.stdout)).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/^read was not run: Lathe cannot record tool calls .*SQLITE_NOTADB/),
    });
    expect(reasonsSaid(run.stderr)).toBe(1);
    expect(run.stderr).toMatch(/1 tool call is missing from the audit trail/);
    expect(run.code).toBe(1);
    expect(await readFile(path.join(world.home, "lathe.db"), "utf8")).toBe(garbage);
  });

  it("lathe batch: one envelope per call, and stderr says why once for all of them", async () => {
    await writeFile(path.join(world.root, "a.txt"), "hello\n");
    const run = await world.lathe(["batch"], {
      env: { LATHE_DAEMON: "off" },
      input: 'read {"path":"a.txt"}\nglob {"pattern":"*"}\n',
    });
    const envelopes = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(envelopes.map((e) => e.type)).toEqual(["error", "error"]);
    expect(reasonsSaid(run.stderr)).toBe(1);
    expect(run.stderr).toMatch(/2 tool calls are missing from the audit trail/);
    expect(run.code).toBe(1);
  });
});
