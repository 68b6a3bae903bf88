import { readFileSync, statSync } from "node:fs";
import { link, mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grepFiles } from "../builtin/grep-files.ts";
import { SyncFileReader } from "./sync-file-reader.ts";

// grep reads the files its walk found a moment after the walk checked them (on an offload
// worker, while the walk goes on). Whatever swaps a path in between — a process of the person, a
// stdio MCP server writing the workspace — must not turn that read into one of a hidden file:
// the walk left `~/.ssh` out, and the read must not find it by another way.

const SECRET = "SECRET-KEY-91c3e7a0";
let home: string;

beforeEach(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-sync-reader-")));
  await mkdir(path.join(home, ".ssh"));
  await writeFile(path.join(home, ".ssh/id_ed25519"), `${SECRET}\n`);
  await mkdir(path.join(home, "project/d"), { recursive: true });
  await writeFile(path.join(home, "project/d/id_ed25519"), "decoy\n");
  await writeFile(path.join(home, "project/f.txt"), "plain text\n");
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

interface Row {
  name: string;
  /** The canonical path the walk found (relative to the fake home folder). */
  walked: string;
  /** What changes between the walk and the read. */
  swap(): Promise<void>;
}

const ROWS: Row[] = [
  {
    name: "a folder on the way swapped for a symlink into ~/.ssh",
    walked: "project/d/id_ed25519",
    swap: async () => {
      await rename(path.join(home, "project/d"), path.join(home, "project/d.real"));
      await symlink(path.join(home, ".ssh"), path.join(home, "project/d"));
    },
  },
  {
    name: "the file itself swapped for a symlink to the key",
    walked: "project/f.txt",
    swap: async () => {
      await rm(path.join(home, "project/f.txt"));
      await symlink(path.join(home, ".ssh/id_ed25519"), path.join(home, "project/f.txt"));
    },
  },
  {
    name: "a folder on the way swapped for a relative symlink to the home folder's .ssh",
    walked: "project/d/id_ed25519",
    swap: async () => {
      await rm(path.join(home, "project/d"), { recursive: true });
      await symlink("../.ssh", path.join(home, "project/d"));
    },
  },
];

describe("a file swapped between the walk and grep's read", () => {
  it.each(ROWS)("$name: a plain open reads the key, grep's reader does not", async ({ walked, swap }) => {
    const absolute = path.join(home, walked);
    await swap();
    // Positive control: opened by name, as before, the walked path now yields the key.
    expect(readFileSync(absolute, "utf8")).toContain(SECRET);

    expect(new SyncFileReader(() => undefined).read(absolute)).toBeUndefined();
    for (const mode of ["content", "count", "files_with_matches"] as const) {
      const found = grepFiles({
        pattern: "SECRET",
        ignoreCase: false,
        mode,
        files: [{ absolute, path: walked }],
      });
      expect(JSON.stringify(found)).not.toContain(walked);
      expect(JSON.stringify(found)).not.toContain(SECRET);
    }
  });

  it("the file swapped for a hard link to the key: a plain open reads the key, grep's reader hands it back unread", async () => {
    const absolute = path.join(home, "project/f.txt");
    await rm(absolute);
    await link(path.join(home, ".ssh/id_ed25519"), absolute);
    expect(readFileSync(absolute, "utf8")).toContain(SECRET);

    const handed: string[] = [];
    expect(new SyncFileReader((p) => handed.push(p)).read(absolute)).toBeUndefined();
    expect(handed).toEqual([absolute]);
    const key = statSync(absolute);
    const found = grepFiles({
      pattern: "SECRET",
      ignoreCase: false,
      mode: "content",
      files: [{ absolute, path: "project/f.txt" }],
    });
    expect(JSON.stringify(found)).not.toContain(SECRET);
    expect(found.linked).toEqual([
      { absolute, path: "project/f.txt", cleared: { dev: key.dev, ino: key.ino } },
    ]);
    // Read only once the grep tool cleared that very file (it does not, for a hidden one).
    expect(
      new SyncFileReader(() => undefined).read(absolute, { dev: key.dev, ino: key.ino })?.toString(),
    ).toContain(SECRET);
  });

  it("a file left as the walk found it is read", () => {
    const found = grepFiles({
      pattern: "plain|decoy",
      ignoreCase: false,
      mode: "content",
      files: ["project/f.txt", "project/d/id_ed25519"].map((p) => ({
        absolute: path.join(home, p),
        path: p,
      })),
    });
    expect(found).toEqual({
      mode: "content",
      linked: [],
      matches: [
        { path: "project/f.txt", lines: [{ line: 1, text: "plain text" }] },
        { path: "project/d/id_ed25519", lines: [{ line: 1, text: "decoy" }] },
      ],
    });
  });
});
