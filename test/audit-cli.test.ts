import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// The audit trail as a person reads it with `lathe audit`: every row listed whatever the calls
// held (secrets, key headers, terminal escapes), and no secret in it in clear.

const world = useCliWorld("lathe-audit-cli-");

const lathe = (args: string[]) => world.lathe(args);

/** `lathe audit --json …` as rows; the command must succeed. */
async function auditRows(...args: string[]): Promise<Array<Record<string, unknown>>> {
  const run = await lathe(["audit", "--json", ...args]);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("lathe audit", () => {
  it("lists a refused call whose command holds a private key's first line", async () => {
    // Headless, the command is refused; its reason quotes it, and the mask of a key that never
    // ends used to run to the end of the decisions' JSON, so every listing failed.
    const refused = await lathe(["call", "bash", '{"command":"echo -----BEGIN RSA PRIVATE KEY-----"}']);
    expect(envelopeOf(refused).type).toBe("error");

    const table = await lathe(["audit"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/bash\s+denied/);
    expect(table.stdout).toContain("denied at approval: bash needs approval");

    const [row] = await auditRows("--outcome", "denied");
    expect(row?.tool).toBe("bash");
    expect((row?.decisions as Array<{ stage: string }>).map((d) => d.stage)).toEqual([
      "capability",
      "rule",
      "watchdog",
      "approval",
    ]);
  });

  it("still lists a row an older Lathe recorded with its decisions' JSON broken", async () => {
    expect(envelopeOf(await lathe(["call", "glob", '{"pattern":"*"}'])).type).toBe("output");
    const db = new Database(path.join(world.home, "lathe.db"));
    const broken =
      '[{"stage":"capability","outcome":"allow","reason":"ok"},{"stage":"approval","outcome":"deny","reason":"key [REDACTED PRIVATE KEY]';
    db.prepare("UPDATE audit SET decisions_json = ?, outcome = 'error'").run(broken);
    db.close();

    const table = await lathe(["audit"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/glob\s+denied/);
    expect((await auditRows())[0]?.decisions).toBe(broken);
    expect((await auditRows("--outcome", "denied")).map((r) => r.tool)).toEqual(["glob"]);
    expect(await auditRows("--outcome", "error")).toEqual([]);
  });

  it("shows what a call's text holds without letting it drive the terminal", async () => {
    // ESC [1A ESC [2K: cursor up, erase the line — a command could hide the row above it.
    const command = "echo \u001b[1A\u001b[2Khidden";
    await lathe(["call", "bash", JSON.stringify({ command })]);
    const table = await lathe(["audit"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("denied at approval");
    expect(table.stdout).not.toMatch(/\p{Cc}(?<!\n)/u);
    expect(table.stdout).toContain("\\u001b[1A\\u001b[2Khidden");
  });
});

describe("lathe audit's table", () => {
  /**
   * Where each column of a row lines up (time, [folder,] session, tool, outcome, duration,
   * arguments): where it starts, and where it ends for the duration (right-aligned).
   */
  function columnEdges(line: string): number[] {
    const cells = [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
    }));
    return cells.map((c, i) => (i === cells.length - 2 ? c.end : c.start));
  }

  /** `lathe audit …` prints `rows` rows of `columns` columns, each column lined up in every row. */
  async function expectAligned(args: string[], rows: number, columns: number): Promise<void> {
    const run = await lathe(["audit", ...args]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(rows);
    const edges = lines.map(columnEdges);
    for (const e of edges) expect(e, run.stdout).toHaveLength(columns);
    for (const e of edges) expect(e, run.stdout).toEqual(edges[0]);
  }

  it("lines up its columns when session ids, tools and folders differ in length", async () => {
    await writeFile(path.join(world.root, "a.txt"), "a\n");
    const other = await world.folder("a-folder-with-a-much-longer-name");
    const call = (args: string[], cwd = world.root) => world.lathe(["call", ...args], { cwd });
    expect(envelopeOf(await call(["glob", '{"pattern":"*"}', "--session", "s1"])).type).toBe("output");
    const longer = ["read", '{"path":"a.txt"}', "--session", "a-session-with-a-much-longer-id"];
    expect(envelopeOf(await call(longer)).type).toBe("output");
    // Ephemeral: the session id Lathe makes; and a tool with a longer name.
    expect(envelopeOf(await call(["tool_search", '{"query":"files"}'])).type).toBe("output");
    expect(envelopeOf(await call(["glob", '{"pattern":"*"}', "--session", "s2"], other)).type).toBe("output");

    await expectAligned([], 3, 6);
    await expectAligned(["--all"], 4, 7);
  });
});

describe("lathe audit keeps secrets out", () => {
  // Each route a key reaches a call by, with a value shaped as the real ones are.
  it.each([
    [
      "a variable in a command",
      "STRIPE_SECRET_KEY=sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
      "sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
    ],
    [
      "a bearer header",
      "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123'",
      "ghp_abcdefghijklmnopqrstuvwxyz0123",
    ],
    [
      "an API-key header",
      "curl -H 'X-Api-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0'",
      "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ],
    [
      "a token in a URL",
      "curl 'https://api.example.com/v1?access_token=ya29.a0AfH6SMBx3'",
      "ya29.a0AfH6SMBx3",
    ],
    ["a password in a URL", "git clone https://me:Zq8rT2vLx9@git.example.com/repo", "Zq8rT2vLx9"],
    [
      "npm's auth token",
      "npm config set //registry.npmjs.org/:_authToken=npm_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8",
      "npm_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8",
    ],
  ])("%s: not in the arguments, decisions or envelope recorded", async (_route, text, secret) => {
    // Positive control: the call really carries the key — the command prints it, and the
    // envelope the model reads holds it.
    const command = `echo ${JSON.stringify(text)}`;
    const run = await lathe(["call", "bash", JSON.stringify({ command }), "--mode", "yolo"]);
    const envelope = envelopeOf(run);
    expect(envelope.type, envelope.error_text).toBe("output");
    expect(JSON.stringify(envelope)).toContain(secret);
    // A refused one too (its reasons quote the command).
    await lathe(["call", "bash", JSON.stringify({ command })]);

    const rows = await auditRows();
    expect(rows.map((r) => r.outcome)).toEqual(["output", "error"]);
    for (const row of rows) {
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row.args)).toContain("[REDACTED]");
    }
    expect(rows[0]?.envelope_head).toContain("[REDACTED]");
    expect(JSON.stringify(rows[1]?.decisions)).toContain("[REDACTED]");
    const table = await lathe(["audit"]);
    expect(table.stdout).not.toContain(secret);
  });

  it("masks a key written into a file in the record only: the file holds it as written", async () => {
    const content = "OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t\nBasic understanding of the setup\n";
    const run = await lathe(["call", "write", JSON.stringify({ path: ".env", content }), "--mode", "yolo"]);
    expect(envelopeOf(run).type).toBe("output");
    expect(await readFile(path.join(world.root, ".env"), "utf8")).toBe(content);
    const [row] = await auditRows();
    expect(row?.args).toEqual({
      path: ".env",
      content: "OPENAI_API_KEY=[REDACTED]\nBasic understanding of the setup\n",
    });
  });
});
