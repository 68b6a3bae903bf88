import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleState } from "../bin/cli-bundle.mjs";
import { type FixtureServer, startOpenAICompatibleServer } from "./fixtures/openai-compatible-server.ts";
import { LATHE_BIN, PACKAGE_ROOT, type Run, runLathe } from "./support/lathe-cli.ts";

const SCRIPTED_MCP = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

// `lathe tools`, `call`, `batch` and `run` run in a background daemon when one listens (see
// src/main/cli/daemon/). What a person sees must not change: the same output, exit codes,
// stdin, environment, folder and Ctrl-C as a process of its own — only sooner.

const FRESH = bundleState().state === "fresh";
if (!FRESH)
  console.log(
    "cli-daemon is skipped: the daemon runs the CLI bundle, which is not built (npm run build:cli)",
  );

let base: string;
let ws: string;
const homes: string[] = [];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-daemon-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
  await writeFile(path.join(ws, "small.txt"), "a small file\n");
});

afterAll(async () => {
  // Each home's daemon is its own: stop them together, not one `lathe` after another.
  await Promise.all(
    homes.map((home) => runLathe(["daemon", "stop"], { home, cwd: ws, env: { LATHE_DAEMON: "on" } })),
  );
  if (base) await rm(base, { recursive: true, force: true });
});

/** A fresh data folder (so a daemon of its own). */
async function newHome(): Promise<string> {
  const home = await mkdtemp(path.join(base, "h-"));
  homes.push(home);
  return home;
}

const on = (
  args: readonly string[],
  home: string,
  more: { input?: string; env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<Run> =>
  runLathe(args, {
    home,
    cwd: more.cwd ?? ws,
    input: more.input,
    env: { LATHE_DAEMON: "on", CI: undefined, ...more.env },
  });
const off = (
  args: readonly string[],
  home: string,
  more: { input?: string; cwd?: string } = {},
): Promise<Run> =>
  runLathe(args, { home, cwd: more.cwd ?? ws, input: more.input, env: { LATHE_DAEMON: "off" } });

interface Status {
  mode: "on" | "off";
  running: boolean;
  pid?: number;
  jobs?: number;
  busy?: boolean;
  socket?: string;
  unavailable?: string;
}
async function status(home: string, env: Record<string, string | undefined> = {}): Promise<Status> {
  const run = await on(["daemon", "status", "--json"], home, { env });
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Status;
}
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const running = (home: string): Promise<Status> =>
  until("the daemon", async () => {
    const s = await status(home);
    return s.running ? s : undefined;
  });
describe.skipIf(!FRESH)("lathe with a daemon", () => {
  it("the first quick command starts one; later ones run in it with the same output and exit codes", async () => {
    const home = await newHome();
    const first = await on(["tools"], home);
    expect(first.code).toBe(0);
    const before = await running(home);
    expect(before.jobs).toBe(0);

    const cases: Array<{ args: string[]; input?: string }> = [
      { args: ["tools"] },
      { args: ["tools", "--json"] },
      { args: ["call", "read", '{"path":"small.txt"}'] },
      { args: ["call", "read", '{"path":"missing.txt"}'] },
      { args: ["call", "read", "-"], input: '{"path":"small.txt"}' },
      { args: ["batch"], input: 'read {"path":"small.txt"}\nglob {"pattern":"*.txt"}\n' },
      { args: ["call", "nope"] },
      { args: ["call", "read", "--bogus-flag"] },
    ];
    const strip = (text: string) => text.replace(/"duration_ms":\d+/g, '"duration_ms":0');
    for (const { args, input } of cases) {
      const cold = await off(args, home, { input });
      const warm = await on(args, home, { input });
      expect({ args, code: warm.code, stdout: strip(warm.stdout), stderr: warm.stderr }).toEqual({
        args,
        code: cold.code,
        stdout: strip(cold.stdout),
        stderr: cold.stderr,
      });
    }
    // They ran in the daemon, not beside it.
    expect((await status(home)).jobs).toBe(cases.length);
  });

  it("each command gets the caller's environment and folder, and a settings change is seen at once", async () => {
    const home = await newHome();
    await on(["tools"], home);
    await running(home);
    const sub = path.join(ws, "sub");
    await mkdir(sub, { recursive: true });
    const echo = (value: string, cwd: string) =>
      on(
        [
          "call",
          "bash",
          JSON.stringify({ command: 'printf "%s|%s" "$MARK" "$PWD"' }),
          "--mode",
          "yolo",
          "--root",
          ".",
        ],
        home,
        {
          env: { MARK: value },
          cwd,
        },
      );
    const a = await echo("first", ws);
    const b = await echo("second", sub);
    expect(JSON.parse(a.stdout).data.output).toBe(`first|${ws}`);
    expect(JSON.parse(b.stdout).data.output).toBe(`second|${sub}`);

    // A tool turned off in settings is gone from the very next command.
    expect((await on(["tools"], home)).stdout).toMatch(/^web_fetch /m);
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ disabledTools: ["web_fetch"] }));
    const after = await on(["tools"], home);
    expect(after.stdout).not.toMatch(/^web_fetch /m);
    expect((await status(home)).jobs).toBe(4);
  });

  it("a command that arrives while another runs runs on its own, and both finish", async () => {
    const home = await newHome();
    await on(["tools"], home);
    await running(home);
    const slow = on(
      ["call", "bash", JSON.stringify({ command: "sleep 1.5; echo slow-done" }), "--mode", "yolo"],
      home,
    );
    await until("the slow command to start", async () =>
      (await status(home)).jobs === 1 ? true : undefined,
    );
    const quick = await on(["call", "read", '{"path":"small.txt"}'], home);
    expect(JSON.parse(quick.stdout).data.content).toBe("a small file\n");
    expect(JSON.parse((await slow).stdout).data.output).toBe("slow-done\n");
    expect((await status(home)).jobs).toBe(1);
  });

  it.each([
    // `lathe call` stops its call on Ctrl-C (exit 1, an error envelope), as in a process of its
    // own, and on its caller going away (as on SIGTERM): it winds down, recording what the
    // command changed, so the daemon was not cut short and goes on.
    { name: "Ctrl-C stops the command as it would a process of its own", signal: "SIGINT", code: 1 },
    { name: "a caller killed mid-command stops the command too", signal: "SIGKILL", code: null },
  ] as const)("$name, and its bash command with it", async ({ signal, code }) => {
    const home = await newHome();
    await on(["tools"], home);
    const { pid } = await running(home);
    const marker = path.join(ws, `after-sleep-${signal}.txt`);
    const child = spawn(
      process.execPath,
      [LATHE_BIN, "call", "bash", JSON.stringify({ command: `sleep 3; touch ${marker}` }), "--mode", "yolo"],
      { cwd: ws, env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: "on", CI: "" }, stdio: "ignore" },
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    await until("the command to start", async () => ((await status(home)).jobs === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill(signal);
    expect(await exited).toBe(code);
    await until("the command to wind down", async () =>
      (await status(home)).busy === false ? true : undefined,
    );
    expect((await status(home)).pid).toBe(pid);
    // Nothing of the command goes on.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(existsSync(marker)).toBe(false);
    expect((await on(["call", "read", '{"path":"small.txt"}'], home)).code).toBe(0);
  });

  it("Ctrl-C on `lathe batch` leaves nothing behind that ends the next command or the daemon", async () => {
    const home = await newHome();
    await on(["tools"], home);
    const { pid } = await running(home);
    const child = spawn(process.execPath, [LATHE_BIN, "batch", "--mode", "yolo"], {
      cwd: ws,
      env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: "on", CI: "" },
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.stdin.end('bash {"command":"sleep 5"}\n');
    const exited = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    await until("the batch to start", async () => ((await status(home)).jobs === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    // batch's grace timer (interrupt.ts) is still armed when the next command starts.
    const next = await on(
      ["call", "bash", JSON.stringify({ command: "sleep 1.5; echo next-done" }), "--mode", "yolo"],
      home,
    );
    expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(next.stdout).data.output).toBe("next-done\n");
    expect(await status(home)).toMatchObject({ pid, jobs: 2 });
  });

  it("a caller whose folder was removed gets the same error as without a daemon", async () => {
    const home = await newHome();
    await on(["tools"], home);
    await running(home);
    const inRemovedFolder = (daemon: string): Promise<Run> =>
      new Promise((resolve) => {
        const gone = path.join(base, `gone-${daemon}`);
        const child = spawn(
          "bash",
          ["-c", 'mkdir "$GONE" && cd "$GONE" && rmdir "$GONE" && exec "$NODE" "$BIN" tools'],
          {
            cwd: ws,
            env: {
              ...process.env,
              GONE: gone,
              NODE: process.execPath,
              BIN: LATHE_BIN,
              LATHE_HOME: home,
              LATHE_DAEMON: daemon,
              CI: "",
            },
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
      });
    const cold = await inRemovedFolder("off");
    expect(cold.stderr).toMatch(/^error: .*uv_cwd\n$/);
    expect(await inRemovedFolder("on")).toEqual(cold);
  });

  it("LATHE_DEBUG=1 prints the same stack trace as without a daemon (mapped to the sources)", async () => {
    const home = await newHome();
    await on(["tools"], home);
    await running(home);
    await writeFile(path.join(home, "settings.json"), "{not json");
    const debug = { LATHE_DEBUG: "1" };
    const cold = await runLathe(["tools"], { home, cwd: ws, env: { ...debug, LATHE_DAEMON: "off" } });
    expect(cold.stderr).toMatch(/\n {4}at .*src\/main\/engine\/config\/lathe-settings\.ts:\d+/);
    const warm = await on(["tools"], home, { env: debug });
    expect({ code: warm.code, stderr: warm.stderr }).toEqual({ code: cold.code, stderr: cold.stderr });
  });

  it("a daemon killed outright leaves a dead socket: the next command runs itself and a fresh daemon takes the name", async () => {
    const home = await newHome();
    await on(["tools"], home);
    const { pid, socket } = await running(home);
    process.kill(pid as number, "SIGKILL");
    await until("the daemon to die", async () => {
      try {
        process.kill(pid as number, 0);
        return undefined;
      } catch {
        return true;
      }
    });
    expect(existsSync(socket as string)).toBe(true);
    const run = await on(["call", "read", '{"path":"small.txt"}'], home);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const fresh = await running(home);
    expect(fresh.pid).not.toBe(pid);
    expect(fresh.socket).toBe(socket);
  });

  it("a reader that goes away (`lathe tools | head -1`) ends the output quietly", async () => {
    const home = await newHome();
    await on(["tools"], home);
    await running(home);
    const child = spawn(
      "bash",
      ["-c", `"${process.execPath}" "${LATHE_BIN}" tools --json | head -c 10; echo " rc=\${PIPESTATUS[0]}"`],
      {
        cwd: ws,
        env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: "on", CI: "" },
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    await new Promise((resolve) => child.on("close", resolve));
    expect(out).toMatch(/ rc=0\n$/);
    expect(err).toBe("");
    expect((await status(home)).jobs).toBe(1);
  });

  it("lathe daemon start / status / stop", async () => {
    const home = await newHome();
    expect((await status(home)).running).toBe(false);
    const start = await on(["daemon", "start", "--idle-minutes", "1"], home);
    expect(start.stdout).toMatch(/^Started the daemon \(pid \d+\); it stops after 1 idle minutes\.\n$/);
    expect((await on(["daemon", "start"], home)).stdout).toMatch(/already running/);
    const text = await on(["daemon", "status"], home);
    expect(text.stdout).toMatch(/Running: pid \d+/);
    // How much memory it holds, so a person can tell whether it is worth keeping.
    expect(text.stdout).toMatch(/\nMemory: [1-9]\d* MB resident, [1-9]\d* MB of it JavaScript objects\.\n/);
    const json = JSON.parse((await on(["daemon", "status", "--json"], home)).stdout) as {
      memory: { rss: number; heapUsed: number };
    };
    expect(json.memory.rss).toBeGreaterThan(json.memory.heapUsed);
    expect((await on(["daemon", "stop"], home)).stdout).toBe("Stopped the daemon.\n");
    expect((await on(["daemon", "stop"], home)).stdout).toBe("No daemon is running.\n");
    expect((await on(["daemon", "start", "--idle-minutes", "0"], home)).code).toBe(2);
  });

  it.each([
    { name: "LATHE_DAEMON=off", env: { LATHE_DAEMON: "off" } },
    { name: "CI set and LATHE_DAEMON unset", env: { LATHE_DAEMON: undefined, CI: "true" } },
  ])("$name: no daemon is started or used", async ({ env }) => {
    const home = await newHome();
    const run = await runLathe(["tools"], { home, cwd: ws, env });
    expect(run.code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(path.join(home, "run"))).toBe(false);
    expect((await status(home, env)).mode).toBe("off");
    // The text says so too, and does not promise that the next command starts one.
    const text = (await on(["daemon", "status"], home, { env })).stdout;
    expect(text).toMatch(
      /^Commands use a daemon: no \(.*\)\.\nNot running, and no command starts one while it is off\.\n$/,
    );
    // Asked to start one, it refuses with the reason rather than start one no command would use.
    const start = await on(["daemon", "start"], home, { env });
    expect(start.code, start.stderr).toBe(2);
    expect(start.stdout).toBe("");
    expect(start.stderr).toMatch(
      /no daemon started: commands do not use one while it is off \((LATHE_DAEMON is off|off under CI).*\)\. Set LATHE_DAEMON=on for this command and the ones that should use it\./,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(path.join(home, "run"))).toBe(false);
    expect((await status(home, env)).running).toBe(false);
  });

  it("a socket folder others can enter is never used (fail closed), and status says why", async () => {
    const home = await newHome();
    await on(["tools"], home);
    await running(home);
    await chmod(path.join(home, "run"), 0o755);
    const run = await on(["call", "read", '{"path":"small.txt"}'], home);
    expect(run.code).toBe(0);
    const s = await status(home);
    expect(s.jobs).toBe(0);
    expect((await on(["daemon", "status"], home)).stdout).toMatch(
      /Commands use a daemon: no, never while .* is open to other users \(mode 755; it must be 700\)/,
    );
    await chmod(path.join(home, "run"), 0o700);
  });

  it("a file that is not a socket at the socket's path: commands run on their own, no daemon is started each time, status says why", async () => {
    const home = await newHome();
    await on(["daemon", "start"], home);
    const { socket, pid } = await running(home);
    await on(["daemon", "stop"], home);
    await until("the daemon to stop", async () => ((await status(home)).running ? undefined : true));
    await writeFile(socket as string, "not a socket");
    for (let i = 0; i < 3; i++)
      expect((await on(["call", "read", '{"path":"small.txt"}'], home)).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // No daemon was started for it (each would have failed, and written to the log, at once).
    const log = await readFile(path.join(home, "run", "daemon.log"), "utf8");
    expect(log.match(/listening on/g)).toHaveLength(1);
    expect(log).not.toMatch(/not a socket/);
    expect(pid).toBeDefined();
    expect((await on(["daemon", "status"], home)).stdout).toMatch(
      /Commands use a daemon: no, never while .*\.sock exists and is not a socket; remove it\./,
    );
    await rm(socket as string);
  });

  it("a daemon whose socket file is removed is replaced by a fresh one at the next command", async () => {
    const home = await newHome();
    await on(["daemon", "start"], home);
    const { socket } = await running(home);
    await rm(socket as string);
    // The next command finds no daemon and starts a fresh one (the old one stops at its next check).
    expect((await on(["tools"], home)).code).toBe(0);
    await running(home);
    const names = await readdir(path.join(home, "run"));
    expect(names.filter((n) => n.endsWith(".sock"))).toHaveLength(1);
    expect(await readFile(path.join(home, "run", "daemon.log"), "utf8")).toMatch(/listening on/);
  });
});

describe.skipIf(!FRESH)("MCP servers with a daemon", () => {
  /** The processes whose command line names `file` (the scripted server's own script file). */
  function processesNaming(file: string): number[] {
    const found: number[] = [];
    for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
      try {
        if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(file)) found.push(Number(name));
      } catch {
        // Ended meanwhile.
      }
    }
    return found;
  }

  it.skipIf(process.platform !== "linux")(
    "keeps a folder's MCP server running for the next command, starts a fresh one for another environment, and stops it with the daemon",
    async () => {
      const home = await newHome();
      const logs = path.join(home, "server-logs");
      await mkdir(logs);
      const script = path.join(home, "kept-script.json");
      await writeFile(
        script,
        JSON.stringify({
          tools: [{ name: "count", description: "Counts its calls.", inputSchema: { type: "object" } }],
        }),
      );
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED_MCP, script] } },
        }),
      );
      await on(["tools"], home);
      await running(home);
      const count = async (run: Run): Promise<string> => {
        expect(run.code, run.stderr).toBe(0);
        return (JSON.parse(run.stdout) as { data: { content: string } }).data.content;
      };

      const first = await on(["call", "count", "--mode", "yolo"], home);
      expect(await count(first)).toBe("1");
      expect(first.stderr).toMatch(/^lathe: starting MCP server scripted \(global\)/m);
      // The next command uses the same server process: what it holds in memory is still there.
      const second = await on(["call", "count", "--mode", "yolo"], home);
      expect(await count(second)).toBe("2");
      expect(second.stderr).toMatch(
        /^lathe: using MCP server scripted \(global\), still running from an earlier command, pid \d+: /m,
      );
      expect(second.stderr).not.toMatch(/starting MCP server/);
      // Another folder's command (from the same shell) gets a server of its own, and both are kept.
      const folder = await mkdtemp(path.join(os.tmpdir(), "lathe-kept-other-"));
      expect(await count(await on(["call", "count", "--mode", "yolo", "--root", folder], home))).toBe("1");
      // `lathe daemon status` names what it keeps running, and for which folder: two servers of
      // the same name are told apart.
      const json = JSON.parse((await on(["daemon", "status", "--json"], home)).stdout) as {
        mcpServers: unknown;
      };
      expect(json.mcpServers).toEqual([
        { name: "scripted", root: realpathSync(ws) },
        { name: "scripted", root: realpathSync(folder) },
      ]);
      expect((await on(["daemon", "status"], home)).stdout).toContain(
        `MCP servers kept running for the next command: 2 (scripted in ${realpathSync(ws)}, scripted in ${realpathSync(folder)}).\n`,
      );
      await rm(folder, { recursive: true, force: true });
      // A command in another folder (its shell's PWD says so) leaves this folder's server kept.
      const sub = path.join(ws, "elsewhere");
      await mkdir(sub, { recursive: true });
      expect((await on(["tools"], home, { cwd: sub, env: { PWD: sub } })).code).toBe(0);
      expect(await count(await on(["call", "count", "--mode", "yolo"], home))).toBe("3");
      // Control: without the daemon, every command starts the server afresh.
      expect(await count(await off(["call", "count", "--mode", "yolo"], home))).toBe("1");
      // Another environment (one more variable): a fresh server.
      const other = await on(["call", "count", "--mode", "yolo"], home, { env: { MARK: "another" } });
      expect(await count(other)).toBe("1");
      expect(other.stderr).toMatch(/starting MCP server scripted/);
      expect(processesNaming(script).length).toBeGreaterThan(0);

      expect((await on(["daemon", "stop"], home)).stdout).toBe("Stopped the daemon.\n");
      expect(processesNaming(script)).toEqual([]);
    },
    // Seven CLI commands and a daemon start, each starting node: about 15 s on a loaded 2-core machine.
    45_000,
  );
});

describe.skipIf(!FRESH)("lathe run with a daemon", () => {
  // An agent's run is the longest command the daemon takes: what it must keep is the caller's
  // environment (its API keys), Ctrl-C, and stopping when the caller is killed.
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer({
      models: ["m"],
      replies: (request) => {
        const said = JSON.stringify(request.messages);
        if (said.includes("wait forever")) return { hang: true };
        // An answer that streams for about three seconds, one word at a time.
        if (said.includes("slowly")) return { text: "word ".repeat(60), eventDelayMs: 50 };
        return { text: "hello from the model" };
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function runHome(settings: Record<string, unknown> = {}): Promise<string> {
    const home = await newHome();
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL: server.baseURL, ...settings } } }),
    );
    return home;
  }
  const MODEL = ["--model", "openai-compatible:m"];
  const ids = (text: string) => text.replace(/s-[a-z0-9]+-[0-9a-f]{8}/g, "<session>");
  const sessionOf = (text: string) => /s-[a-z0-9]+-[0-9a-f]{8}/.exec(text)?.[0] as string;

  it("prints the same text and exit code as a process of its own, and runs in the daemon", async () => {
    const home = await runHome();
    await on(["tools"], home);
    await running(home);
    for (const args of [
      ["run", "say hello", ...MODEL],
      ["run", "say hello", ...MODEL, "--agent", "nobody"],
      ["run", "-", ...MODEL],
    ]) {
      const input = args.includes("-") ? "say hello from stdin" : undefined;
      const cold = await off(args, home, { input });
      const warm = await on(args, home, { input });
      expect({ args, code: warm.code, stdout: warm.stdout, stderr: ids(warm.stderr) }).toEqual({
        args,
        code: cold.code,
        stdout: cold.stdout,
        stderr: ids(cold.stderr),
      });
    }
    expect((await status(home)).jobs).toBe(3);
    // What the model was sent came through the daemon's job, stdin included.
    expect(JSON.stringify(server.requests.at(-1)?.messages)).toContain("say hello from stdin");
  });

  it("asks a local server its context window at each run, in the daemon too: a server restarted with another context is seen", async () => {
    const llama = await startOpenAICompatibleServer({
      models: ["m"],
      routes: { "GET /props": { default_generation_settings: { n_ctx: 8_192 } } },
      replies: [{ text: "hello from llama" }],
    });
    try {
      const home = await newHome();
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ providers: { llamacpp: { baseURL: llama.baseURL } } }),
      );
      await on(["tools"], home);
      await running(home);
      for (const prompt of ["one", "two", "three"]) {
        const run = await on(["run", prompt, "--model", "llamacpp:m"], home);
        expect(run.code, run.stderr).toBe(0);
      }
      expect((await status(home)).jobs).toBe(3);
      expect(llama.requests).toHaveLength(3);
      expect(llama.paths.filter((p) => p === "GET /props")).toHaveLength(3);
    } finally {
      await llama.close();
    }
  });

  it("uses the caller's environment, never the daemon's: an API key the caller lacks is missing", async () => {
    const home = await runHome({ apiKeyEnv: "LATHE_TEST_MODEL_KEY" });
    // The daemon starts from a caller that has the key...
    await on(["tools"], home, { env: { LATHE_TEST_MODEL_KEY: "from-the-daemons-start" } });
    const { pid } = await running(home);
    // ...and a caller without it gets the error a process of its own gives.
    const without = await on(["run", "say hello", ...MODEL], home, {
      env: { LATHE_TEST_MODEL_KEY: undefined },
    });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain("LATHE_TEST_MODEL_KEY");
    const withKey = await on(["run", "say hello", ...MODEL], home, { env: { LATHE_TEST_MODEL_KEY: "k" } });
    expect(withKey.code).toBe(0);
    expect(withKey.stdout).toContain("hello from the model");
    expect(await status(home)).toMatchObject({ pid, jobs: 2 });
  });

  it.each([
    { name: "Ctrl-C stops the run as it does without a daemon", signal: "SIGINT", code: 1 },
    { name: "a caller killed mid-run stops its run too", signal: "SIGKILL", code: null },
  ] as const)("$name; the model's request is dropped and the daemon goes on", async ({ signal, code }) => {
    const home = await runHome();
    await on(["tools"], home);
    const { pid } = await running(home);
    const before = server.requests.length;
    const child = spawn(process.execPath, [LATHE_BIN, "run", "wait forever", ...MODEL], {
      cwd: ws,
      env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: "on", CI: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    await server.requestArrived(before + 1);
    expect((await status(home)).jobs).toBe(1); // the run is the daemon's job
    child.kill(signal);
    expect(await exited).toBe(code);
    // The run let go of the model: its request was dropped, not left streaming into nothing.
    await until("the model request to be dropped", async () =>
      server.timings[before]?.clientGoneAt !== undefined ? true : undefined,
    );
    // It ended as a stopped run, recorded as such, and the same daemon takes the next command.
    const session = await until("the run to end", async () => {
      const s = await status(home);
      return s.busy === false ? s : undefined;
    });
    expect(session.pid).toBe(pid);
    if (signal === "SIGINT") expect(stderr).toMatch(/stopped/);
    const list = await on(["session", "list", "--json"], home);
    const id = (JSON.parse(list.stdout.split("\n")[0] as string) as { id: string }).id;
    const replay = await on(["run", "--resume", id, "--replay"], home);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(/stopped/);
    expect((await on(["call", "read", '{"path":"small.txt"}'], home)).code).toBe(0);
    expect((await status(home)).pid).toBe(pid);
  });

  it("a reader that goes away mid-run (`lathe run --json | head -1`) stops the run with exit 1, as without a daemon", async () => {
    const home = await runHome();
    await on(["tools"], home);
    const { pid } = await running(home);
    const pipeline = async (mode: "on" | "off") => {
      const child = spawn(
        "bash",
        [
          "-c",
          `"${process.execPath}" "${LATHE_BIN}" run --json "answer slowly" ${MODEL.join(" ")} | head -1; echo "rc=\${PIPESTATUS[0]}"`,
        ],
        { cwd: ws, env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: mode, CI: "" } },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (err += c.toString()));
      await new Promise((resolve) => child.on("close", resolve));
      return { rc: /rc=(\d+)/.exec(out)?.[1], lines: out.split("\n").length, stderr: err };
    };
    const cold = await pipeline("off");
    expect(cold).toEqual({ rc: "1", lines: 3, stderr: "" });
    expect(await pipeline("on")).toEqual(cold);
    const after = await until("the run to end", async () => {
      const s = await status(home);
      return s.busy === false ? s : undefined;
    });
    expect(after).toMatchObject({ pid, jobs: 1 });
  });

  it("a stderr whose reader has gone costs only what goes to it: the run ends well, as without a daemon", async () => {
    const home = await runHome();
    await on(["tools"], home);
    const { pid } = await running(home);
    // stderr goes to a pipe whose reader ends at once; stdout and the exit code are kept.
    const closedStderr = async (mode: "on" | "off") => {
      const child = spawn(
        "bash",
        [
          "-c",
          `"${process.execPath}" "${LATHE_BIN}" run "say hello" ${MODEL.join(" ")} 2> >(exec true); echo "rc=$?"`,
        ],
        { cwd: ws, env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: mode, CI: "" } },
      );
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      await new Promise((resolve) => child.on("close", resolve));
      return out;
    };
    const cold = await closedStderr("off");
    expect(cold).toBe("hello from the model\nrc=0\n");
    expect(await closedStderr("on")).toBe(cold);
    expect(await status(home)).toMatchObject({ pid, jobs: 1 });
  });

  it("a second run while one works in the daemon runs in a process of its own, and both end well", async () => {
    const home = await runHome();
    await on(["tools"], home);
    await running(home);
    const before = server.requests.length;
    const child = spawn(process.execPath, [LATHE_BIN, "run", "wait forever", ...MODEL], {
      cwd: ws,
      env: { ...process.env, LATHE_HOME: home, LATHE_DAEMON: "on", CI: "" },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    await server.requestArrived(before + 1);
    const second = await on(["run", "say hello", ...MODEL], home);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("hello from the model");
    expect(sessionOf(second.stderr)).toBeDefined();
    expect((await status(home)).jobs).toBe(1); // the first run's alone
    child.kill("SIGINT");
    expect(await exited).toBe(1);
  });
});

const GGUF = path.resolve(PACKAGE_ROOT, "../shared/models/llama-2-tiny-random.gguf");

describe.skipIf(!FRESH || !existsSync(GGUF))("a GGUF run in the daemon", () => {
  // node-llama-cpp loads in the daemon on its first GGUF run, with that caller's environment, and
  // a module that failed to load stays failed for the process's life: every later run would fail.
  it.each([
    { name: "an empty CI", CI: "" },
    { name: "a CI that is not a boolean (Woodpecker sets CI=woodpecker)", CI: "woodpecker" },
  ])(
    "runs for a caller with $name, then for the next caller, and frees the model after each",
    async ({ CI }) => {
      const home = await newHome();
      await mkdir(path.join(home, "agents"));
      await writeFile(
        path.join(home, "agents/tiny.md"),
        "---\ndescription: A minimal agent for tiny local models\ntools:\n  allow: [glob]\nbudgets:\n  maxRounds: 1\n  maxOutputTokens: 80\n---\nUse glob.\n",
      );
      await on(["tools"], home);
      const { pid } = await running(home);
      const args = ["run", "list the files", "--agent", "tiny", "--model", `gguf:${GGUF}`, "--json"];
      const env = { LATHE_GGUF_THREADS: "1", LATHE_GGUF_MAX_STRING: "8" };
      for (const caller of [{ ...env, CI }, env]) {
        const run = await on(args, home, { env: caller });
        expect({
          stderr: run.stderr,
          last: JSON.parse(run.stdout.trim().split("\n").at(-1) as string),
        }).toMatchObject({
          stderr: "",
          last: { type: "finish", status: "max-rounds" },
        });
        // The model's file is no longer mapped into the daemon once its run has ended.
        if (process.platform === "linux")
          expect(await readFile(`/proc/${pid}/maps`, "utf8")).not.toContain(path.basename(GGUF));
      }
      // Both ran in the daemon (the first command only started it).
      expect(await status(home)).toMatchObject({ pid, jobs: 2 });
    },
    120_000,
  );
});
