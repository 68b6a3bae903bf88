import { execFileSync } from "node:child_process";
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsCapability } from "./fs-capability.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { PathScope } from "./path-scope.ts";
import { listVerifiedDir, readVerifiedFile, useProcFd, writeVerifiedFile } from "./verified-file.ts";

let base: string;
let root: string;
let outside: string;
let fs: FsCapability;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-verified-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "sub", "a.txt"), "alpha");
  await writeFile(path.join(outside, "secret.txt"), "secret");
  const scope = PathScope.compile(["{workspace}/**"], {
    workspace: [root],
    "ad-hoc": [],
    "user-data": [],
    session: [],
  });
  fs = new FsCapability({ root, read: scope, write: scope, hidden: HiddenPathSet.none() });
});

afterEach(async () => {
  useProcFd(undefined);
  await rm(base, { recursive: true, force: true });
});

const tooLarge = (size: number) => `too large: ${size}`;

describe.each([
  ["the /proc check", true],
  ["the portable inode check", false],
] as const)("verified files with %s", (_name, proc) => {
  beforeEach(() => {
    useProcFd(proc && process.platform === "linux");
  });

  it("reads a file, and refuses a folder, a missing file and one over the size limit", async () => {
    expect((await readVerifiedFile(await fs.resolve("sub/a.txt", "read"), 100, tooLarge)).toString()).toBe(
      "alpha",
    );
    await expect(readVerifiedFile(await fs.resolve("sub", "read"), 100, tooLarge)).rejects.toThrow(
      /sub is a folder, not a file/,
    );
    await expect(readVerifiedFile(await fs.resolve("nope.txt", "read"), 100, tooLarge)).rejects.toThrow(
      /File not found: nope\.txt/,
    );
    await expect(readVerifiedFile(await fs.resolve("sub/a.txt", "read"), 3, tooLarge)).rejects.toThrow(
      "too large: 5",
    );
  });

  it.skipIf(process.platform === "win32")("refuses a FIFO without hanging on it", async () => {
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    await expect(readVerifiedFile(await fs.resolve("pipe", "read"), 100, tooLarge)).rejects.toThrow(
      /pipe is not a regular file/,
    );
  });

  it("lists a folder, and refuses a file and a missing folder", async () => {
    const entries = await listVerifiedDir(await fs.resolve("sub", "read"));
    expect(entries.map((e) => e.name)).toEqual(["a.txt"]);
    await expect(listVerifiedDir(await fs.resolve("sub/a.txt", "read"))).rejects.toThrow(/is a file/);
    await expect(listVerifiedDir(await fs.resolve("none", "read"))).rejects.toThrow(/Folder not found: none/);
  });

  it("creates missing folders, replaces a file keeping its mode, and leaves no temporary file", async () => {
    await writeVerifiedFile(await fs.resolve("new/deeper/b.txt", "write"), Buffer.from("beta"));
    expect(await readFile(path.join(root, "new", "deeper", "b.txt"), "utf8")).toBe("beta");
    await chmod(path.join(root, "sub", "a.txt"), 0o600);
    await writeVerifiedFile(await fs.resolve("sub/a.txt", "write"), Buffer.from("changed"));
    expect(await readFile(path.join(root, "sub", "a.txt"), "utf8")).toBe("changed");
    if (process.platform !== "win32")
      expect((await stat(path.join(root, "sub", "a.txt"))).mode & 0o777).toBe(0o600);
    expect(await readdir(path.join(root, "sub"))).toEqual(["a.txt"]);
    await expect(writeVerifiedFile(await fs.resolve("sub", "write"), Buffer.from("x"))).rejects.toThrow(
      /sub is a folder/,
    );
    await expect(
      writeVerifiedFile(await fs.resolve("sub/a.txt/inner.txt", "write"), Buffer.from("x")),
    ).rejects.toThrow(/a part of its folder path is an existing file, not a folder/);
  });

  it("refuses a target that became a symlink after it was authorized, and writes nothing outside", async () => {
    const target = await fs.resolve("sub/a.txt", "write");
    const read = await fs.resolve("sub/a.txt", "read");
    await rm(path.join(root, "sub", "a.txt"));
    await symlink(path.join(outside, "secret.txt"), path.join(root, "sub", "a.txt"));
    await expect(readVerifiedFile(read, 100, tooLarge)).rejects.toThrow(/changed while it was being read/);
    await expect(writeVerifiedFile(target, Buffer.from("pwned"))).rejects.toThrow(
      /changed while it was being written/,
    );
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret");
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it("refuses a missing folder that appears as a symlink while it is being created", async () => {
    const target = await fs.resolve("late/c.txt", "write");
    await symlink(outside, path.join(root, "late"));
    await expect(writeVerifiedFile(target, Buffer.from("pwned"))).rejects.toThrow(
      /changed while it was being written/,
    );
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });
});
