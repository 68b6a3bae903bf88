import { link, mkdir, mkdtemp, realpath, rename, rm, writeFile } from "node:fs/promises";
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HiddenInodeIndex } from "./hidden-inode-index.ts";

let base: string;
let hidden: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-inodes-")));
  hidden = path.join(base, "ssh");
  outside = path.join(base, "work");
  await mkdir(path.join(hidden, "nested"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(hidden, "id_ed25519"), "KEY\n");
  await writeFile(path.join(hidden, "nested/token"), "TOKEN\n");
  await writeFile(path.join(outside, "plain.txt"), "SAFE\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const idOf = (p: string) => {
  const s = statSync(p);
  return { dev: s.dev, ino: s.ino };
};

describe("HiddenInodeIndex", () => {
  it("knows the files under the hidden folder by identity, and nothing else", () => {
    const index = new HiddenInodeIndex(hidden);
    index.refresh();
    expect(index.lookup(idOf(path.join(hidden, "id_ed25519")))).toEqual({
      found: [path.join(hidden, "id_ed25519")],
    });
    expect(index.lookup(idOf(path.join(hidden, "nested/token")))).toEqual({
      found: [path.join(hidden, "nested/token")],
    });
    expect(index.lookup(idOf(path.join(outside, "plain.txt")))).toBeUndefined();
  });

  it("a hard link made elsewhere to a file already indexed is found without listing anything again", async () => {
    const index = new HiddenInodeIndex(hidden);
    index.refresh();
    await link(path.join(hidden, "id_ed25519"), path.join(outside, "k"));
    index.refresh();
    expect(index.lookup(idOf(path.join(outside, "k")))).toEqual({ found: [path.join(hidden, "id_ed25519")] });
  });

  it.each<{ name: string; change: () => Promise<string> }>([
    {
      name: "a file added to the hidden folder",
      change: async () => {
        await writeFile(path.join(hidden, "id_rsa"), "NEW KEY\n");
        return path.join(hidden, "id_rsa");
      },
    },
    {
      name: "a file added to a folder below it",
      change: async () => {
        await writeFile(path.join(hidden, "nested/second"), "NEW\n");
        return path.join(hidden, "nested/second");
      },
    },
    {
      name: "a file renamed into it from outside",
      change: async () => {
        await writeFile(path.join(outside, "moved"), "MOVED\n");
        await rename(path.join(outside, "moved"), path.join(hidden, "nested/moved"));
        return path.join(hidden, "nested/moved");
      },
    },
    {
      name: "a folder made in it",
      change: async () => {
        await mkdir(path.join(hidden, "new/deeper"), { recursive: true });
        await writeFile(path.join(hidden, "new/deeper/key"), "DEEP\n");
        return path.join(hidden, "new/deeper/key");
      },
    },
  ])(
    "$name right after it was listed (same timestamp tick) is found on the next refresh",
    async ({ change }) => {
      const index = new HiddenInodeIndex(hidden);
      index.refresh();
      const added = await change();
      // The positive control: the file is not what was indexed before the change.
      expect(index.lookup(idOf(added))).toBeUndefined();
      index.refresh();
      expect(index.lookup(idOf(added))).toEqual({ found: [added] });
    },
  );

  it("a file removed from the hidden folder is forgotten", async () => {
    const index = new HiddenInodeIndex(hidden);
    index.refresh();
    const id = idOf(path.join(hidden, "nested/token"));
    await link(path.join(hidden, "nested/token"), path.join(outside, "kept"));
    await rm(path.join(hidden, "nested"), { recursive: true });
    index.refresh();
    expect(index.lookup(id)).toBeUndefined();
  });

  it("a hidden path that is a file, or missing, is judged by itself", async () => {
    const file = new HiddenInodeIndex(path.join(hidden, "id_ed25519"));
    file.refresh();
    expect(file.lookup(idOf(path.join(hidden, "id_ed25519")))).toEqual({
      found: [path.join(hidden, "id_ed25519")],
    });
    const missing = new HiddenInodeIndex(path.join(base, "none"));
    missing.refresh();
    expect(missing.lookup(idOf(path.join(outside, "plain.txt")))).toBeUndefined();
  });

  it("fails closed past its size: every file asked about is too large to check, and the walk stops", async () => {
    for (let i = 0; i < 30; i++) await writeFile(path.join(hidden, `f${i}`), "x");
    const index = new HiddenInodeIndex(hidden, 20);
    index.refresh();
    expect(index.lookup(idOf(path.join(hidden, "id_ed25519")))).toEqual({ tooLarge: true });
    expect(index.lookup(idOf(path.join(outside, "plain.txt")))).toEqual({ tooLarge: true });
    // The same folder under the cap: answers again.
    const enough = new HiddenInodeIndex(hidden, 100);
    enough.refresh();
    expect(enough.lookup(idOf(path.join(outside, "plain.txt")))).toBeUndefined();
  });

  it("leaves out the folders it is told to skip: their files neither answer nor count toward its bound", async () => {
    const bulk = path.join(hidden, "bulk");
    await mkdir(bulk);
    for (let i = 0; i < 30; i++) await writeFile(path.join(bulk, `f${i}`), "x");
    const index = new HiddenInodeIndex(hidden, 20, new Set([bulk]));
    index.refresh();
    expect(index.lookup(idOf(path.join(bulk, "f0")))).toBeUndefined();
    expect(index.lookup(idOf(path.join(hidden, "id_ed25519")))).toEqual({
      found: [path.join(hidden, "id_ed25519")],
    });
    // A skipped root indexes nothing at all.
    const skipped = new HiddenInodeIndex(hidden, 20, new Set([hidden]));
    skipped.refresh();
    expect(skipped.lookup(idOf(path.join(hidden, "id_ed25519")))).toBeUndefined();
  });
});
