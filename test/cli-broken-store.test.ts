import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runLathe } from "./support/lathe-cli.ts";
import { tempWorld } from "./support/lathe-process.ts";

// A $LATHE_HOME/lathe.db that is not a database (overwritten, a disk's garbage): every command
// that needs it fails with one line that names the file and what to do, and leaves it as it was.
// A command that makes no tool call says nothing about tool calls.

let world: Awaited<ReturnType<typeof tempWorld>>;
const garbage = "not a database, a person's notes\n".repeat(300);

beforeEach(async () => {
  world = await tempWorld("lathe-broken-store-");
  await writeFile(path.join(world.home, "lathe.db"), garbage);
});
afterEach(async () => world.cleanup());

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
      const run = await runLathe(args as string[], {
        home: world.home,
        cwd: world.root,
        env: { LATHE_DAEMON: "off" },
      });
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

  it("lathe call: the call is not run, its envelope says why, and stderr says the call is not in the trail", async () => {
    await writeFile(path.join(world.root, "a.txt"), "hello\n");
    const run = await runLathe(["call", "read", '{"path":"a.txt"}'], {
      home: world.home,
      cwd: world.root,
      env: { LATHE_DAEMON: "off" },
    });
    expect(JSON.parse(run.stdout)).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/^read was not run: Lathe cannot record tool calls .*SQLITE_NOTADB/),
    });
    expect(run.stderr).toMatch(/1 tool call is missing from the audit trail/);
    expect(run.code).toBe(1);
    expect(await readFile(path.join(world.home, "lathe.db"), "utf8")).toBe(garbage);
  });
});
