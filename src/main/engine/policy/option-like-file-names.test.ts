import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { optionLikeFileName } from "./option-like-file-names.ts";

const command = (name: string, ...args: string[]): SimpleCommand => ({
  name,
  args: args.map((text) => ({ text, literal: !/[*?[]/.test(text) })),
  source: [name, ...args].join(" "),
  via: [],
});

describe("a glob that hands find a name starting its expression", () => {
  let dir = "";
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // `find * -name x` with a file named `!` is `find ! -name x`: it searches `.`, dot files and
  // folders included, which no glob of the command named.
  it.each(["!", "("])("a file named %s needs a person for find, not for ls", async (name) => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-find-names-"));
    await writeFile(path.join(dir, name), "");
    await writeFile(path.join(dir, ".hidden"), "");
    if (name === "!") {
      // Positive control: find really searches `.` and lists the dot file.
      const plain = spawnSync("/bin/bash", ["-c", "find * -name x"], { cwd: dir, encoding: "utf8" });
      expect(plain.stdout).toContain("./.hidden");
    }
    await writeFile(path.join(dir, "a.txt"), "");
    expect(optionLikeFileName([command("find", "*", "-name", "x")], dir)).toMatch(
      new RegExp(`matches the file "\\${name}", which "find" would read as an option`),
    );
    expect(optionLikeFileName([command("ls", "*")], dir)).toBeUndefined();
    expect(optionLikeFileName([command("find", "*.txt", "-name", "x")], dir)).toBeUndefined();
  });
});
