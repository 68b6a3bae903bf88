import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { envelopeOf, PACKAGE_ROOT, runLathe } from "./support/lathe-cli.ts";

// $LATHE_HOME holds what the person did in every folder: every session's conversation and tool
// calls (lathe.db), the checkpoints' copies of files, the user's settings (an MCP server's
// headers can carry a bearer token). A command run for a model in another folder — one whose
// README told it to — must not read them into its workspace or its output. Reads are not the
// parser's to stop (a program reads what it likes), so the sandbox hides them.

const machine = await machineSandbox();
const NO_SANDBOX = !machine.active;
if (NO_SANDBOX)
  console.log(`hostile-lathe-home-reads is skipped: this machine has no OS sandbox (${machine.reason})`);

const SCRIPTED_MCP = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");
const TOKEN = "Bearer tok-0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const CONFIDENTIAL = "PROJECT-A-CONFIDENTIAL-7c1d";

let base: string;
let home: string;
let projectA: string;
let projectB: string;

beforeAll(async () => {
  if (NO_SANDBOX) return;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-home-reads-")));
  home = path.join(base, "home");
  projectA = path.join(base, "a");
  projectB = path.join(base, "b");
  for (const dir of [home, projectA, projectB]) await mkdir(dir);
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      mcpServers: {
        remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: TOKEN }, disabled: true },
      },
    }),
  );
  // The person's work in folder A: a file read, then rewritten (its old content is checkpointed).
  await writeFile(path.join(projectA, "plan.md"), `${CONFIDENTIAL}\n`);
  const a = (args: string[]) => runLathe([...args, "--session", "work"], { home, cwd: projectA });
  expect(envelopeOf(await a(["call", "read", '{"path":"plan.md"}'])).type).toBe("output");
  const write = await a(["call", "write", '{"path":"plan.md","content":"public now\\n"}', "--mode", "yolo"]);
  expect(envelopeOf(write).type).toBe("output");
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

const rows = [
  {
    name: "the user's settings (an MCP server's bearer token)",
    file: "settings.json",
    secret: TOKEN.slice(7),
  },
  { name: "the database (another folder's conversation)", file: "lathe.db", secret: CONFIDENTIAL },
  { name: "the checkpoints (another folder's old file contents)", file: "checkpoints", secret: CONFIDENTIAL },
];

describe.skipIf(NO_SANDBOX)("a command in folder B reading $LATHE_HOME", () => {
  it.each(rows)("$name: plain bash leaks it, Lathe's bash does not", async ({ file, secret }) => {
    const target = path.join(home, file);
    // The path only known at run time ($T), so the parser cannot see it: the sandbox must hold.
    const command = `T='${target}'; grep -r -a -o -h ${secret} "$T" > leak.txt; cat leak.txt`;

    // Positive control: the same command in plain bash copies the secret into the folder.
    const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-home-reads-control-")));
    try {
      execFileSync("bash", ["-c", command], { cwd: control });
      expect(await readFile(path.join(control, "leak.txt"), "utf8")).toContain(secret);
    } finally {
      await rm(control, { recursive: true, force: true });
    }

    const run = await runLathe(["call", "bash", JSON.stringify({ command }), "--mode", "yolo"], {
      home,
      cwd: projectB,
    });
    const envelope = envelopeOf(run);
    // It ran: what held is the sandbox, not a refusal.
    expect(envelope.type).toBe("output");
    expect(run.stdout).not.toContain(secret);
    expect(await readFile(path.join(projectB, "leak.txt"), "utf8")).not.toContain(secret);

    // Named on the command line, it is refused before it runs, with the reason.
    const named = await runLathe(
      [
        "call",
        "bash",
        JSON.stringify({ command: `grep -r -a -o -h ${secret} '${target}'` }),
        "--mode",
        "yolo",
      ],
      { home, cwd: projectB },
    );
    expect(envelopeOf(named).error_text).toMatch(
      /^bash was refused: the command names .*which holds Lathe's own data/,
    );
    expect(named.stdout).not.toContain(secret);
  });

  it("still lets the command read and write its own workspace", async () => {
    await writeFile(path.join(projectB, "notes.txt"), "mine\n");
    const run = await runLathe(
      [
        "call",
        "bash",
        JSON.stringify({ command: "cat notes.txt > copy.txt && cat copy.txt" }),
        "--mode",
        "yolo",
      ],
      { home, cwd: projectB },
    );
    expect(envelopeOf(run).data?.output).toBe("mine\n");
    expect(await readFile(path.join(projectB, "copy.txt"), "utf8")).toBe("mine\n");
  });

  // The sandbox cannot hide a path that is missing when a process starts, and an MCP server runs
  // for hours, during which Lathe creates the checkpoints, the logs, the user saves settings.
  // Each row: a command waits until the file exists outside, then reads it.
  it.each([
    { name: "a checkpoint made meanwhile", file: "checkpoints/blobs/ab/cdef" },
    { name: "the user's settings, first saved meanwhile", file: "settings.json" },
    { name: "a log started meanwhile", file: "logs/plugins/p.log" },
    { name: "the list of recent folders", file: "recent-projects.json" },
  ])("$name: plain bash reads it once it appears, Lathe's bash never sees it", async ({ file }) => {
    const secret = `LATER-${file.length}-6b2e`;
    const freshHome = path.join(base, `fresh-${file.replaceAll("/", "-")}`);
    const target = path.join(freshHome, file);
    // The command says when it runs (ready), waits for the file to be written (go), then reads it.
    const command = `T='${target}'; : > ready; while [ ! -e go ]; do sleep 0.05; done; cat "$T" > leak.txt; cat leak.txt; true`;
    const whileRunning = async (start: () => Promise<unknown>, dir: string): Promise<void> => {
      await rm(path.join(dir, "go"), { force: true });
      await rm(path.join(dir, "ready"), { force: true });
      const running = start();
      while (!existsSync(path.join(dir, "ready"))) await new Promise((r) => setTimeout(r, 20));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, `${secret}\n`);
      await writeFile(path.join(dir, "go"), "");
      await running;
      await rm(path.join(dir, "go"));
      await rm(path.join(dir, "ready"));
      await rm(freshHome, { recursive: true, force: true });
    };

    // Positive control: plain bash, started before the file exists, reads it.
    const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-home-reads-control-")));
    try {
      await mkdir(freshHome);
      await whileRunning(
        () =>
          new Promise((resolve) =>
            spawn("bash", ["-c", command], { cwd: control, stdio: "ignore" }).on("exit", resolve),
          ),
        control,
      );
      expect(await readFile(path.join(control, "leak.txt"), "utf8")).toContain(secret);
    } finally {
      await rm(control, { recursive: true, force: true });
    }

    await mkdir(freshHome);
    let run: Awaited<ReturnType<typeof runLathe>> | undefined;
    await whileRunning(async () => {
      run = await runLathe(["call", "bash", JSON.stringify({ command }), "--mode", "yolo"], {
        home: freshHome,
        cwd: projectB,
      });
    }, projectB);
    // It ran: what held is the sandbox, not a refusal.
    expect(envelopeOf(run!).type).toBe("output");
    expect(run!.stdout).not.toContain(secret);
    expect(await readFile(path.join(projectB, "leak.txt"), "utf8")).not.toContain(secret);
  });

  /** The settings with one more MCP server, `reader`; the others (the token's) stay. */
  type Settings = { mcpServers: Record<string, unknown> };
  const withReader = (settings: Settings, args: string[]): Settings => ({
    ...settings,
    mcpServers: { ...settings.mcpServers, reader: { command: process.execPath, args } },
  });

  it("an MCP server kept in $LATHE_HOME reads its own files there, not the rest", async () => {
    // The person keeps a server's script in LATHE_HOME/servers/ and its tool list beside the settings.
    const servers = path.join(home, "servers");
    await mkdir(servers, { recursive: true });
    const tools = path.join(home, "reader-tools.json");
    await writeFile(
      tools,
      JSON.stringify({
        tools: [{ name: "read_file", description: "Read.", inputSchema: { type: "object" } }],
      }),
    );
    const script = path.join(servers, "reader.ts");
    await writeFile(script, await readFile(SCRIPTED_MCP, "utf8"));
    const settingsFile = path.join(home, "settings.json");
    const before = await readFile(settingsFile, "utf8");
    const secret = TOKEN.slice(7);
    await writeFile(
      settingsFile,
      JSON.stringify(withReader(JSON.parse(before) as Settings, [script, tools])),
    );
    try {
      const read = async (file: string) =>
        JSON.stringify(
          envelopeOf(
            await runLathe(["call", "read_file", JSON.stringify({ path: file }), "--mode", "yolo"], {
              home,
              cwd: projectB,
            }),
          ),
        );
      // It starts (its script and tool list are readable) and reads its own files...
      expect(await read(tools)).toContain("read_file");
      // ...but the settings beside them, which hold a bearer token, are hidden.
      expect(await read(settingsFile)).not.toContain(secret);
      // Positive control: outside the sandbox the token is right there.
      expect(await readFile(settingsFile, "utf8")).toContain(secret);
    } finally {
      await writeFile(settingsFile, before);
    }
  });
});
