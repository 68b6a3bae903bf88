import { existsSync } from "node:fs";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bundleState } from "../bin/cli-bundle.mjs";
import { useCliWorld } from "./support/cli-world.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// The PATH a stdio MCP server starts with comes from the user's login shell ($SHELL -l). Each
// `lathe` process used to start that shell (100 ms to the 3 s limit with a slow profile); now
// the answer is kept in $LATHE_HOME/cache/ and the next process reads it there.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

let counter: string;
let envFile: string;
const world = useCliWorld("lathe-login-cli-", {
  setup: async () => {
    counter = path.join(world.home, "shell-runs");
    // The server writes its environment in the workspace (a confined server cannot write $LATHE_HOME).
    envFile = path.join(world.root, "server-env.json");
    const script = path.join(world.home, "script.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [{ name: "echo", description: "Echo the text.", inputSchema: { type: "object" } }],
        envFile,
      }),
    );
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } } }),
    );
    await writeFile(path.join(world.root, "a.txt"), "hi\n");
  },
});

/** A login shell that counts its runs and puts /login-only/bin in front of the PATH it got. */
async function countingShell(extra = ""): Promise<string> {
  const file = path.join(world.home, "login-sh");
  await writeFile(
    file,
    `#!/bin/sh\necho run >> '${counter}'\n${extra}\nPATH="/login-only/bin:$PATH"\nexport PATH\nexec /bin/sh -c "$2"\n`,
  );
  await chmod(file, 0o755);
  return file;
}

const shellRuns = async () =>
  existsSync(counter) ? (await readFile(counter, "utf8")).split("\n").length - 1 : 0;

/** The PATH the server started with in the last call (and forget it). */
async function serverPath(): Promise<string> {
  const env = JSON.parse(await readFile(envFile, "utf8")) as { PATH?: string };
  await rm(envFile);
  return env.PATH ?? "";
}

async function call(env: Record<string, string | undefined>): Promise<{ ms: number; stderr: string }> {
  const started = Date.now();
  // A call that can reach an MCP tool (a built-in such as read starts no server).
  const run = await world.lathe(["call", "tool_search", '{"query":"echo"}'], { env });
  expect(run.code).toBe(0);
  return { ms: Date.now() - started, stderr: run.stderr };
}

describe.skipIf(process.platform === "win32")("the login shell's PATH across lathe processes", () => {
  it("the second process reads the first one's answer and starts no login shell", async () => {
    const SHELL = await countingShell();
    const first = await call({ SHELL });
    expect(first.stderr).toContain("starting MCP server scripted");
    expect(await serverPath()).toMatch(/^\/login-only\/bin:/);
    expect(await shellRuns()).toBe(1);

    await call({ SHELL });
    expect(await serverPath()).toMatch(/^\/login-only\/bin:/);
    expect(await shellRuns()).toBe(1);
  });

  it("a login shell that hangs costs the first process its 3 s, not every process after it", async () => {
    const SHELL = await countingShell("sleep 30");
    const first = await call({ SHELL });
    expect(first.ms).toBeGreaterThanOrEqual(3_000);
    // Without the login shell's PATH the server starts with lathe's own.
    expect(await serverPath()).not.toContain("/login-only/bin");

    const second = await call({ SHELL });
    expect(await serverPath()).not.toContain("/login-only/bin");
    expect(await shellRuns()).toBe(1);
    expect(second.ms).toBeLessThan(first.ms);
  }, 30_000);
});

describe.skipIf(process.platform === "win32" || bundleState().state !== "fresh")(
  "through the daemon, which runs commands for callers with different environments",
  () => {
    afterEach(async () => {
      await world.lathe(["daemon", "stop"], { env: { LATHE_DAEMON: "on" } });
    });

    it("each caller's server starts with that caller's PATH, not the first caller's", async () => {
      const SHELL = await countingShell();
      const on = { LATHE_DAEMON: "on", CI: undefined, SHELL };
      expect((await world.lathe(["daemon", "start"], { env: on })).code).toBe(0);
      await call(on);
      expect(await serverPath()).not.toContain("/venv-only/bin");

      const PATH = `/venv-only/bin${path.delimiter}${process.env.PATH ?? ""}`;
      await call({ ...on, PATH });
      expect(await serverPath()).toMatch(/^\/login-only\/bin:\/venv-only\/bin:/);
      const status = await world.lathe(["daemon", "status", "--json"], { env: on });
      // Both calls ran in the daemon.
      expect((JSON.parse(status.stdout) as { jobs?: number }).jobs).toBe(2);
    });
  },
);
