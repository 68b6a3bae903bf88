import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookUpProgram } from "./program-lookup.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-lookup-"));
  await mkdir(path.join(dir, "bin"));
  await mkdir(path.join(dir, "other"));
  await mkdir(path.join(dir, "bin", "folder"));
  await writeFile(path.join(dir, "bin", "tool"), "#!/bin/sh\n");
  await chmod(path.join(dir, "bin", "tool"), 0o755);
  await writeFile(path.join(dir, "other", "plain"), "not a program\n");
  await chmod(path.join(dir, "other", "plain"), 0o644);
  await writeFile(path.join(dir, "bin", "plain"), "#!/bin/sh\n");
  await chmod(path.join(dir, "bin", "plain"), 0o755);
  // A PATH folder that cannot be reached: stat through it fails with ELOOP, not ENOENT.
  await symlink(path.join(dir, "loop"), path.join(dir, "loop"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("lookUpProgram", () => {
  it.each<[string, string, string, { file: string } | { code: string }]>([
    ["a name on PATH", "tool", "bin", { file: "bin/tool" }],
    ["the first folder that has it runnable", "plain", "other:bin", { file: "bin/plain" }],
    ["a name nowhere on PATH", "missing", "bin:other", { code: "ENOENT" }],
    ["a name found only as a file that may not run", "plain", "other", { code: "EACCES" }],
    ["a folder of that name", "folder", "bin", { code: "ENOENT" }],
    ["a path with a slash, from the working folder", "./bin/tool", "", { file: "bin/tool" }],
    ["a path with a slash that is not there", "./bin/nothing", "bin", { code: "ENOENT" }],
    // Passed over, as execvp passes it over (this threw, failing every run and the sandbox check).
    ["a name after a PATH folder that cannot be reached", "tool", "loop:bin", { file: "bin/tool" }],
    ["a name only behind a PATH folder that cannot be reached", "tool", "loop", { code: "ENOENT" }],
  ])("%s", (_label, command, folders, expected) => {
    const PATH =
      folders === ""
        ? ""
        : folders
            .split(":")
            .map((f) => path.join(dir, f))
            .join(":");
    const found = lookUpProgram(command, PATH, dir);
    expect(found).toEqual("file" in expected ? { file: path.join(dir, expected.file) } : expected);
  });

  it("finds a program through a relative PATH entry, from the working folder", () => {
    expect(lookUpProgram("tool", "bin", dir)).toEqual({ file: path.join(dir, "bin/tool") });
  });
});
