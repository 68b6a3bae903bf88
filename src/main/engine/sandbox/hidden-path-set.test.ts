import { link, mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HiddenPathSet } from "./hidden-path-set.ts";

let base: string;
let latheHome: string;
let set: HiddenPathSet;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-hidden-set-")));
  latheHome = path.join(base, "lathe");
  await mkdir(path.join(base, "dotfiles/ssh"), { recursive: true });
  await mkdir(path.join(latheHome, "models"), { recursive: true });
  await mkdir(path.join(latheHome, "sessions/s1/sidecars"), { recursive: true });
  await writeFile(path.join(base, "netrc"), "machine x password p\n");
  // A denyRead entry that is a symlink to where the keys really are.
  await symlink(path.join(base, "dotfiles/ssh"), path.join(base, "ssh"));
  // One that dangles: a write through it would create the folder it points to.
  await symlink(path.join(base, "nowhere/gnupg"), path.join(base, "gnupg"));
  set = HiddenPathSet.of({
    denyRead: ["ssh", "gnupg", "netrc", "aws"].map((p) => path.join(base, p)),
    latheHome,
    readable: [path.join(latheHome, "sessions/s1/sidecars")],
    settingsFile: "settings.json",
  });
});

afterAll(() => rm(base, { recursive: true, force: true }));

describe("HiddenPathSet", () => {
  it.each([
    ["a file in a folder entry, at its real place", "dotfiles/ssh/id_ed25519", "ssh"],
    ["the same file through the entry as written", "ssh/id_ed25519", "ssh"],
    ["where a dangling entry points", "nowhere/gnupg/pubring.kbx", "gnupg"],
    ["a file entry", "netrc", "netrc"],
    ["a missing entry's would-be file", "aws/credentials", "aws"],
    ["Lathe's database", "lathe/lathe.db", "lathe"],
    ["another session's sidecar", "lathe/sessions/s2/sidecars/x.txt", "lathe"],
  ])("hides %s", (_what, p, entry) => {
    expect(set.find(path.join(base, p))).toMatchObject({ entry: path.join(base, entry) });
  });

  it.each([
    ["a name that only starts like an entry", "sshrc"],
    ["a sibling of a file entry", "netrc.d/x"],
    ["$LATHE_HOME itself", "lathe"],
    ["a public folder of $LATHE_HOME", "lathe/models/m.gguf"],
    ["the session's own sidecars", "lathe/sessions/s1/sidecars/out.txt"],
  ])("leaves %s alone", (_what, p) => {
    expect(set.find(path.join(base, p))).toBeUndefined();
  });

  it("tells a walk where to look and which hidden folders it must still enter", () => {
    expect(set.hidesBelow(base)).toBe(true);
    expect(set.hidesBelow(path.join(latheHome, "models"))).toBe(false);
    expect(set.hidesBelow(path.join(base, "dotfiles"))).toBe(true);
    expect(set.holdsReadable(path.join(latheHome, "sessions"))).toBe(true);
    expect(set.holdsReadable(path.join(base, "dotfiles"))).toBe(false);
    // The quick test: an entry itself, at its real place or as written; covers: in one too.
    expect(set.isEntry(path.join(base, "dotfiles/ssh"))).toBe(true);
    expect(set.isEntry(path.join(base, "ssh"))).toBe(true);
    expect(set.isEntry(path.join(base, "dotfiles/ssh/id_ed25519"))).toBe(false);
    expect(set.covers(path.join(base, "dotfiles/ssh/id_ed25519"))).toBe(true);
    expect(set.covers(latheHome)).toBe(true);
    expect(set.covers(path.join(base, "dotfiles"))).toBe(false);
  });

  // A lister limited to this many levels shows the shallowest hidden entry's name, nothing in it.
  it.each([
    ["the folder holding the entries", "", 1],
    ["the folder above where an entry leads", "dotfiles", 1],
    ["$LATHE_HOME, which hides what it holds", "lathe", undefined],
    ["a folder holding nothing hidden", "lathe/models", undefined],
    ["a hidden folder itself", "dotfiles/ssh", undefined],
  ])("says how deep a walk of %s may list", (_what, p, levels) => {
    expect(set.shallowestHidden(path.join(base, p))).toBe(levels);
    if (levels !== undefined) {
      expect(set.hidesBelow(path.join(base, p), levels)).toBe(false);
      expect(set.hidesBelow(path.join(base, p), levels + 1)).toBe(true);
    }
  });

  it("hides nothing when made with none()", () => {
    expect(HiddenPathSet.none().find(path.join(base, "ssh/id_ed25519"))).toBeUndefined();
    expect(HiddenPathSet.none().hidesBelow("/")).toBe(false);
  });

  it("judges a hard link by its other names: Lathe's settings count, its sessions' bulk files do not", async () => {
    await writeFile(path.join(latheHome, "settings.json"), "{}\n");
    await writeFile(path.join(latheHome, "sessions/s1/log.txt"), "a session's file\n");
    await writeFile(path.join(base, "dotfiles/ssh/id_ed25519"), "KEY\n");
    await mkdir(path.join(base, "work"), { recursive: true });
    const links: [string, string][] = [
      ["dotfiles/ssh/id_ed25519", "work/key"],
      ["lathe/settings.json", "work/settings"],
      ["lathe/sessions/s1/log.txt", "work/log"],
    ];
    for (const [from, to] of links) await link(path.join(base, from), path.join(base, to));
    const fresh = HiddenPathSet.of({
      denyRead: [path.join(base, "ssh")],
      latheHome,
      readable: [],
      settingsFile: "settings.json",
    });
    const judged = (name: string) => fresh.linkedHidden(statSync(path.join(base, name)))?.entry;
    expect(judged("work/key")).toBe(path.join(base, "ssh"));
    expect(judged("work/settings")).toBe(latheHome);
    // Lathe's checkpoints, sessions and logs grow by thousands of files and are never linked
    // anywhere by Lathe: they are not indexed, so they cannot push the index past its bound.
    expect(judged("work/log")).toBeUndefined();
  });
});

// Each call's decision resolves the entries again: an entry moved away and left as a link to
// where it went is hidden where it is now, without a new set (a session keeps its set).
describe("HiddenPathSet, an entry replaced by a link during its life", () => {
  it("hides the entry's new place after forgetPaths", async () => {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-hidden-moved-")));
    try {
      await mkdir(path.join(root, "home/.ssh"), { recursive: true });
      const hidden = HiddenPathSet.of({
        denyRead: [path.join(root, "home/.ssh")],
        latheHome: path.join(root, "lathe"),
        readable: [],
        settingsFile: "settings.json",
      });
      expect(hidden.find(path.join(root, "home/.ssh/id_ed25519"))).toBeDefined();
      await mkdir(path.join(root, "synced"));
      await rename(path.join(root, "home/.ssh"), path.join(root, "synced/ssh"));
      await symlink(path.join(root, "synced/ssh"), path.join(root, "home/.ssh"));
      hidden.forgetPaths();
      const through = hidden.canonical(path.join(root, "home/.ssh/id_ed25519"));
      expect(through).toBe(path.join(root, "synced/ssh/id_ed25519"));
      expect(hidden.find(through)).toMatchObject({ entry: path.join(root, "home/.ssh") });
      expect(hidden.find(path.join(root, "home/notes.txt"))).toBeUndefined();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
