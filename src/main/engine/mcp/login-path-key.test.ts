import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loginPathKey } from "./login-path-key.ts";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-login-key-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const envOf = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: home,
  PATH: "/usr/bin:/bin",
  ...more,
});

async function put(relative: string, text = "export PATH=/x/bin:$PATH\n"): Promise<void> {
  const file = path.join(home, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

describe("the key of the login shell's answer", () => {
  it.each([
    ["/bin/bash", ".bash_profile"],
    ["/bin/bash", ".bash_login"],
    ["/bin/bash", ".profile"],
    ["/bin/bash", ".bashrc"],
    ["/usr/bin/zsh", ".zshenv"],
    ["/usr/bin/zsh", ".zprofile"],
    ["/usr/bin/zsh", ".zshrc"],
    ["/usr/bin/zsh", ".zlogin"],
    ["/usr/bin/fish", ".config/fish/config.fish"],
    ["/bin/sh", ".profile"],
  ])("%s: creating, then editing ~/%s changes it", async (shell, file) => {
    const before = loginPathKey(shell, envOf());
    await put(file);
    const created = loginPathKey(shell, envOf());
    expect(created).not.toBe(before);
    await put(file, "export PATH=/y/bin:/x/bin:$PATH\n");
    expect(loginPathKey(shell, envOf())).not.toBe(created);
  });

  it.each([
    ["/bin/bash", ".zshrc"],
    ["/bin/bash", "notes.txt"],
    ["/usr/bin/zsh", ".bashrc"],
    ["/usr/bin/fish", ".bashrc"],
    ["/bin/sh", ".bashrc"],
  ])("%s: a file it does not read (~/%s) leaves it as it is", async (shell, file) => {
    const before = loginPathKey(shell, envOf());
    await put(file);
    expect(loginPathKey(shell, envOf())).toBe(before);
  });

  it("zsh with ZDOTDIR: its files there count, those in HOME do not", async () => {
    const env = envOf({ ZDOTDIR: path.join(home, "zdot") });
    const before = loginPathKey("/usr/bin/zsh", env);
    await put(".zshrc");
    expect(loginPathKey("/usr/bin/zsh", env)).toBe(before);
    await put("zdot/.zshrc");
    expect(loginPathKey("/usr/bin/zsh", env)).not.toBe(before);
  });

  it.each([
    ["SHELL", { shell: "/usr/bin/zsh" }],
    ["HOME", { env: { HOME: "/elsewhere" } }],
    ["ZDOTDIR", { env: { ZDOTDIR: "/z" } }],
    ["the PATH the shell starts with", { env: { PATH: "/venv/bin:/usr/bin:/bin" } }],
  ])("another %s is another key", (_label, change: { shell?: string; env?: NodeJS.ProcessEnv }) => {
    const before = loginPathKey("/bin/bash", envOf());
    expect(loginPathKey(change.shell ?? "/bin/bash", envOf(change.env))).not.toBe(before);
  });

  it("variables that decide nothing leave it as it is", () => {
    expect(loginPathKey("/bin/bash", envOf({ TERM: "dumb", LANG: "C" }))).toBe(
      loginPathKey("/bin/bash", envOf()),
    );
  });
});
