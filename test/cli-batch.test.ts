// `lathe batch`: many calls from stdin in one process and one session, one envelope per line.
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { spawn as spawnPty } from "node-pty";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { LATHE_BIN, type CliEnvelope, type Run } from "./support/lathe-cli.ts";

const world = useCliWorld("lathe-batch-", {
  setup: async () => {
    await writeFile(path.join(world.root, "a.txt"), "old\n");
  },
});

function batch(lines: string[], args: string[] = []): Promise<Run> {
  return world.lathe(["batch", ...args], { input: lines.map((l) => `${l}\n`).join("") });
}

function envelopes(run: Run): CliEnvelope[] {
  expect(run.stdout === "" || run.stdout.endsWith("\n")).toBe(true);
  return run.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as CliEnvelope);
}

/** Resolves once `test` holds (polling); fails after 15 s, showing what was printed. */
async function until(what: string, test: () => boolean, printed: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within 15 s; printed:\n${printed()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("lathe batch", () => {
  it("runs the calls in order in one session: a write after its read, one envelope per call", async () => {
    const run = await batch(
      [
        "# notes and blank lines are no calls",
        'read {"path":"a.txt"}',
        "",
        'write {"path":"a.txt","content":"new\\n"}',
        '  read   {"path":"a.txt"}  ',
      ],
      ["--mode", "yolo"],
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [first, write, again] = envelopes(run);
    expect(envelopes(run)).toHaveLength(3);
    expect(first).toMatchObject({ type: "output", data: { content: "old\n" } });
    expect(write).toMatchObject({ type: "output", data: { path: "a.txt" } });
    expect(again).toMatchObject({ type: "output", data: { content: "new\n" } });
    expect(await readFile(path.join(world.root, "a.txt"), "utf8")).toBe("new\n");

    // The audit trail holds the three calls, all in one session.
    const audit = await world.lathe(["audit", "--json", "--limit", "10"]);
    const rows = audit.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { tool: string; session_id: string });
    expect(rows.map((r) => r.tool).sort()).toEqual(["read", "read", "write"]);
    expect(new Set(rows.map((r) => r.session_id)).size).toBe(1);
  });

  it("answers a line that is no valid call with its error envelope and goes on; exits 1", async () => {
    const run = await batch([
      "nope",
      "read not json",
      'read {"pth":"a.txt"}',
      "glob",
      'read {"path":"a.txt"}',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    const out = envelopes(run);
    expect(out.map((e) => e.type)).toEqual(["error", "error", "error", "error", "output"]);
    expect(out[0]?.error_text).toMatch(/^Unknown tool "nope"/);
    expect(out[1]?.error_text).toMatch(/^The arguments are not valid JSON/);
    expect(out[2]?.error_text).toMatch(/^Invalid arguments for read: missing required property "path"/);
    expect(out[3]?.error_text).toMatch(/^Invalid arguments for glob: missing required property "pattern"/);
  });

  it("refuses what the policy refuses, as lathe call does (a write before its read)", async () => {
    const run = await batch(['write {"path":"a.txt","content":"x"}'], ["--mode", "yolo"]);
    expect(run.code).toBe(1);
    expect(envelopes(run)[0]?.error_text).toMatch(
      /has not been read in this session\. Call read on a\.txt first/,
    );
    expect(await readFile(path.join(world.root, "a.txt"), "utf8")).toBe("old\n");
  });

  it("with no input, runs nothing and succeeds", async () => {
    const run = await batch([]);
    expect(run).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("prints each envelope as soon as its call ends, then stops reading on Ctrl-C", async () => {
    const child = spawn(process.execPath, [LATHE_BIN, "batch"], {
      cwd: world.root,
      env: { ...process.env, LATHE_HOME: world.home },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const lines = (n: number) =>
      until(
        `${n} lines`,
        () => stdout.split("\n").length - 1 >= n,
        () => stdout + stderr,
      );
    // stdin stays open: the answer to the first line must not wait for the input's end.
    child.stdin.write('read {"path":"a.txt"}\n');
    await lines(1);
    child.stdin.write('glob {"pattern":"*.txt"}\n');
    await lines(2);
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    expect(stderr).toBe("");
    expect(
      stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as CliEnvelope).type),
    ).toEqual(["output", "output"]);
  });

  it("runs a plugin's new code once it is edited during the batch, as the app does", async () => {
    const dir = path.join(world.home, "tools", "stamp");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      "name: stamp\nversion: 1.0.0\ndescription: Says which version of its code ran.\ninput_schema: { type: object, properties: {} }\nreadOnly: true\ngated: false\n",
    );
    await writeFile(path.join(dir, "TOOL.md"), "Use stamp in tests.");
    const code = (version: number) =>
      `export async function execute() {\n  return { version: ${version} };\n}\n`;
    await writeFile(path.join(dir, "index.js"), code(1));
    const child = spawn(process.execPath, [LATHE_BIN, "batch"], {
      cwd: world.root,
      env: { ...process.env, LATHE_HOME: world.home },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const versions = () =>
      stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { data?: { version?: number } }).data?.version);
    child.stdin.write("stamp {}\n");
    await until(
      "first envelope",
      () => versions().length === 1,
      () => stdout + stderr,
    );
    expect(versions()).toEqual([1]);
    await writeFile(path.join(dir, "index.js"), code(2));
    // The edit is seen within a call or two (the folder watch settles first), never not at all.
    await until(
      "the edited plugin's answer",
      () => {
        if (versions().length === stdout.split("\n").length - 1 && !versions().includes(2))
          child.stdin.write("stamp {}\n");
        return versions().includes(2);
      },
      () => stdout + stderr,
    );
    child.stdin.end();
    expect(await exited).toBe(0);
    // Once the new code ran, the old one never answers again.
    const all = versions();
    expect(all.slice(all.indexOf(2))).toEqual(all.slice(all.indexOf(2)).map(() => 2));
  });

  it("at a terminal, says it is reading calls and how to end; Ctrl-D ends it", async () => {
    const pty = spawnPty(process.execPath, [LATHE_BIN, "batch"], {
      cwd: world.root,
      env: { ...process.env, LATHE_HOME: world.home } as Record<string, string>,
      cols: 200,
    });
    let screen = "";
    pty.onData((text) => (screen += text));
    const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
    const shown = (text: string) =>
      until(
        text,
        () => screen.includes(text),
        () => screen,
      );
    await shown("reading calls from the terminal, one per line (<tool-id> [json-args]); Ctrl-D ends.");
    pty.write('read {"path":"a.txt"}\r');
    await shown('{"type":"output","data":{"path":"a.txt","content":"old\\n"');
    pty.write("\x04");
    expect(await exited).toBe(0);
  });

  it("takes the same options as lathe call and no arguments", async () => {
    const help = await world.lathe(["batch", "--help"]);
    for (const flag of ["--session <id>", "--mode <mode>", "--root <dir>", "--verbose"])
      expect(help.stdout).toContain(flag);
    const extra = await world.lathe(["batch", "read"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("too many arguments for 'batch'");
  });
});
