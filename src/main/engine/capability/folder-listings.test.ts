import { lstatSync, type BigIntStats } from "node:fs";
import { mkdir, mkdtemp, realpath, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderListings } from "./folder-listings.ts";

let dir: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-listings-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const names = (listings: FolderListings, folder = dir): string[] =>
  listings
    .list(folder)
    .map((e) => `${e.name}${e.isDirectory() ? "/" : e.isSymbolicLink() ? "@" : ""}`)
    .sort();

/** Listings that take every folder as settled: as if a minute had passed since the test made it. */
const settled = (maxEntries = 1_000) =>
  new FolderListings({ maxEntries, settleMs: 3_000, keepFrom: 1, now: () => Date.now() + 60_000 });

describe("FolderListings", () => {
  it("keeps a settled folder's listing and gives it again while the folder's times are unchanged", async () => {
    await writeFile(path.join(dir, "a.txt"), "");
    // Times frozen as they were at the first listing: a name added since goes unseen, which shows
    // the listing was kept rather than read again (the real folder's times do change; see below).
    const frozen = lstatSync(dir, { bigint: true });
    const listings = new FolderListings({
      maxEntries: 1_000,
      settleMs: 3_000,
      keepFrom: 1,
      now: () => Date.now() + 60_000,
      statFolder: () => frozen,
    });
    expect(names(listings)).toEqual(["a.txt"]);
    await writeFile(path.join(dir, "b.txt"), "");
    expect(names(listings)).toEqual(["a.txt"]);
    expect(listings.size).toBe(1);
  });

  it.each([
    ["a file added", async () => writeFile(path.join(dir, "new.txt"), ""), ["a.txt", "new.txt", "sub/"]],
    ["a file removed", async () => unlink(path.join(dir, "a.txt")), ["sub/"]],
    [
      "a file renamed",
      async () => rename(path.join(dir, "a.txt"), path.join(dir, "b.txt")),
      ["b.txt", "sub/"],
    ],
    [
      "a file replaced by a folder of the same name",
      async () => {
        await unlink(path.join(dir, "a.txt"));
        await mkdir(path.join(dir, "a.txt"));
      },
      ["a.txt/", "sub/"],
    ],
    [
      "a folder replaced by a symlink of the same name",
      async () => {
        await rm(path.join(dir, "sub"), { recursive: true });
        await symlink("a.txt", path.join(dir, "sub"));
      },
      ["a.txt", "sub@"],
    ],
  ])("sees %s at once, in the same millisecond as the listing it kept", async (_what, change, after) => {
    await writeFile(path.join(dir, "a.txt"), "");
    await mkdir(path.join(dir, "sub"));
    const listings = settled();
    expect(names(listings)).toEqual(["a.txt", "sub/"]);
    expect(listings.size).toBe(1);
    await change();
    expect(names(listings)).toEqual(after);
  });

  it("reads a folder again when only its change time moved (a modification time set back by touch -d)", async () => {
    const real = lstatSync(dir, { bigint: true });
    let ctimeNs = real.ctimeNs;
    const listings = new FolderListings({
      maxEntries: 1_000,
      settleMs: 3_000,
      keepFrom: 1,
      now: () => Date.now() + 60_000,
      statFolder: () => ({ ...real, ctimeNs, isDirectory: () => true }) as BigIntStats,
    });
    expect(names(listings)).toEqual([]);
    await writeFile(path.join(dir, "late.txt"), "");
    ctimeNs += 1n;
    expect(names(listings)).toEqual(["late.txt"]);
  });

  it("does not keep a folder changed within the last few seconds: its next change could keep the same time", async () => {
    const listings = new FolderListings({ maxEntries: 1_000, settleMs: 3_000, keepFrom: 1 });
    await writeFile(path.join(dir, "fresh.txt"), "");
    expect(names(listings)).toEqual(["fresh.txt"]);
    expect(listings.size).toBe(0);
  });

  it("keeps at most its budget of names, dropping the least recently used folder first", async () => {
    for (const sub of ["one", "two", "three"]) {
      await mkdir(path.join(dir, sub));
      for (let i = 0; i < 4; i++) await writeFile(path.join(dir, sub, `f${i}`), "");
    }
    const listings = settled(8);
    names(listings, path.join(dir, "one"));
    names(listings, path.join(dir, "two"));
    names(listings, path.join(dir, "one")); // "one" is now the most recently used
    names(listings, path.join(dir, "three")); // 12 names > 8: "two" goes
    expect(listings.size).toBe(2);
    // A folder bigger than the whole budget is listed, never kept.
    const big = path.join(dir, "big");
    await mkdir(big);
    for (let i = 0; i < 9; i++) await writeFile(path.join(big, `f${i}`), "");
    expect(names(listings, big)).toHaveLength(9);
    expect(listings.size).toBe(2);
  });

  it("by default reads a folder met for the first time without a stat, and keeps it from its second listing", async () => {
    await writeFile(path.join(dir, "a.txt"), "");
    const frozen = lstatSync(dir, { bigint: true });
    let stats = 0;
    const listings = new FolderListings({
      maxEntries: 1_000,
      settleMs: 3_000,
      now: () => Date.now() + 60_000,
      statFolder: () => {
        stats += 1;
        return frozen;
      },
    });
    // A one-shot walk: one readdir per folder, no stat, nothing kept.
    expect(names(listings)).toEqual(["a.txt"]);
    expect([stats, listings.size]).toEqual([0, 0]);
    // Listed again (an agent's next glob, the daemon's next command): stat, read and keep.
    await writeFile(path.join(dir, "b.txt"), "");
    expect(names(listings)).toEqual(["a.txt", "b.txt"]);
    expect([stats, listings.size]).toEqual([1, 1]);
    // From then on, the kept listing while the folder's times are those it had (frozen here).
    await writeFile(path.join(dir, "c.txt"), "");
    expect(names(listings)).toEqual(["a.txt", "b.txt"]);
    expect(stats).toBe(2);
    // A walk after clear() is a first walk again.
    listings.clear();
    expect(names(listings)).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(stats).toBe(2);
  });

  it("throws as readdirSync does, and forgets a folder that is gone", async () => {
    const sub = path.join(dir, "sub");
    await mkdir(sub);
    await writeFile(path.join(dir, "file.txt"), "");
    const listings = settled();
    names(listings, sub);
    expect(listings.size).toBe(1);
    await rm(sub, { recursive: true });
    expect(() => listings.list(sub)).toThrow(expect.objectContaining({ code: "ENOENT" }));
    expect(listings.size).toBe(0);
    expect(() => listings.list(path.join(dir, "file.txt"))).toThrow(
      expect.objectContaining({ code: "ENOTDIR" }),
    );
  });
});
