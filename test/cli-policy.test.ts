import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

const world = useCliWorld("lathe-cli-policy-");

const lathe = (args: string[]) => world.lathe(args);

async function projectSettings(settings: unknown): Promise<void> {
  await mkdir(path.join(world.root, ".lathe"), { recursive: true });
  await writeFile(path.join(world.root, ".lathe/settings.json"), JSON.stringify(settings));
}

describe("project trust from the CLI", () => {
  beforeEach(async () => {
    await projectSettings({
      permissions: [
        { permission: "write", pattern: "out/**", action: "allow" },
        { permission: "read", pattern: "secret/**", action: "deny" },
      ],
    });
    await mkdir(path.join(world.root, "secret"));
    await writeFile(path.join(world.root, "secret/key.txt"), "k");
  });

  it("ignores an untrusted project's allow rules, says so once, and still applies its deny rules", async () => {
    const write = await lathe(["call", "write", '{"path":"out/a.txt","content":"x"}']);
    // Each reason after the refusal reads as a sentence of its own.
    expect(envelopeOf(write).error_text).toMatch(
      /needs approval and this host cannot ask anyone \(headless\), so it is refused\. [A-Z]/,
    );
    expect(write.stderr.match(/This folder is not trusted/g)).toHaveLength(1);
    expect(write.stderr).toContain(`lathe trust --root ${world.root}`);
    await expect(readFile(path.join(world.root, "out/a.txt"))).rejects.toMatchObject({ code: "ENOENT" });

    const read = await lathe(["call", "read", '{"path":"secret/key.txt"}']);
    expect(envelopeOf(read).error_text).toMatch(
      /denied: reading "secret\/key\.txt" matched the project rule/,
    );
  });

  it("keeps the files its read deny rule covers out of glob and grep: no name, no line, a count", async () => {
    await writeFile(path.join(world.root, "notes.md"), "k\n");
    const glob = envelopeOf(await lathe(["call", "glob", '{"pattern":"**/*.{md,txt}"}']));
    expect(glob.data).toEqual({
      files: ["notes.md"],
      note: "left out 1 file that your permission rules deny reading (not named; reading it is refused)",
    });
    const grep = await lathe(["call", "grep", '{"pattern":"k","output_mode":"content"}']);
    expect(envelopeOf(grep).data).toMatchObject({ matches: [{ path: "notes.md", line: 1, text: "k" }] });
    expect(grep.stdout).not.toContain("key.txt");
    expect(envelopeOf(await lathe(["call", "glob", '{"pattern":"secret/*"}'])).error_text).toMatch(
      /^glob was denied: reading "secret" matched the project rule/,
    );
  });

  it("trusts the folder with `lathe trust`, listing what takes effect; then its allow rules work", async () => {
    const trust = await lathe(["trust", "--root", world.root]);
    expect(trust.code).toBe(0);
    expect(trust.stdout).toContain('rule      allow write "out/**"');
    expect(trust.stdout).toContain("Trust recorded in");

    const write = await lathe(["call", "write", '{"path":"out/a.txt","content":"x"}']);
    expect(envelopeOf(write).type).toBe("output");
    expect(write.stderr).not.toMatch(/not trusted/);
    expect(await readFile(path.join(world.root, "out/a.txt"), "utf8")).toBe("x");

    // --dry-run only shows, with --revoke too: the folder stays trusted.
    const trustFile = await readFile(path.join(world.home, "trust.json"), "utf8");
    const dryRevoke = await lathe(["trust", "--revoke", "--dry-run", "--root", world.root]);
    expect(dryRevoke).toMatchObject({
      code: 0,
      stdout: `${world.root} would no longer be trusted. Nothing was changed (--dry-run).\n`,
    });
    const dryJson = await lathe(["trust", "--revoke", "--dry-run", "--json", "--root", world.root]);
    expect(JSON.parse(dryJson.stdout)).toEqual({ root: world.root, trusted: true, revoked: false });
    expect(await readFile(path.join(world.home, "trust.json"), "utf8")).toBe(trustFile);
    expect(envelopeOf(await lathe(["call", "write", '{"path":"out/c.txt","content":"x"}'])).type).toBe(
      "output",
    );

    const revoke = await lathe(["trust", "--revoke", "--root", world.root]);
    expect(revoke.stdout).toContain("no longer trusted");
    const again = await lathe(["call", "write", '{"path":"out/b.txt","content":"x"}']);
    expect(envelopeOf(again).type).toBe("error");
  });
});

describe("a read deny rule and a project's symlinks", () => {
  // The project's `.env` is a symlink to where the secret is stored; the user denied `.env`.
  beforeEach(async () => {
    await mkdir(path.join(world.root, "cfg"));
    await writeFile(path.join(world.root, "cfg/env.real"), "TOKEN=sk-cli-link-77\n");
    await symlink("cfg/env.real", path.join(world.root, ".env"));
  });

  it("reads it with no rule (control), and refuses it by its name with the rule, naming the rule", async () => {
    const open = await lathe(["call", "read", '{"path":".env"}']);
    expect(open.stdout).toContain("sk-cli-link-77");

    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ permissions: [{ permission: "fs.read", pattern: ".env", action: "deny" }] }),
    );
    const refused = await lathe(["call", "read", '{"path":".env"}']);
    expect(refused.code).toBe(1);
    expect(envelopeOf(refused).error_text).toMatch(
      /^read was denied: reading "\.env" \(through a symlink\) matched the user rule \{permission: "fs\.read", pattern: "\.env", action: "deny"\}/,
    );
    expect(refused.stdout).not.toContain("sk-cli-link-77");
  });
});

describe("lathe audit", () => {
  it("records every invocation with its decisions, redacting secrets", async () => {
    await writeFile(path.join(world.root, "a.txt"), "hello\n");
    await lathe(["call", "read", '{"path":"a.txt"}', "--session", "audited"]);
    await lathe([
      "call",
      "write",
      '{"path":"b.txt","content":"API_TOKEN=hunter2hunter2"}',
      "--session",
      "audited",
    ]);
    await lathe(["call", "nope", "{}", "--session", "other"]);

    const run = await lathe(["audit", "--json", "--session", "audited"]);
    expect(run.code).toBe(0);
    const rows = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.tool, r.outcome])).toEqual([
      ["read", "output"],
      ["write", "error"],
    ]);
    expect(rows[0]).toMatchObject({
      session_id: "audited",
      origin: { layer: "builtin", kind: "builtin" },
      args: { path: "a.txt" },
      decisions: [
        { stage: "capability", outcome: "allow" },
        { stage: "rule", outcome: "ask" },
        { stage: "watchdog", outcome: "allow" },
        { stage: "approval", outcome: "allow", reason: "read is not gated" },
      ],
    });
    expect(rows[0]?.descriptor_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows[1])).not.toContain("hunter2hunter2");
    expect((rows[1]?.decisions as Array<{ stage: string; outcome: string }>).at(-1)).toMatchObject({
      stage: "approval",
      outcome: "deny",
    });

    const all = await lathe(["audit"]);
    expect(all.stdout).toContain("nope");
    expect(all.stdout).toContain("denied at approval");

    const tools = async (...args: string[]) =>
      (await lathe(["audit", "--json", ...args])).stdout
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { tool: string }).tool);
    expect(await tools("--outcome", "denied")).toEqual(["write"]);
    expect(await tools("--outcome", "error")).toEqual(["nope"]);
    expect(await tools("--tool", "read", "--outcome", "output")).toEqual(["read"]);
    const bad = await lathe(["audit", "--outcome", "maybe"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Use output \(it ran\), error \(it failed\) or denied/);
  });

  it("narrows to a time window with --since and --until: a date, a date and time, or a time ago", async () => {
    await writeFile(path.join(world.root, "a.txt"), "hello\n");
    for (const session of ["three-days-ago", "two-hours-ago", "just-now"]) {
      expect(envelopeOf(await lathe(["call", "read", '{"path":"a.txt"}', "--session", session])).type).toBe(
        "output",
      );
    }
    expect(envelopeOf(await lathe(["call", "glob", '{"pattern":"*"}', "--session", "just-now"])).type).toBe(
      "output",
    );
    // The calls are moved back in time, as if they had been made then.
    const now = Date.now();
    const threeDaysAgo = now - 3 * 86_400_000;
    const db = new Database(path.join(world.home, "lathe.db"));
    const setTime = db.prepare("UPDATE audit SET started_at = ? WHERE session_id = ?");
    setTime.run(threeDaysAgo, "three-days-ago");
    setTime.run(now - 2 * 3_600_000, "two-hours-ago");
    db.close();

    const sessions = async (...args: string[]) => {
      const run = await lathe(["audit", "--json", ...args]);
      expect(run.code, run.stderr).toBe(0);
      return run.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => {
          const row = JSON.parse(l) as { session_id: string; tool: string };
          return `${row.session_id} ${row.tool}`;
        });
    };
    expect(await sessions("--since", "1d")).toEqual(["two-hours-ago read", "just-now read", "just-now glob"]);
    expect(await sessions("--since", "3h", "--until", "1h")).toEqual(["two-hours-ago read"]);
    expect(await sessions("--until", "90m", "--tool", "read")).toEqual([
      "three-days-ago read",
      "two-hours-ago read",
    ]);
    expect(await sessions("--since", "10m", "--tool", "glob")).toEqual(["just-now glob"]);
    // An ISO date is that day from midnight UTC; a date and time with an offset is that moment.
    const day = new Date(threeDaysAgo).toISOString().slice(0, 10);
    const nextDay = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
    expect(await sessions("--since", day, "--until", nextDay)).toEqual(["three-days-ago read"]);
    const atPlusTwo = new Date(threeDaysAgo + 2 * 3_600_000).toISOString().slice(0, 19);
    expect(await sessions("--since", `${atPlusTwo}+02:00`, "--until", "1d")).toEqual(["three-days-ago read"]);
    // The table says which window matched nothing.
    const none = await lathe(["audit", "--since", "5d", "--until", "4d"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(
      /^No tool invocations in .* match since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, until \d{4}-.* UTC\. /,
    );
  });

  it.each([
    ["--since", "yesterday"],
    ["--since", "10"],
    ["--until", "2025-02-30"],
    ["--until", "June 1, 2025"],
  ])("refuses %s %j: exit 2, saying what forms it accepts", async (flag, value) => {
    const refused = await lathe(["audit", flag, value]);
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toContain(`"${value}" is not a time Lathe understands.`);
    expect(refused.stderr).toContain("Use a date (2025-06-01), a date and time");
    expect(refused.stderr).toContain("(90s, 10m, 2h, 3d, 1w)");
  });

  it("refuses a window that ends before it starts: exit 2", async () => {
    const refused = await lathe(["audit", "--since", "1h", "--until", "2h"]);
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toMatch(/^error: --since \(.* UTC\) is not before --until \(.* UTC\)/);
  });

  describe("per folder", () => {
    let other: string;
    let empty: string;
    beforeEach(async () => {
      other = await world.folder("other");
      empty = await world.folder("empty");
    });

    interface JsonRow {
      root: string | null;
      tool: string;
      args: unknown;
      session_id: string;
    }
    const jsonRows = (stdout: string) =>
      stdout
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as JsonRow);

    /** A read in each folder, and a row as a Lathe from before folders were recorded left it. */
    async function callsInTwoFolders(): Promise<void> {
      await writeFile(path.join(world.root, "a.txt"), "a\n");
      await writeFile(path.join(other, "b.txt"), "b\n");
      expect(envelopeOf(await lathe(["call", "read", '{"path":"a.txt"}'])).type).toBe("output");
      const there = await world.lathe(["call", "read", '{"path":"b.txt"}'], { cwd: other });
      expect(envelopeOf(there).type).toBe("output");
      const db = new Database(path.join(world.home, "lathe.db"));
      db.prepare(
        `INSERT INTO audit (call_id, session_id, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
         VALUES ('old', 's-old', 'glob', '{"pattern":"*"}', '[]', 'output', '{}', 1, 1700000000000)`,
      ).run();
      db.close();
    }

    it("lists the calls of the folder it runs for: the current directory, or --root", async () => {
      await callsInTwoFolders();
      const here = jsonRows((await lathe(["audit", "--json"])).stdout);
      expect(here.map((r) => [r.root, r.tool, r.args])).toEqual([[world.root, "read", { path: "a.txt" }]]);
      const there = jsonRows((await lathe(["audit", "--json", "--root", other])).stdout);
      expect(there.map((r) => [r.root, r.tool, r.args])).toEqual([[other, "read", { path: "b.txt" }]]);
      // The folder is its real path: reached through a symlink, it is the same folder.
      const link = path.join(empty, "link");
      await symlink(other, link);
      expect(jsonRows((await lathe(["audit", "--json", "--root", link])).stdout)).toEqual(there);

      const table = (await lathe(["audit"])).stdout;
      expect(table).toContain("a.txt");
      expect(table).not.toContain("b.txt");
      expect(table).not.toContain("s-old");
    });

    it("lists every folder's with --all, naming each folder (none for rows from before)", async () => {
      await callsInTwoFolders();
      const all = jsonRows((await lathe(["audit", "--json", "--all"])).stdout);
      expect(all.map((r) => [r.root, r.tool])).toEqual([
        [world.root, "read"],
        [other, "read"],
        [null, "glob"],
      ]);
      const lines = (await lathe(["audit", "--all"])).stdout.trim().split("\n");
      expect(lines).toHaveLength(3);
      // Columns: time, folder, session, tool, outcome, duration, arguments.
      const columns = (line: string | undefined) => (line ?? "").split(/ {2,}/).slice(1, 5);
      expect(columns(lines[0])).toEqual([world.root, expect.stringMatching(/^s-/), "read", "output"]);
      expect(columns(lines[1])).toEqual([other, expect.stringMatching(/^s-/), "read", "output"]);
      expect(columns(lines[2])).toEqual(["(folder not recorded)", "s-old", "glob", "output"]);
      expect(lines[0]).toContain("a.txt");
      expect(lines[1]).toContain("b.txt");
    });

    it("says which folder had none and how to see every folder's", async () => {
      await callsInTwoFolders();
      const none = await lathe(["audit", "--root", empty]);
      expect(none).toMatchObject({
        code: 0,
        stdout: `No tool invocations in ${empty} recorded yet. \`lathe audit --all\` shows every folder's.\n`,
      });
      expect((await lathe(["audit", "--json", "--root", empty])).stdout).toBe("");
    });

    it("refuses --all with --root, saying which to drop", async () => {
      const run = await lathe(["audit", "--all", "--root", other]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /--all lists every folder's invocations, so --root has no effect with it\. Drop --root/,
      );
      expect(run.stdout).toBe("");
    });
  });
});

describe("broken settings", () => {
  it.each([
    ["not JSON", "{", /is not valid JSON/],
    [
      "a bad action",
      JSON.stringify({ permissions: [{ permission: "bash", action: "sometimes" }] }),
      /permissions\.0\.action/,
    ],
    [
      // Another agent's spelling: a deny rule that would have denied nothing.
      "a permission no tool has",
      JSON.stringify({ permissions: [{ permission: "Bash", pattern: "rm *", action: "deny" }] }),
      /permissions\.0\.permission: .*"Bash" is no tool's id .*write "bash"/,
    ],
  ])(
    "stops with a clear error naming the file and the field when user settings are %s",
    async (_n, text, message) => {
      await writeFile(path.join(world.home, "settings.json"), text);
      const run = await lathe(["call", "read", '{"path":"x"}']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(path.join(world.home, "settings.json"));
      expect(run.stderr).toMatch(message);
    },
  );
});
