import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalize, isWithin, symlinksOnPath, symlinksOnPathSync } from "./canonical-path.ts";

let base: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-canon-")));
  await mkdir(path.join(base, "root/sub"), { recursive: true });
  await mkdir(path.join(base, "outside"), { recursive: true });
  await writeFile(path.join(base, "root/sub/file.txt"), "x");
  await symlink(path.join(base, "outside"), path.join(base, "root/out-link"));
  await symlink(path.join(base, "outside/not-yet"), path.join(base, "root/dangling"));
  await symlink("../outside/rel-target", path.join(base, "root/dangling-rel"));
  await symlink("loop-b", path.join(base, "root/loop-a"));
  await symlink("loop-a", path.join(base, "root/loop-b"));
  await symlink("sub/../../outside", path.join(base, "root/dotdot-link"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("canonicalize", () => {
  const cases: Array<[string, string, string]> = [
    ["an existing file", "root/sub/file.txt", "root/sub/file.txt"],
    ["a missing file in an existing folder", "root/sub/new.txt", "root/sub/new.txt"],
    ["missing parents", "root/a/b/c.txt", "root/a/b/c.txt"],
    ["a symlinked folder pointing out", "root/out-link/x.txt", "outside/x.txt"],
    ["a dangling symlink pointing out", "root/dangling", "outside/not-yet"],
    ["a relative dangling symlink", "root/dangling-rel", "outside/rel-target"],
    ["a link whose target climbs with ..", "root/dotdot-link/f", "outside/f"],
  ];
  it.each(cases)("resolves %s to where the kernel would write", async (_name, input, expected) => {
    expect(await canonicalize(path.join(base, input))).toBe(path.join(base, expected));
  });

  it("refuses symlink loops with ELOOP instead of spinning", async () => {
    await expect(canonicalize(path.join(base, "root/loop-a/x"))).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("sees through /proc/self/root", async () => {
    expect(await canonicalize("/proc/self/root/etc/hostname")).toBe("/etc/hostname");
  });

  it("refuses relative input", async () => {
    await expect(canonicalize("relative/path")).rejects.toThrow(/absolute/);
  });
});

describe("symlinksOnPath", () => {
  const cases: Array<[string, string, string[]]> = [
    ["a path without links", "root/sub/file.txt", []],
    ["a link to a folder on the way", "root/out-link/x.txt", ["root/out-link"]],
    ["a dangling link at the end", "root/dangling-rel", ["root/dangling-rel"]],
    ["a link whose target climbs with ..", "root/dotdot-link/f", ["root/dotdot-link"]],
  ];
  it.each(cases)("names each link of %s where it lies", async (_name, input, expected) => {
    const want = expected.map((p) => path.join(base, p));
    expect(await symlinksOnPath(path.join(base, input))).toEqual(want);
    expect(symlinksOnPathSync(path.join(base, input))).toEqual(want);
  });

  it("refuses a loop as canonicalize does", async () => {
    await expect(symlinksOnPath(path.join(base, "root/loop-a/x"))).rejects.toMatchObject({ code: "ELOOP" });
    expect(() => symlinksOnPathSync(path.join(base, "root/loop-a/x"))).toThrow(/Too many levels/);
  });
});

describe("isWithin", () => {
  it.each([
    ["/a/root", "/a/root", true],
    ["/a/root", "/a/root/x", true],
    ["/a/root", "/a/root-evil/x", false],
    ["/a/root", "/a/roo", false],
    ["/", "/etc", true],
  ] as const)("%s contains %s: %s", (parent, child, expected) => {
    expect(isWithin(parent, child)).toBe(expected);
  });
});
