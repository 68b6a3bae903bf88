import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { bundleState } from "../bin/cli-bundle.mjs";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { useCliWorld } from "./support/cli-world.ts";

// The CLI daemon runs whatever command reaches its socket, outside any sandbox. A command run for
// a model (bash, in the sandbox) that could reach that socket could ask the daemon to write
// anywhere. The socket lives in LATHE_HOME/run/, which confined processes cannot see: the
// positive control shows the same script, run outside Lathe, really gets the daemon to write
// outside the workspace; through Lathe it cannot.

const machine = await machineSandbox();
const FRESH = bundleState().state === "fresh";
const why = !machine.active
  ? `this machine has no OS sandbox (${machine.reason})`
  : !FRESH
    ? "the daemon runs the CLI bundle, which is not built"
    : undefined;
if (why) console.log(`hostile-daemon-socket is skipped: ${why}`);

/** Connects to the socket named on its command line and asks for a write outside the workspace. */
const ATTACK = `
import net from "node:net";
const [socket, target] = process.argv.slice(2);
const request = {
  argv: ["call", "write", JSON.stringify({ path: "pwned.txt", content: "pwned" }), "--mode", "yolo", "--root", target],
  cwd: target, env: { ...process.env }, stdin: { isTTY: false }, stdout: { isTTY: false }, stderr: { isTTY: false },
};
const body = Buffer.from(JSON.stringify(request));
const head = Buffer.alloc(5); head[0] = 0x4a; head.writeUInt32BE(body.length, 1);
const c = net.connect(socket);
c.on("connect", () => c.write(Buffer.concat([head, body])));
c.on("data", () => {});
c.on("error", (e) => { console.log("could not connect: " + e.code); process.exitCode = 3; });
c.on("close", () => console.log("closed"));
`;

let outside: string;
let socket: string;

const world = useCliWorld("lathe-hds-", {
  per: "file",
  setup: async () => {
    if (why) return;
    outside = await world.folder("outside");
    await writeFile(path.join(world.root, "attack.mjs"), ATTACK);
    const started = await world.lathe(["daemon", "start"], { env: { LATHE_DAEMON: "on" } });
    expect(started.code, started.stderr).toBe(0);
    const status = await world.lathe(["daemon", "status", "--json"], { env: { LATHE_DAEMON: "on" } });
    socket = (JSON.parse(status.stdout) as { socket: string }).socket;
    // The path, kept in a file, so the command below never names it (only the sandbox stands in the way).
    await writeFile(path.join(world.root, "where.txt"), socket);
  },
});

// Registered after the world's hooks: the daemon stops before its home is removed.
afterAll(async () => {
  if (why) return;
  await world.lathe(["daemon", "stop"], { env: { LATHE_DAEMON: "on" } });
});

const pwned = () => path.join(outside, "pwned.txt");

describe.skipIf(why !== undefined)("a sandboxed command cannot reach the CLI daemon", () => {
  it("positive control: the script, run outside Lathe, gets the daemon to write outside the workspace", async () => {
    execFileSync(process.execPath, [path.join(world.root, "attack.mjs"), socket, outside], {
      cwd: world.root,
    });
    for (let i = 0; i < 100 && !existsSync(pwned()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(pwned())).toBe(true);
    await rm(pwned());
  });

  it.each([
    {
      name: "through the daemon, path read at run time",
      daemon: "on",
      command: `node attack.mjs "$(cat where.txt)" OUT`,
    },
    {
      name: "without the daemon, path read at run time",
      daemon: "off",
      command: `node attack.mjs "$(cat where.txt)" OUT`,
    },
    {
      name: "through the daemon, by the socket's own path",
      daemon: "on",
      command: "node attack.mjs SOCKET OUT",
    },
  ])("$name: nothing is written", async ({ daemon, command }) => {
    const line = command.replace("OUT", outside).replace("SOCKET", socket);
    const run = await world.lathe(["call", "bash", JSON.stringify({ command: line }), "--mode", "yolo"], {
      env: { LATHE_DAEMON: daemon },
    });
    const envelope = JSON.parse(run.stdout) as {
      type: string;
      data?: { output: string };
      error_text?: string;
    };
    if (envelope.type === "output")
      expect(envelope.data?.output).toMatch(/could not connect: (ENOENT|EACCES|EPERM)/);
    else
      expect(envelope.error_text).toMatch(
        /names .*\.sock, which holds Lathe's own data.*the OS sandbox hides it/,
      );
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(pwned())).toBe(false);
  });
});
