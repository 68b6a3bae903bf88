import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processSpawner } from "../spawner/process-spawner.ts";
import { FAILURE_MAX_AGE_MS, loginPathCache, SUCCESS_MAX_AGE_MS } from "./login-path-cache.ts";
import { loginPathKey } from "./login-path-key.ts";
import { askLoginShell, mergePathLists, resolveLoginShellPath } from "./login-shell-path.ts";

let dir: string;

async function fakeShell(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-login-path-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = (shell: string | undefined, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: dir,
  PATH: "/usr/bin:/bin",
  ...(shell === undefined ? {} : { SHELL: shell }),
  ...more,
});

describe.skipIf(process.platform === "win32")("askLoginShell", () => {
  it("reads the PATH a login shell sets up, ignoring what its profile prints", async () => {
    // A "login shell" whose profile chats on stdout before running the command.
    const shell = await fakeShell(
      "chatty-sh",
      `echo "Welcome back!"\nPATH=/opt/tools/bin:/usr/bin\nexport PATH\nexec /bin/sh -c "$2"`,
    );
    expect(await askLoginShell(shell, env(shell))).toMatchObject({
      ok: true,
      path: "/opt/tools/bin:/usr/bin",
      shell,
    });
  });

  it("runs the shell from the process spawner, never from the host", async () => {
    // A "login shell" that answers with the id of the process that started it.
    const shell = await fakeShell("parent-sh", `printf '%s%s' __LATHE_LOGIN_PATH__ "$PPID"`);
    const answer = await askLoginShell(shell, env(shell));
    const parent = Number(answer.ok ? answer.path : NaN);
    expect(parent).toBe(processSpawner().pid);
    expect(parent).not.toBe(process.pid);
  });

  it.each([
    ["does not exist", "/no/such/shell", "", /could not start \(ENOENT\)/],
    ["fails", "failing-sh", "exit 7", /exited with 7/],
    ["prints no PATH", "quiet-sh", "exit 0", /printed no PATH/],
    ["hangs past the limit", "hanging-sh", "sleep 10", /did not finish within 0.2 s/],
  ])("says why there is no PATH when the shell %s", async (_label, name, body, reason) => {
    const shell = name.startsWith("/") ? name : await fakeShell(name, body);
    const started = Date.now();
    const answer = await askLoginShell(shell, env(shell), 200);
    expect(answer).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe.skipIf(process.platform === "win32")(
  "resolveLoginShellPath: the login shell once per machine",
  () => {
    let home: string;
    let counter: string;
    let shell: string;
    beforeEach(async () => {
      home = await mkdtemp(path.join(dir, "home-"));
      counter = path.join(home, "runs");
      // A login shell that counts its runs and adds its own folder in front of the PATH it got.
      shell = await fakeShell(
        `counting-sh-${path.basename(home)}`,
        `echo run >> '${counter}'\nPATH="/login/bin:$PATH"\nexport PATH\nexec /bin/sh -c "$2"`,
      );
    });
    // The user's environment: HOME is this test's.
    const at = (s: string | undefined, more: NodeJS.ProcessEnv = {}) => env(s, { HOME: home, ...more });
    const runs = async () =>
      existsSync(counter) ? (await readFile(counter, "utf8")).split("\n").length - 1 : 0;

    it("asks the shell once, then answers from the cache: the same PATH, merged with the caller's", async () => {
      const first = await resolveLoginShellPath(home, at(shell));
      expect(first).toMatchObject({ from: "shell", path: "/login/bin:/usr/bin:/bin" });
      const second = await resolveLoginShellPath(home, at(shell));
      expect(second).toMatchObject({ from: "cache", path: "/login/bin:/usr/bin:/bin" });
      expect(await runs()).toBe(1);
    });

    it("servers starting together share one run of the shell", async () => {
      const all = await Promise.all([1, 2, 3].map(() => resolveLoginShellPath(home, at(shell))));
      expect(all.map((r) => r.path)).toEqual(Array(3).fill("/login/bin:/usr/bin:/bin"));
      expect(await runs()).toBe(1);
    });

    it("gives each caller its own PATH (a daemon runs commands for several): another PATH is asked for itself", async () => {
      await resolveLoginShellPath(home, at(shell));
      const venv = await resolveLoginShellPath(home, at(shell, { PATH: "/venv/bin:/usr/bin:/bin" }));
      expect(venv.path).toBe("/login/bin:/venv/bin:/usr/bin:/bin");
      // Both are kept: going back to the first PATH asks no one.
      expect(await resolveLoginShellPath(home, at(shell))).toMatchObject({
        from: "cache",
        path: "/login/bin:/usr/bin:/bin",
      });
      expect(await runs()).toBe(2);
    });

    it("asks again after an rc file changed", async () => {
      await resolveLoginShellPath(home, at(shell));
      await writeFile(path.join(home, ".profile"), "export PATH=/new/bin:$PATH\n");
      expect((await resolveLoginShellPath(home, at(shell))).from).toBe("shell");
      expect(await runs()).toBe(2);
    });

    it("asks again once the answer is a day old", async () => {
      const cache = loginPathCache(home);
      const key = loginPathKey(shell, at(shell));
      const old = {
        ok: true as const,
        path: "/stale/bin",
        shell,
        ms: 5,
        at: Date.now() - SUCCESS_MAX_AGE_MS - 1,
      };
      cache.write(key, old);
      expect(await resolveLoginShellPath(home, at(shell))).toMatchObject({
        from: "shell",
        path: "/login/bin:/usr/bin:/bin",
      });
      expect(cache.read(key)).toMatchObject({ ok: true, path: "/login/bin:/usr/bin:/bin" });
    });

    it("a shell that times out gives the caller's PATH, and the next process does not wait for it again", async () => {
      const slow = await fakeShell(`slow-sh-${path.basename(home)}`, `echo run >> '${counter}'\nsleep 10`);
      const started = Date.now();
      const first = await resolveLoginShellPath(home, at(slow), 300);
      expect(first).toMatchObject({ from: "shell", path: "/usr/bin:/bin", answer: { ok: false } });
      const second = await resolveLoginShellPath(home, at(slow), 300);
      expect(second).toMatchObject({ from: "cache", path: "/usr/bin:/bin", answer: { ok: false } });
      expect(await runs()).toBe(1);
      expect(Date.now() - started).toBeLessThan(3_000);

      // Ten minutes on, it is asked again.
      const key = loginPathKey(slow, at(slow));
      const kept = loginPathCache(home).read(key);
      if (!kept) throw new Error("the failure was not kept");
      loginPathCache(home).write(key, { ...kept, at: Date.now() - FAILURE_MAX_AGE_MS - 1 });
      expect((await resolveLoginShellPath(home, at(slow), 300)).from).toBe("shell");
      expect(await runs()).toBe(2);
    });

    it("without SHELL, the caller's PATH as it is", async () => {
      expect(await resolveLoginShellPath(home, at(undefined))).toEqual({
        from: "none",
        path: "/usr/bin:/bin",
      });
    });

    it("says why the answer was not kept when the cache cannot be written, and still answers", async () => {
      const blocked = path.join(home, "blocked");
      await writeFile(blocked, "a file where the cache folder would be");
      const result = await resolveLoginShellPath(blocked, at(shell));
      expect(result).toMatchObject({ from: "shell", path: "/login/bin:/usr/bin:/bin" });
      expect(result.notKept).toMatch(/ENOTDIR|EEXIST/);
    });
  },
);

describe("mergePathLists", () => {
  it("keeps the first occurrence of each entry, in order", () => {
    const d = path.delimiter;
    expect(mergePathLists(`/a${d}/b`, `/b${d}/c${d}${d}/a`, undefined)).toBe(`/a${d}/b${d}/c`);
  });
});
