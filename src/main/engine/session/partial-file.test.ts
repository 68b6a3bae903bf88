import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { partialPathOf, removeAbandonedPartials, writeComplete } from "./partial-file.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-partial-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("partial files", () => {
  it("appear under their name only when complete", async () => {
    const file = path.join(dir, "out.txt");
    await writeComplete(file, "whole");
    expect(await readdir(dir)).toEqual(["out.txt"]);
    expect(partialPathOf(file)).toBe(`${file}.${process.pid}.partial`);
  });

  it("are cleared once the process that wrote them is gone, and only then", async () => {
    const dead = deadPid();
    await writeFile(path.join(dir, `bash-1.txt.${dead}.partial`), "half");
    await writeFile(path.join(dir, `bash-2.txt.${process.pid}.partial`), "being written");
    await writeFile(path.join(dir, "bash-3.txt"), "complete");
    expect(await removeAbandonedPartials(dir)).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(["bash-2.txt." + process.pid + ".partial", "bash-3.txt"]);
    expect(await removeAbandonedPartials(path.join(dir, "missing"))).toBe(0);
  });
});
