import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processSpawner } from "../spawner/process-spawner.ts";
import { mergePathLists, readLoginShellPath } from "./login-shell-path.ts";

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

describe.skipIf(process.platform === "win32")("readLoginShellPath", () => {
  it("reads the PATH a login shell sets up, ignoring what its profile prints", async () => {
    // A "login shell" whose profile chats on stdout before running the command.
    const shell = await fakeShell(
      "chatty-sh",
      `echo "Welcome back!"\nPATH=/opt/tools/bin:/usr/bin\nexport PATH\nexec /bin/sh -c "$2"`,
    );
    expect(await readLoginShellPath(shell, "/fallback")).toBe("/opt/tools/bin:/usr/bin");
  });

  it.each([
    ["no shell", undefined],
    ["a shell that does not exist", "/no/such/shell"],
  ])("falls back to the process PATH with %s", async (_label, shell) => {
    expect(await readLoginShellPath(shell, "/fallback/bin")).toBe("/fallback/bin");
  });

  it("runs the shell from the process spawner, never from the host", async () => {
    // A "login shell" that answers with the id of the process that started it.
    const shell = await fakeShell("parent-sh", `printf '%s%s' __LATHE_LOGIN_PATH__ "$PPID"`);
    const parent = Number(await readLoginShellPath(shell, "/fallback"));
    expect(parent).toBe(processSpawner().pid);
    expect(parent).not.toBe(process.pid);
  });

  it("falls back when the shell fails or hangs past the timeout", async () => {
    const failing = await fakeShell("failing-sh", "exit 7");
    const hanging = await fakeShell("hanging-sh", "sleep 10");
    expect(await readLoginShellPath(failing, "/fallback")).toBe("/fallback");
    const started = Date.now();
    expect(await readLoginShellPath(hanging, "/fallback", 200)).toBe("/fallback");
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe("mergePathLists", () => {
  it("keeps the first occurrence of each entry, in order", () => {
    const d = path.delimiter;
    expect(mergePathLists(`/a${d}/b`, `/b${d}/c${d}${d}/a`, undefined)).toBe(`/a${d}/b${d}/c`);
  });
});
