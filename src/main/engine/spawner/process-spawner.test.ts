import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, realpath, rename, writeFile } from "node:fs/promises";
import { setTimeout } from "node:timers/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { sleepers, sleepMarker as marker } from "../../../../test/support/sleep-markers.ts";
import { runInPty } from "../builtin/pty-runner.ts";
import { SpawnerError } from "../errors/spawner-error.ts";
import { machineSandbox } from "../sandbox/sandbox-availability.ts";
import { processSpawner } from "./process-spawner.ts";
import { hostEnv } from "./host-env.ts";
import { SpawnerClient, type RemoteServer } from "./spawner-client.ts";
import type { SpawnerConfinement } from "./spawner-protocol.ts";

const LINUX = process.platform === "linux";
if (!LINUX) console.log("process-tree rows are skipped: they read /proc, which only Linux has");
const machine = await machineSandbox();
const sandboxed = machine.active;
if (!sandboxed)
  console.log(`the confined row is skipped: this machine has no OS sandbox (${machine.reason})`);

/** The parent pid of `pid`, from /proc (Linux); undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    // The command name may hold spaces and parentheses: the fields start after the last ")".
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

/** Every ancestor of `pid`, nearest first. */
function ancestors(pid: number): number[] {
  const out: number[] = [];
  for (let p = parentOf(pid); p !== undefined && p > 1; p = parentOf(p)) out.push(p);
  return out;
}

let ws: TestWorkspace;

/** A pty command confined to the workspace, its missing `.gitmodules` protected (undone if made). */
function workspaceConfinement(): SpawnerConfinement {
  return {
    writable: [ws.root],
    readOnly: [
      { path: path.join(ws.root, ".gitmodules"), kind: "file", what: "git's submodule configuration" },
    ],
    network: [],
    pty: true,
    missingFiles: "undo",
  };
}
beforeEach(async () => {
  ws = await openTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe("the process spawner starts the processes, not the host", () => {
  it.skipIf(!LINUX)(
    "a bash call's processes descend from the spawner, itself a child of the host",
    async () => {
      const sleep = marker();
      const call = ws.session.call("bash", { command: `sleep ${sleep}` });
      await vi.waitFor(() => expect(sleepers(sleep)).toHaveLength(1), { timeout: 10_000 });
      const spawnerPid = processSpawner().pid;
      expect(spawnerPid).toBeDefined();
      expect(spawnerPid).not.toBe(process.pid);
      expect(parentOf(spawnerPid as number)).toBe(process.pid);
      const chain = ancestors(sleepers(sleep)[0] as number);
      // The nearest of the two that the command's process descends from is the spawner.
      expect(chain).toContain(spawnerPid);
      expect(chain.indexOf(spawnerPid as number)).toBeLessThan(chain.indexOf(process.pid));
      process.kill(sleepers(sleep)[0] as number, "SIGKILL");
      await call;
    },
  );

  it("leaves the host's working directory alone while a command is wrapped and runs", async () => {
    const before = process.cwd();
    process.chdir(ws.root);
    const seen = new Set<string>();
    const probe = setInterval(() => seen.add(process.cwd()), 1);
    try {
      const envelope = await ws.session.call("bash", { command: "sleep 0.3; echo done" });
      expect(outputOf<{ output: string }>(envelope).output).toBe("done\n");
    } finally {
      clearInterval(probe);
      seen.add(process.cwd());
      process.chdir(before);
    }
    expect([...seen]).toEqual([ws.root]);
  });
});

describe("when the spawner dies or cannot start", () => {
  it.skipIf(!LINUX)(
    "a running bash call ends in an error that says so, its processes end, and the next call works",
    async () => {
      const sleep = marker();
      const call = ws.session.call("bash", { command: `sleep ${sleep}` });
      await vi.waitFor(() => expect(sleepers(sleep)).toHaveLength(1), { timeout: 10_000 });
      process.kill(processSpawner().pid as number, "SIGKILL");
      const text = errorOf(await call);
      expect(text).toContain("the process spawner stopped (it was killed by SIGKILL) while the command ran");
      expect(text).toContain("its outcome is unknown");
      // The pty's processes got SIGHUP with the spawner, a sandbox ends with its launcher.
      await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 10_000 });
      const next = await ws.session.call("bash", { command: "echo again" });
      expect(outputOf<{ output: string }>(next).output).toBe("again\n");
    },
  );

  it.skipIf(!LINUX || !sandboxed)(
    "a protected file a confined command created is still removed when the spawner dies under it",
    async () => {
      const sleep = marker();
      const gitmodules = path.join(ws.root, ".gitmodules");
      const proc = await runInPty({
        command: `touch .gitmodules; sleep ${sleep}`,
        cwd: ws.root,
        signal: new AbortController().signal,
        output: { maxBytes: 1024, sidecarPath: path.join(ws.latheHome, "sidecar.txt"), root: ws.root },
        confine: {
          spec: workspaceConfinement(),
          env: {},
        },
      });
      await vi.waitFor(() => expect(sleepers(sleep)).toHaveLength(1), { timeout: 10_000 });
      // Positive control: the command really created it.
      expect(existsSync(gitmodules)).toBe(true);
      process.kill(processSpawner().pid as number, "SIGKILL");
      const err = await proc.exited.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(SpawnerError.isInstance(err)).toBe(true);
      expect((err as Error).message).toContain(`Lathe removed ${gitmodules}`);
      expect(existsSync(gitmodules)).toBe(false);
      await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 10_000 });
    },
  );

  it("fails every request, saying the command did not run, when the spawner cannot be started", async () => {
    const client = new SpawnerClient(() => {
      throw Object.assign(new Error("spawn EAGAIN"), { code: "EAGAIN" });
    });
    const err = await client
      .exec(
        { file: "touch", args: ["x"], line: "touch x", cwd: ws.root, env: {}, timeoutMs: 1000, maxBytes: 10 },
        new AbortController().signal,
      )
      .catch((e: unknown) => e);
    expect(SpawnerError.isInstance(err)).toBe(true);
    expect((err as Error).message).toBe(
      "the process spawner could not start (it could not be started: spawn EAGAIN), so the command did not run. The next command starts a fresh spawner.",
    );
  });

  it.skipIf(!LINUX)(
    "follows the host's environment: a changed one starts a fresh spawner once idle, an unchanged one keeps it",
    async () => {
      const run = (line: string) =>
        processSpawner().exec(
          {
            file: "/bin/sh",
            args: ["-c", line],
            line,
            cwd: ws.root,
            env: {},
            timeoutMs: 10_000,
            maxBytes: 100,
          },
          new AbortController().signal,
        );
      /** The spawner's own environment, from /proc. */
      const spawnerMark = (): string | undefined =>
        readFileSync(`/proc/${processSpawner().pid as number}/environ`, "utf8")
          .split("\0")
          .find((entry) => entry.startsWith("LATHE_TEST_CALLER="));
      const before = process.env.LATHE_TEST_CALLER;
      try {
        process.env.LATHE_TEST_CALLER = "first";
        await run("true");
        const first = processSpawner().pid;
        expect(spawnerMark()).toBe("LATHE_TEST_CALLER=first");
        await run("true");
        expect(processSpawner().pid).toBe(first);
        process.env.LATHE_TEST_CALLER = "second";
        await run("true");
        expect(processSpawner().pid).not.toBe(first);
        expect(spawnerMark()).toBe("LATHE_TEST_CALLER=second");
      } finally {
        if (before === undefined) delete process.env.LATHE_TEST_CALLER;
        else process.env.LATHE_TEST_CALLER = before;
      }
    },
  );

  it("fails a request whose spawner exits before it is ready, and tries a fresh one next time", async () => {
    let forks = 0;
    const client = new SpawnerClient((): ChildProcess => {
      forks++;
      return spawn(process.execPath, ["-e", "process.exit(3)"], {
        stdio: ["ignore", "ignore", "ignore", "ipc"],
      });
    });
    const run = (): Promise<unknown> =>
      client
        .exec(
          { file: "true", args: [], line: "true", cwd: ws.root, env: {}, timeoutMs: 1000, maxBytes: 10 },
          new AbortController().signal,
        )
        .catch((e: unknown) => e);
    const first = await run();
    expect((first as Error).message).toBe(
      "the process spawner could not start (it exited with code 3), so the command did not run. The next command starts a fresh spawner.",
    );
    await run();
    expect(forks).toBe(2);
  });
});

describe("a terminal's Ctrl-C", () => {
  it.skipIf(!LINUX)("reaches the host, which decides what stops; the spawner carries on", async () => {
    const spawner = new URL("./process-spawner.ts", import.meta.url).href;
    // The host leads a process group of its own, as a shell's foreground job does; Ctrl-C
    // sends SIGINT to the whole group, which holds the spawner too.
    const script = `
      const { processSpawner } = await import(${JSON.stringify(spawner)});
      const client = processSpawner();
      const run = (line) => client.exec({ file: "/bin/sh", args: ["-c", line], line, cwd: process.cwd(), env: {}, timeoutMs: 10000, maxBytes: 100 }, new AbortController().signal);
      await run("true");
      const before = client.pid;
      let interrupted = false;
      process.on("SIGINT", () => (interrupted = true));
      process.kill(-process.pid, "SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await run("echo still here");
      console.log(JSON.stringify({ interrupted, same: client.pid === before, said: after.stdout.toString() }));
      process.exit(0);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: await realpath(ws.root),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const [out, err, code] = await Promise.all([
      readAll(child.stdout),
      readAll(child.stderr),
      once(child, "exit"),
    ]);
    expect(code[0], err).toBe(0);
    expect(JSON.parse(out)).toEqual({ interrupted: true, same: true, said: "still here\n" });
  });
});

describe("the spawner does not keep the host alive", () => {
  it.skipIf(!LINUX)(
    "a script that ran a command through it exits by itself, and the spawner with it",
    async () => {
      const pty = new URL("../builtin/pty-runner.ts", import.meta.url).href;
      const spawner = new URL("./process-spawner.ts", import.meta.url).href;
      const script = `
      const { runInPty } = await import(${JSON.stringify(pty)});
      const { processSpawner } = await import(${JSON.stringify(spawner)});
      const output = { maxBytes: 1024, sidecarPath: "/nonexistent/sidecar.txt", root: process.cwd() };
      const proc = await runInPty({ command: "echo from-pty", cwd: process.cwd(), signal: new AbortController().signal, output });
      const { output: captured } = await proc.exited;
      console.log(JSON.stringify({ output: captured.text, spawner: processSpawner().pid }));
    `;
      const cwd = await realpath(ws.root);
      // The timeout only stops a host that hangs, which is the failure this test exists to catch.
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd,
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.status, result.stderr).toBe(0);
      const said = JSON.parse(result.stdout) as { output: string; spawner: number };
      expect(said.output).toBe("from-pty\n");
      // With its host gone, the spawner ends too.
      await vi.waitFor(() => expect(parentOf(said.spawner)).toBeUndefined(), { timeout: 10_000 });
    },
  );
});

/** Start `line` under /bin/sh as a server through the process-wide spawner. */
function startServer(line: string): Promise<RemoteServer> {
  return processSpawner().server({ file: "/bin/sh", args: ["-c", line], line, cwd: ws.root, env: hostEnv() });
}

/** Everything `stream` says until it ends. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe("a long-running server (an MCP stdio server) started by the spawner", () => {
  it.skipIf(!LINUX)(
    "descends from the spawner, and the host talks to it over the pipes it was handed",
    async () => {
      // It writes before the host holds its pipes: nothing of that may be lost on the way.
      const server = await startServer("echo hello >&2; echo first; cat; echo bye >&2");
      // Started by the spawner, not by this process (whose fork would block a large host).
      expect(parentOf(server.pid)).toBe(processSpawner().pid);
      const said = readAll(server.stdout);
      const complained = readAll(server.stderr);
      server.stdin.write("ping\n");
      server.stdin.end("pong\n");
      expect(await said).toBe("first\nping\npong\n");
      expect(await complained).toBe("hello\nbye\n");
      expect(await server.ended).toEqual({ code: 0, signal: null, removed: [] });
    },
  );

  it("loses nothing of what it writes the moment it runs", async () => {
    // Any of it read by the spawner on the way would be lost: its pipes are open there too until
    // the host has them. Many times over, for a race.
    for (let i = 0; i < 50; i++) {
      const server = await startServer("echo early >&2; echo early; exec cat >/dev/null");
      server.stdin.end();
      const said = await Promise.all([readAll(server.stdout), readAll(server.stderr)]);
      expect(said, `start ${i}`).toEqual(["early\n", "early\n"]);
      await server.ended;
    }
  });

  it("stops on SIGTERM, and on SIGKILL when it ignores SIGTERM", async () => {
    const sleep = marker();
    const polite = await startServer(`exec sleep ${sleep}`);
    polite.signal("SIGTERM");
    expect(await polite.ended).toEqual({ code: null, signal: "SIGTERM", removed: [] });

    const stubborn = await startServer(`trap '' TERM; echo ready; sleep ${sleep}; echo survived`);
    const [ready] = (await once(stubborn.stdout, "data")) as [Buffer];
    expect(String(ready)).toBe("ready\n");
    stubborn.signal("SIGTERM");
    // Positive control: SIGTERM alone does not end it.
    const early = await Promise.race([stubborn.ended, setTimeout(300).then(() => "running")]);
    expect(early).toBe("running");
    stubborn.signal("SIGKILL");
    expect(await stubborn.ended).toEqual({ code: null, signal: "SIGKILL", removed: [] });
    if (LINUX) await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 10_000 });
  });

  it("can be stopped at once, before it runs, without harm to the spawner", async () => {
    await startServer("true");
    const spawner = processSpawner().pid;
    // Stopped while the spawner still hands its pipes over: a race the spawner must
    // survive (its pipes fail under it as the server goes).
    for (let i = 0; i < 100; i++) {
      const server = await startServer(`exec sleep ${marker()}`);
      server.signal("SIGKILL");
      expect(await server.ended).toEqual({ code: null, signal: "SIGKILL", removed: [] });
    }
    expect(processSpawner().pid).toBe(spawner);
  });

  it("fails to start, with the error's code, when its program is not there", async () => {
    const err = await processSpawner()
      .server({
        file: "lathe-no-such-server",
        args: [],
        line: "lathe-no-such-server",
        cwd: ws.root,
        env: hostEnv(),
      })
      .catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  it.skipIf(!LINUX)("is killed when the spawner dies under it, and says the spawner was lost", async () => {
    const sleep = marker();
    const server = await startServer(`exec sleep ${sleep}`);
    await vi.waitFor(() => expect(sleepers(sleep)).toHaveLength(1), { timeout: 10_000 });
    process.kill(processSpawner().pid as number, "SIGKILL");
    const end = await server.ended;
    expect("lost" in end && end.lost.message).toContain(
      "the process spawner stopped (it was killed by SIGKILL)",
    );
    await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 10_000 });
  });

  it.skipIf(!LINUX)("is ended by the spawner when its host goes without closing it", async () => {
    const sleep = marker();
    const spawner = new URL("./process-spawner.ts", import.meta.url).href;
    const script = `
      const { processSpawner } = await import(${JSON.stringify(spawner)});
      const env = { PATH: process.env.PATH };
      const server = await processSpawner().server({ file: "sleep", args: [${JSON.stringify(sleep)}], line: "", cwd: process.cwd(), env });
      console.log(JSON.stringify({ server: server.pid, spawner: processSpawner().pid }));
      process.exit(0);
    `;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: await realpath(ws.root),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const said = JSON.parse(result.stdout) as { server: number; spawner: number };
    expect(said.server).toBeGreaterThan(0);
    await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 10_000 });
    await vi.waitFor(() => expect(parentOf(said.spawner)).toBeUndefined(), { timeout: 10_000 });
  });
});

// A plugin's `shell.run` (no group) and a hook (a group of its own) run this way: a program that
// exits while something it started still holds its output open used to be waited for until its
// timeout, then reported as stopped there, its own exit and output lost.
describe("an exec'd program that exits while what it started holds its output", () => {
  it.skipIf(!LINUX).each([
    ["in the spawner's group", false],
    ["in a group of its own", true],
  ])("ends at its exit, %s, with its status and output", async (_name, group) => {
    const sleep = marker();
    const t0 = Date.now();
    try {
      const result = await processSpawner().exec(
        {
          file: "/bin/sh",
          args: ["-c", `sleep ${sleep} & echo answered; echo why >&2; exit 3`],
          line: "",
          cwd: ws.root,
          env: hostEnv(),
          timeoutMs: 8_000,
          maxBytes: 65_536,
          group,
        },
        new AbortController().signal,
      );
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(result.end).toMatchObject({ code: 3, killed: false });
      expect(result.stdout.toString()).toBe("answered\n");
      expect(result.stderr.toString()).toBe("why\n");
      // Positive control: what it left running held the output open, and is not ended by this.
      expect(sleepers(sleep)).toHaveLength(1);
    } finally {
      for (const pid of sleepers(sleep)) process.kill(pid, "SIGKILL");
    }
  });
  it.skipIf(!LINUX)(
    "ends at its timeout without a group of its own, though what it started lives on",
    async () => {
      // Before, only the program was killed at its timeout, and its end waited for the output to
      // close: for as long as what it started ran (a plugin's `shell.run` hung past its timeout).
      const sleep = marker();
      const t0 = Date.now();
      try {
        const result = await processSpawner().exec(
          {
            file: "/bin/sh",
            args: ["-c", `sleep ${sleep} & sleep 30`],
            line: "",
            cwd: ws.root,
            env: hostEnv(),
            timeoutMs: 1_000,
            maxBytes: 65_536,
          },
          new AbortController().signal,
        );
        expect(Date.now() - t0).toBeLessThan(5_000);
        expect(result.end).toMatchObject({ code: null, killed: true });
        expect(sleepers(sleep)).toHaveLength(1);
      } finally {
        for (const pid of sleepers(sleep)) process.kill(pid, "SIGKILL");
      }
    },
  );
});

// The login shell Lathe asks for its PATH (a group of its own), a hook and a plugin's `shell.run`
// run this way. Killed outright at its timeout, a program could not clean up: pyenv's rehash lock,
// left by a login shell killed mid-rehash, made every later login shell wait 60 s for it.
describe("an exec'd program stopped at its timeout or by an abort", () => {
  /** Takes a lock file, and removes it on the way out, as pyenv's rehash does (an EXIT trap). */
  const locking = (lock: string, sleep: string) =>
    `echo -n > '${lock}'; trap "rm -f '${lock}'" EXIT; sleep ${sleep} & wait`;
  const exec = (script: string, group: boolean, signal = new AbortController().signal, timeoutMs = 1_000) =>
    processSpawner().exec(
      {
        file: "/bin/bash",
        args: ["-c", script],
        line: "",
        cwd: ws.root,
        env: hostEnv(),
        timeoutMs,
        maxBytes: 65_536,
        group,
      },
      signal,
    );

  it.skipIf(!LINUX)("positive control: a program killed outright leaves its lock file behind", async () => {
    const lock = path.join(ws.root, "control.lock");
    const sleep = marker();
    const child = spawn("/bin/bash", ["-c", locking(lock, sleep)], { stdio: "ignore", detached: true });
    try {
      await vi.waitFor(() => expect(existsSync(lock)).toBe(true), { timeout: 5_000 });
      process.kill(-child.pid!, "SIGKILL");
      await once(child, "exit");
      expect(existsSync(lock)).toBe(true);
    } finally {
      for (const pid of sleepers(sleep)) process.kill(pid, "SIGKILL");
    }
  });

  it.skipIf(!LINUX).each([
    { why: "its timeout", group: true, abort: false },
    { why: "its timeout", group: false, abort: false },
    { why: "an abort", group: true, abort: true },
  ])(
    "gets SIGTERM first at $why (group of its own: $group), so its EXIT trap removes its lock",
    async ({ group, abort }) => {
      const lock = path.join(ws.root, `run-${String(group)}-${String(abort)}.lock`);
      const sleep = marker();
      const controller = new AbortController();
      try {
        const running = exec(locking(lock, sleep), group, controller.signal, abort ? 30_000 : 1_000);
        await vi.waitFor(() => expect(existsSync(lock)).toBe(true), { timeout: 5_000 });
        if (abort) controller.abort();
        const result = await running;
        expect(result.end).toMatchObject({ killed: true, failed: true });
        expect(existsSync(lock)).toBe(false);
        // In a group of its own, what it started ends with it.
        if (group) await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 5_000 });
      } finally {
        for (const pid of sleepers(sleep)) process.kill(pid, "SIGKILL");
      }
    },
  );

  it.skipIf(!LINUX)(
    "ends one that ignores SIGTERM with SIGKILL after the grace, all of its group",
    async () => {
      const sleep = marker();
      const t0 = Date.now();
      try {
        const result = await exec(`trap '' TERM; sleep ${sleep} & wait; sleep 30`, true);
        expect(result.end).toMatchObject({ code: null, killed: true, failed: true });
        expect(Date.now() - t0).toBeGreaterThanOrEqual(1_900);
        expect(Date.now() - t0).toBeLessThan(10_000);
        await vi.waitFor(() => expect(sleepers(sleep)).toEqual([]), { timeout: 5_000 });
      } finally {
        for (const pid of sleepers(sleep)) process.kill(pid, "SIGKILL");
      }
    },
  );
});

describe("what the spawner loads", () => {
  it.skipIf(!LINUX || !sandboxed)(
    "a confined command without network: node-pty and the sandbox's Linux wrapper, never its manager",
    async () => {
      await mkdir(ws.latheHome, { recursive: true });
      const traced = path.join(ws.latheHome, "spawner-loads.json");
      // Names every file under node_modules the spawner resolves, written when it exits.
      const tracer = `data:text/javascript,${encodeURIComponent(`
        import { registerHooks } from "node:module";
        import { writeFileSync } from "node:fs";
        const files = new Set();
        registerHooks({ resolve(specifier, context, next) {
          const result = next(specifier, context);
          const at = result.url.indexOf("/node_modules/");
          if (at >= 0) files.add(result.url.slice(at + 14));
          return result;
        } });
        process.on("exit", () => writeFileSync(${JSON.stringify(traced)}, JSON.stringify([...files])));
      `)}`;
      const { fork } = await import("node:child_process");
      const { spawnerEntry } = await import("./process-spawner.ts");
      const child = fork(spawnerEntry(), [], {
        execArgv: ["--import", tracer],
        serialization: "advanced",
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      });
      const client = new SpawnerClient(() => child);
      const proc = await client.pty(
        {
          script: "true",
          cwd: ws.root,
          env: hostEnv(),
          confine: workspaceConfinement(),
          output: { maxBytes: 1024, sidecarPath: path.join(ws.latheHome, "sidecar.txt"), root: ws.root },
        },
        new AbortController().signal,
      );
      expect((await proc.exited).exitCode).toBe(0);
      child.disconnect();
      await once(child, "exit");
      const files = JSON.parse(readFileSync(traced, "utf8")) as string[];
      const sandboxFiles = files.filter((f) => f.startsWith("@anthropic-ai/sandbox-runtime/"));
      // Positive control: the command was wrapped by the library's Linux wrapper, on node-pty.
      expect(files.some((f) => f.startsWith("node-pty/"))).toBe(true);
      expect(sandboxFiles).toContain("@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js");
      // The manager (its proxy and TLS stack) stays out: its module, and node-forge with it.
      expect(sandboxFiles).not.toContain("@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-manager.js");
      expect(files.some((f) => f.startsWith("node-forge/"))).toBe(false);
    },
  );
});

describe("a path the sandbox holds, replaced while a confined process runs", () => {
  it.skipIf(!LINUX || !sandboxed)(
    "a confined program (a plugin's command) is stopped, saying why, when a file its sandbox holds is replaced",
    async () => {
      const sleep = marker();
      const gitmodules = path.join(ws.root, ".gitmodules");
      await writeFile(gitmodules, "");
      const started = Date.now();
      const done = processSpawner().exec(
        {
          file: "sleep",
          args: [sleep],
          line: `sleep ${sleep}`,
          cwd: ws.root,
          env: hostEnv(),
          confine: { ...workspaceConfinement(), pty: false },
          timeoutMs: 30_000,
          maxBytes: 1024,
        },
        new AbortController().signal,
      );
      await vi.waitFor(() => expect(sleepers(sleep)).toHaveLength(1), { timeout: 10_000 });
      await writeFile(`${gitmodules}.new`, "[submodule]\n");
      await rename(`${gitmodules}.new`, gitmodules);
      const result = await done;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result.stoppedBecause).toMatch(
        /^\/.*\.gitmodules \(git's submodule configuration\) was replaced outside the sandbox while it ran/,
      );
      expect(sleepers(sleep)).toEqual([]);
    },
  );
});
