import { mkdtemp, rm, unlink } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Control, FromDaemon, frame, FrameReader, type JobRequest, ToDaemon } from "./daemon-frames.ts";
import { onStopSignals } from "../interrupt.ts";
import { type DaemonOptions, serveDaemon } from "./daemon-server.ts";

// The daemon in this process, spoken to over its socket frame by frame: what a client sees, and
// that the process is itself again after each command.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function start(run: DaemonOptions["run"], more: Partial<DaemonOptions> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-dsrv-"));
  dirs.push(dir);
  const socket = path.join(dir, "d.sock");
  const log: string[] = [];
  let stopped = false;
  const serving = serveDaemon({
    socket,
    build: "test",
    idleMs: 60_000,
    run,
    stillCurrent: () => true,
    log: (line) => log.push(line),
    ...more,
  }).then(() => void (stopped = true));
  // Listening once a status request is answered.
  await until(async () => (await talk(socket, { first: frame(Control.status) })).frames.length > 0);
  return { dir, socket, log, serving, isStopped: () => stopped };
}

async function until(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const request = (over: Partial<JobRequest> = {}): JobRequest => ({
  argv: ["tools"],
  cwd: os.tmpdir(),
  env: { MARK: "from-client" },
  stdin: { isTTY: false },
  stdout: { isTTY: true, columns: 123 },
  stderr: { isTTY: false },
  ...over,
});

interface Talk {
  frames: Array<{ kind: number; text: string }>;
  stdout: string;
  stderr: string;
  exit?: number;
}

/** Send `first`, then whatever `onFrame` answers; collect the frames until the daemon hangs up. */
function talk(
  socket: string,
  options: { first: Buffer; onFrame?: (kind: number, connection: net.Socket) => void },
): Promise<Talk> {
  return new Promise((resolve) => {
    const result: Talk = { frames: [], stdout: "", stderr: "" };
    const connection = net.connect(socket);
    const reader = new FrameReader();
    connection.on("connect", () => connection.write(options.first));
    connection.on("data", (chunk: Buffer) => {
      for (const { kind, payload } of reader.push(chunk)) {
        const text = payload.toString("utf8");
        result.frames.push({ kind, text });
        if (kind === FromDaemon.stdout) result.stdout += text;
        if (kind === FromDaemon.stderr) result.stderr += text;
        if (kind === FromDaemon.exit) result.exit = payload[0];
        options.onFrame?.(kind, connection);
      }
    });
    connection.on("error", () => resolve(result));
    connection.on("close", () => resolve(result));
  });
}
const job = (socket: string, req: JobRequest, onFrame?: (kind: number, c: net.Socket) => void) =>
  talk(socket, { first: frame(ToDaemon.job, JSON.stringify(req)), ...(onFrame ? { onFrame } : {}) });

describe("the CLI daemon", () => {
  it("runs a command with the client's arguments, folder, environment and terminal look, then is itself again", async () => {
    const cwdBefore = process.cwd();
    const stdoutBefore = process.stdout;
    const markBefore = process.env.MARK;
    const d = await start(async (argv) => {
      process.stdout.write(
        `${argv.join(" ")}|${process.cwd()}|${process.env.MARK}|${process.stdout.isTTY}|${process.stdout.columns}\n`,
      );
      process.stderr.write("to stderr\n");
      console.log("via console");
      return 1;
    });
    const t = await job(d.socket, request({ argv: ["call", "read", "{}"] }));
    expect(t.frames[0]?.kind).toBe(FromDaemon.accepted);
    expect(t.stdout).toBe(`call read {}|${os.tmpdir()}|from-client|true|123\nvia console\n`);
    expect(t.stderr).toBe("to stderr\n");
    expect(t.exit).toBe(1);
    expect(process.cwd()).toBe(cwdBefore);
    expect(process.stdout).toBe(stdoutBefore);
    expect(process.env.MARK).toBe(markBefore);
    expect(d.log.some((line) => /ran `lathe call read`: exit 1/.test(line))).toBe(true);
    expect(d.log.join("\n")).not.toContain("{}");
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  it("keeps the order in which a command wrote to stdout and stderr (a terminal shows both)", async () => {
    const d = await start(async () => {
      for (let i = 1; i <= 4; i++) {
        process.stdout.write(`out ${i} `);
        process.stdout.write(`more ${i}\n`);
        process.stderr.write(`err ${i}\n`);
      }
      return 0;
    });
    const t = await job(d.socket, request());
    const shown = t.frames
      .filter((f) => f.kind === FromDaemon.stdout || f.kind === FromDaemon.stderr)
      .map((f) => f.text)
      .join("");
    expect(shown).toBe([1, 2, 3, 4].map((i) => `out ${i} more ${i}\nerr ${i}\n`).join(""));
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  it("answers busy to a second command while one runs; the first is not disturbed", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const d = await start(async () => {
      await gate;
      process.stdout.write("first done\n");
      return 0;
    });
    const first = job(d.socket, request());
    await until(() => d.log.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await job(d.socket, request());
    expect(second.frames.map((f) => f.kind)).toEqual([FromDaemon.busy]);
    release();
    expect((await first).stdout).toBe("first done\n");
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  it("hands stdin over only when the command reads it", async () => {
    const d = await start(async () => {
      let text = "";
      for await (const chunk of process.stdin) text += String(chunk);
      process.stdout.write(text.toUpperCase());
      return 0;
    });
    const t = await job(d.socket, request(), (kind, c) => {
      if (kind === FromDaemon.wantStdin) {
        c.write(frame(ToDaemon.stdin, "hello "));
        c.write(frame(ToDaemon.stdin, "there"));
        c.write(frame(ToDaemon.stdinEnd));
      }
    });
    expect(t.stdout).toBe("HELLO THERE");
    expect(t.exit).toBe(0);
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  // What a command leaves behind (a grace timer that calls process.exit, a late log line) would have
  // died with a process of its own: here it must reach neither the next command nor the daemon.
  it.each([
    { name: "calls process.exit", leftover: () => process.exit(1), alsoBetween: true },
    {
      name: "raises a signal at its process",
      leftover: () => void process.kill(process.pid, "SIGTERM"),
      alsoBetween: true,
    },
    { name: "writes to stdout", leftover: () => void process.stdout.write("leftover\n"), alsoBetween: false },
    { name: "writes to stderr", leftover: () => void process.stderr.write("leftover\n"), alsoBetween: false },
    { name: "logs to the console", leftover: () => console.log("leftover"), alsoBetween: false },
  ])(
    "work left behind by an ended command that $name touches neither the next command nor the daemon",
    async ({ leftover }) => {
      const d = await start(async (argv) => {
        if (argv[0] === "first") {
          // Fires while the second command runs, then again between commands.
          setTimeout(leftover, 150);
          setTimeout(leftover, 800);
          return 0;
        }
        await new Promise((resolve) => setTimeout(resolve, 400));
        process.stdout.write("second done\n");
        return 0;
      });
      expect((await job(d.socket, request({ argv: ["first"] }))).exit).toBe(0);
      const second = await job(d.socket, request({ argv: ["second"] }));
      expect({ stdout: second.stdout, stderr: second.stderr, exit: second.exit }).toEqual({
        stdout: "second done\n",
        stderr: "",
        exit: 0,
      });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(d.isStopped()).toBe(false);
      const third = await job(d.socket, request({ argv: ["second"] }));
      expect(third.stdout).toBe("second done\n");
      await talk(d.socket, { first: frame(Control.stop) });
      await d.serving;
    },
  );

  it("a grace timer armed by Ctrl-C (as `lathe batch` arms one) does not end the next command", async () => {
    const d = await start(async (argv) => {
      if (argv[0] === "first") {
        return new Promise<number>((resolve) => {
          process.once("SIGINT", () => {
            setTimeout(() => process.exit(1), 200).unref();
            resolve(1);
          });
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.stdout.write("second done\n");
      return 0;
    });
    const first = await job(d.socket, request({ argv: ["first"] }), (kind, c) => {
      if (kind === FromDaemon.accepted) c.write(frame(ToDaemon.signal, "SIGINT"));
    });
    expect(first.exit).toBe(1);
    const second = await job(d.socket, request({ argv: ["second"] }));
    expect({ stdout: second.stdout, exit: second.exit }).toEqual({ stdout: "second done\n", exit: 0 });
    expect(d.isStopped()).toBe(false);
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  // A folder the client is in but this process cannot enter (no search permission for this user,
  // simulated: the tests may run as root) is run by the client itself; one that goes in the moment
  // between the check and the start fails as a process of its own would, and the daemon goes on.
  it.each([
    { name: "a folder this user cannot enter", failsFrom: 1, frames: [FromDaemon.busy], exit: undefined },
    {
      name: "a folder removed between the check and the start",
      failsFrom: 2,
      frames: [FromDaemon.accepted, FromDaemon.stderr, FromDaemon.exit],
      exit: 1,
    },
  ])("$name runs nothing here, and the daemon goes on", async ({ failsFrom, frames, exit }) => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "lathe-folder-"));
    dirs.push(folder);
    let ran = 0;
    const d = await start(async () => {
      ran++;
      return 0;
    });
    const realChdir = process.chdir.bind(process);
    let tries = 0;
    const chdir = vi.spyOn(process, "chdir").mockImplementation((dir: string) => {
      if (dir !== folder || ++tries < failsFrom) return realChdir(dir);
      throw Object.assign(new Error(`EACCES: permission denied, chdir '${dir}'`), { code: "EACCES" });
    });
    let t: Talk;
    try {
      t = await job(d.socket, request({ cwd: folder }));
    } finally {
      chdir.mockRestore();
    }
    expect({ frames: t.frames.map((f) => f.kind), exit: t.exit, ran }).toEqual({ frames, exit, ran: 0 });
    if (exit !== undefined) expect(t.stderr).toBe(`error: EACCES: permission denied, chdir '${folder}'\n`);
    expect((await job(d.socket, request())).exit).toBe(0);
    expect(ran).toBe(1);
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  it.each([
    {
      name: "a command that calls process.exit",
      run: async () => {
        process.exit(3);
        return 0;
      },
      signals: [],
      code: 3,
    },
    {
      name: "Ctrl-C on a command that does not listen for it",
      run: () => new Promise<number>(() => {}),
      signals: ["SIGINT"],
      code: 130,
    },
    {
      // `lathe run` stops its work on the first Ctrl-C and, on the second, ends its process by
      // raising the signal at itself: here that must end the command, never the daemon (or this
      // test's process) under it.
      name: "a second Ctrl-C, which a command answers by killing its own process",
      run: () => {
        onStopSignals(() => {});
        return new Promise<number>(() => {});
      },
      signals: ["SIGINT", "SIGINT"],
      code: 130,
    },
    {
      name: "a command that kills its own process outright",
      run: async () => {
        process.kill(process.pid, "SIGKILL");
        return 0;
      },
      signals: [],
      code: 137,
    },
  ])(
    "$name ends the command with its code, and the daemon makes way for a fresh one",
    async ({ run, signals, code }) => {
      // The daemon's own process.exit, recorded instead of ending the test.
      const realExit = process.exit;
      const daemonExits: unknown[] = [];
      process.exit = ((value?: number) => void daemonExits.push(value)) as typeof process.exit;
      const d = await start(run);
      const t = await job(d.socket, request(), (kind, c) => {
        if (kind === FromDaemon.accepted)
          for (const signal of signals) c.write(frame(ToDaemon.signal, signal));
      });
      expect(t.exit).toBe(code);
      await d.serving;
      // Outside any command, process.exit is the daemon's own again.
      process.exit(7);
      process.exit = realExit;
      expect(daemonExits).toEqual([7]);
    },
  );

  it("Ctrl-C on a command that listens for it: the command stops itself and the daemon stays", async () => {
    const d = await start(
      () =>
        new Promise<number>((resolve) => {
          process.once("SIGINT", () => resolve(1));
        }),
    );
    const t = await job(d.socket, request(), (kind, c) => {
      if (kind === FromDaemon.accepted) c.write(frame(ToDaemon.signal, "SIGINT"));
    });
    expect(t.exit).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(d.isStopped()).toBe(false);
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  it.each([
    { name: "a request that is not JSON", payload: "{not json" },
    { name: "a request of the wrong shape", payload: JSON.stringify({ argv: "tools" }) },
    { name: "a folder that does not exist", payload: JSON.stringify(request({ cwd: "/no/such/folder" })) },
  ])("$name runs nothing and the daemon goes on", async ({ payload }) => {
    let ran = 0;
    const d = await start(async () => {
      ran++;
      return 0;
    });
    const t = await talk(d.socket, { first: frame(ToDaemon.job, payload) });
    expect(t.exit).toBeUndefined();
    expect(ran).toBe(0);
    expect((await job(d.socket, request())).exit).toBe(0);
    expect(ran).toBe(1);
    await talk(d.socket, { first: frame(Control.stop) });
    await d.serving;
  });

  it.each([
    { name: "idle for its idle time", more: { idleMs: 200 }, act: async () => {} },
    {
      name: "its build replaced",
      more: { checkEveryMs: 100, stillCurrent: () => false },
      act: async () => {},
    },
    {
      name: "its socket file removed",
      more: { checkEveryMs: 100 },
      act: async (socket: string) => unlink(socket),
    },
  ])("stops when $name", async ({ more, act }) => {
    const d = await start(async () => 0, more);
    await act(d.socket);
    await d.serving;
    expect(d.isStopped()).toBe(true);
  });
});
