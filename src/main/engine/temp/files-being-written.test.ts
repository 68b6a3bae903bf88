import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { noteFileBeingWritten, removeFilesBeingWritten } from "./files-being-written.ts";

// What a process ending in a hurry removes: the temporary files of the writes it is in, and
// nothing else (not a file already renamed into place, not one whose write has ended).

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lathe-being-written-"));
});
afterEach(async () => {
  removeFilesBeingWritten();
  await rm(dir, { recursive: true, force: true });
});

describe("temporary files being written", () => {
  it("removes those still being written, keeps what was renamed into place and what is done", async () => {
    const halfway = path.join(dir, ".a.txt.lathe-1.tmp");
    await writeFile(halfway, "half");
    noteFileBeingWritten(halfway);

    const renamed = path.join(dir, ".b.txt.lathe-2.tmp");
    await writeFile(renamed, "whole");
    noteFileBeingWritten(renamed);
    await rename(renamed, path.join(dir, "b.txt"));

    const done = path.join(dir, "c.txt");
    await writeFile(done, "kept");
    noteFileBeingWritten(done)();

    noteFileBeingWritten(path.join(dir, ".not-made-yet.tmp"));

    expect(removeFilesBeingWritten()).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(["b.txt", "c.txt"]);
  });

  it("says which it could not remove, and why", async () => {
    const folder = path.join(dir, "a-folder.tmp");
    await mkdir(folder);
    noteFileBeingWritten(folder);
    const problems = removeFilesBeingWritten();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/a-folder\.tmp: E(ISDIR|PERM)/);
  });
});
