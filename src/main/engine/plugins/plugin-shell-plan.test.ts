import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlannedAccess } from "../tools/call-plan.ts";
import { pluginCommand } from "./bridge-shell.ts";
import { planPluginCommand } from "./plugin-shell-plan.ts";

let cwd: string;

beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), "lathe-shell-plan-"));
  await writeFile(path.join(cwd, "notes"), "n");
});

afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function summary(accesses: PlannedAccess[]): string[] {
  return accesses.map((a) =>
    a.capability === "shell.run"
      ? `run ${a.command.name}`
      : a.capability === "net.fetch"
        ? `fetch ${a.url}`
        : `${a.capability === "fs.read" ? "read" : "write"} ${a.path}`,
  );
}

describe("planPluginCommand", () => {
  it.each([
    ["plain words that name no file", "echo", ["hello", "-n"], ["run echo"]],
    ["a word that names an existing file", "cat", ["notes"], ["run cat", "read notes"]],
    [
      "anything with a slash, absolute or ..",
      "ls",
      ["a/b", "/etc", ".."],
      ["run ls", "read a/b", "read /etc", "read .."],
    ],
    ["the value of --opt=value", "tool", ["--out=x/y", "-v"], ["run tool", "read x/y"]],
    [
      "a URL is not a path, a file: URL is",
      "curl",
      ["https://example.com/a", "file:///etc/passwd"],
      ["run curl", "read /etc/passwd"],
    ],
    [
      "a wrapper's command",
      "env",
      ["FOO=1", "touch", "x/y"],
      ["run env", "run touch", "write x/y", "read x/y"],
    ],
    ["a writer's target", "cp", ["notes", "copy"], ["run cp", "write copy", "read notes"]],
    [
      "git config --global: the home folder's git config, not a folder called ~ here",
      "git",
      ["config", "--global", "user.name", "x"],
      ["run git", `write ${os.homedir()}/.gitconfig`, `write ${os.homedir()}/.config/git/config`],
    ],
    [
      "git config --file ~/…: judged as the home folder (refused, never let out)",
      "git",
      ["config", "--file", "~/.gitconfig", "user.name", "x"],
      ["run git", `write ${os.homedir()}/.gitconfig`, "read ~/.gitconfig"],
    ],
    [
      "a redirection to ~/… in sh -c code",
      "sh",
      ["-c", "echo x > '~/.profile'"],
      ["run sh", "run echo", `write ${os.homedir()}/.profile`, "read echo x > '~/.profile'"],
    ],
  ])("%s", async (_name, cmd, argv, expected) => {
    const plan = await planPluginCommand(pluginCommand(cmd, argv), {}, cwd);
    expect(summary(plan.accesses)).toEqual(expected);
  });

  it("leaves out words the tool.yaml spells out exactly (the person approved those)", async () => {
    const requires = { shell: [{ cmd: "git", args: ["log", "src/main", { prefix: "--max-count=" }] }] };
    const plan = await planPluginCommand(
      pluginCommand("git", ["log", "src/main", "--max-count=3"]),
      requires,
      cwd,
    );
    expect(summary(plan.accesses)).toEqual(["run git"]);
  });

  it("marks options that make a known command run programs as needing a person", async () => {
    const plan = await planPluginCommand(pluginCommand("git", ["-c", "core.pager=sh", "log"]), {}, cwd);
    expect(plan.unclear.join(" ")).toMatch(/can make git run another program/);
  });
});
