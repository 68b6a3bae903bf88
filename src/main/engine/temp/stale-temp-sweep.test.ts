import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chown, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processExists } from "../spawner/process-exists.ts";
import { ownIdentity, processStartTime, type ProcessIdentity } from "./process-start.ts";
import { sweepStaleTempFolders } from "./stale-temp-sweep.ts";
import { ownedTempPrefix } from "./temp-folder-name.ts";

// The start-up sweep of temp folders that killed runs left behind: each row makes one entry in a
// temp folder of its own (never the machine's), sweeps, and looks at the filesystem. The owner of
// a folder is read from its name; the rows use real processes (this one, a live child, a child
// killed and reaped) for the owners.

const linux = process.platform === "linux";
if (!linux)
  console.log(`stale-temp-sweep is skipped: owners are told apart by /proc, and this is ${process.platform}`);
const root = process.getuid?.() === 0;
if (linux && !root)
  console.log(
    "stale-temp-sweep: the other-user row is skipped: making a folder another user owns needs root",
  );

/** Make `folder`'s file "f" impossible to remove (for this user); returns the undoing. */
function lock(folder: string): () => void {
  if (root) {
    bash('chattr +i "$1"', path.join(folder, "f"));
    return () => bash('chattr -i "$1"', path.join(folder, "f"));
  }
  bash('chmod 500 "$1"', folder);
  return () => bash('chmod 700 "$1"', folder);
}

/** Why files cannot be locked here (as root: chattr, on a filesystem that has it), or undefined. */
function lockProblem(): string | undefined {
  if (!linux || !root) return undefined;
  const probe = spawnSync(
    "bash",
    [
      "-c",
      'd=$(mktemp -d) && touch "$d/f" && chattr +i "$d/f" && chattr -i "$d/f"; r=$?; rm -rf "$d"; exit $r',
    ],
    { encoding: "utf8" },
  );
  return probe.status === 0 ? undefined : `root cannot make a file immutable here: ${probe.stderr.trim()}`;
}
const cannotLock = lockProblem();
if (cannotLock) console.log(`stale-temp-sweep: the unremovable-folder row is skipped: ${cannotLock}`);

let live: ChildProcess;
let liveOwner: ProcessIdentity;
let deadOwner: ProcessIdentity;

/** A process's identity as its folders record it (start read from /proc while it runs). */
function identityOf(pid: number): ProcessIdentity {
  const start = processStartTime(pid);
  if (start === undefined) throw new Error(`no start time for ${pid}`);
  return { pid, start, namespace: ownIdentity().namespace };
}

beforeAll(async () => {
  if (!linux) return;
  live = spawn("sleep", ["600"], { stdio: "ignore" });
  liveOwner = identityOf(live.pid as number);
  const doomed = spawn("sleep", ["600"], { stdio: "ignore" });
  deadOwner = identityOf(doomed.pid as number);
  const gone = new Promise((resolve) => doomed.once("exit", resolve));
  doomed.kill("SIGKILL");
  await gone;
  // Reaped by this process (its parent): the pid names no process now.
  expect(processExists(deadOwner.pid)).toBe(false);
});
afterAll(() => {
  live?.kill("SIGKILL");
});

let base: string;
let dir: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "sweep-test-"));
  dir = path.join(base, "tmp");
  outside = path.join(base, "outside");
  await mkdir(dir);
  await mkdir(outside);
  await writeFile(path.join(outside, "keep.txt"), "a person's file");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A folder name as Lathe makes it, for `owner`. */
const named = (label: string, owner: ProcessIdentity): string => `${ownedTempPrefix(label, owner)}Ab12Cd`;

/** A folder with an output file in it, as a session's TMPDIR holds. */
async function folderWithOutput(folder: string): Promise<void> {
  await mkdir(folder);
  await writeFile(path.join(folder, "out.txt"), "a command's output");
}

const exists = (p: string): Promise<boolean> =>
  lstat(p).then(
    () => true,
    () => false,
  );

/** Run a plain shell line outside Lathe (a positive control). */
function bash(line: string, ...args: string[]): void {
  const r = spawnSync("bash", ["-c", line, "bash", ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`bash -c ${line} failed: ${r.stderr}`);
}

interface Row {
  what: string;
  /** Make the entry in `dir` (with `outside` for what must never be touched); returns its path. */
  make(): Promise<string>;
  swept: boolean;
  skip?: string;
}

const rows: Row[] = [
  {
    what: "a killed run's folder (its pid names no process)",
    make: async () => {
      const folder = path.join(dir, named("s-1", deadOwner));
      await folderWithOutput(folder);
      return folder;
    },
    swept: true,
  },
  {
    what: "a killed spawner's folder",
    make: async () => {
      const folder = path.join(dir, named("spawner", deadOwner));
      await mkdir(folder);
      return folder;
    },
    swept: true,
  },
  {
    what: "a folder whose pid was reused (a live process has it, started at another time)",
    make: async () => {
      const folder = path.join(dir, named("s-2", { ...liveOwner, start: liveOwner.start - 1 }));
      await folderWithOutput(folder);
      return folder;
    },
    swept: true,
  },
  {
    what: "a live run's folder (another process holds it)",
    make: async () => {
      const folder = path.join(dir, named("s-3", liveOwner));
      await folderWithOutput(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "this very process's folder",
    make: async () => {
      const folder = path.join(dir, named("s-4", ownIdentity()));
      await folderWithOutput(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "an old-style name (no owner recorded)",
    make: async () => {
      const folder = path.join(dir, "lathe-s-5-Ab12Cd");
      await folderWithOutput(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "an old-style spawner folder",
    make: async () => {
      const folder = path.join(dir, "lathe-spawner-Ab12Cd");
      await mkdir(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "a dead owner's name with something after the random part",
    make: async () => {
      const folder = path.join(dir, `${named("s-6", deadOwner)}.bak`);
      await folderWithOutput(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "a dead owner of another pid namespace (a container sharing the temp folder)",
    make: async () => {
      const folder = path.join(dir, named("s-7", { ...deadOwner, namespace: deadOwner.namespace + 1 }));
      await folderWithOutput(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "an owner whose start time was unknown (no /proc when it was made)",
    make: async () => {
      const folder = path.join(dir, named("s-8", { ...deadOwner, start: 0 }));
      await folderWithOutput(folder);
      return folder;
    },
    swept: false,
  },
  {
    what: "a file, not a folder, with a dead owner's name",
    make: async () => {
      const file = path.join(dir, named("s-9", deadOwner));
      await writeFile(file, "not a folder");
      return file;
    },
    swept: false,
  },
  {
    what: "a symlink with a dead owner's name, to a folder elsewhere",
    make: async () => {
      const link = path.join(dir, named("s-10", deadOwner));
      await symlink(outside, link);
      return link;
    },
    swept: false,
  },
  {
    what: "a dead owner's folder that belongs to another user",
    skip: root ? undefined : "needs root to chown",
    make: async () => {
      const folder = path.join(dir, named("s-11", deadOwner));
      await folderWithOutput(folder);
      await chown(folder, 65534, 65534);
      return folder;
    },
    swept: false,
  },
];

describe.skipIf(!linux)("the start-up sweep of stale temp folders", () => {
  for (const row of rows) {
    it.skipIf(row.skip !== undefined)(
      `${row.swept ? "removes" : "leaves"} ${row.what}${row.skip ? ` (skipped: ${row.skip})` : ""}`,
      async () => {
        const entry = await row.make();
        expect(await exists(entry)).toBe(true);
        const result = await sweepStaleTempFolders(dir);
        expect(result.failed).toEqual([]);
        expect(result.removed).toEqual(row.swept ? [entry] : []);
        expect(await exists(entry)).toBe(!row.swept);
        if (!row.swept && !(await lstat(entry)).isSymbolicLink() && (await lstat(entry)).isDirectory()) {
          // Left whole, its contents too.
          const out = path.join(entry, "out.txt");
          if (await exists(out)) expect(await readFile(out, "utf8")).toBe("a command's output");
        }
        // Nothing outside the temp folder is ever touched.
        expect(await readFile(path.join(outside, "keep.txt"), "utf8")).toBe("a person's file");
      },
    );
  }

  it("sweeps several at once and leaves the rest of the temp folder alone", async () => {
    const stale = [named("s-a", deadOwner), named("spawner", deadOwner), named("mcp-srv", deadOwner)];
    for (const name of stale) await folderWithOutput(path.join(dir, name));
    const others = ["lathe-s-b-Ab12Cd", named("s-c", liveOwner), "tsx-0", "node-compile-cache"];
    for (const name of others) await mkdir(path.join(dir, name));
    const result = await sweepStaleTempFolders(dir);
    expect(result.removed.sort()).toEqual(stale.map((name) => path.join(dir, name)).sort());
    for (const name of others) expect(await exists(path.join(dir, name))).toBe(true);
  });

  it("never follows the symlink a same-named entry is, where a naive sweep would (positive control)", async () => {
    // Outside Lathe: a shell sweep of the pattern's contents goes through the link and deletes the target's files.
    const control = path.join(base, "control");
    const controlTarget = path.join(base, "control-target");
    await mkdir(control);
    await mkdir(controlTarget);
    await writeFile(path.join(controlTarget, "keep.txt"), "a person's file");
    await symlink(controlTarget, path.join(control, named("s-10", deadOwner)));
    bash('rm -rf "$1"/lathe-*/*', control);
    expect(await exists(path.join(controlTarget, "keep.txt"))).toBe(false);
    // Lathe: the link stays, and so does everything it points to.
    const link = path.join(dir, named("s-10", deadOwner));
    await symlink(outside, link);
    expect((await sweepStaleTempFolders(dir)).removed).toEqual([]);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(outside, "keep.txt"), "utf8")).toBe("a person's file");
  });

  it("removes a killed run's folder without following a symlink inside it (positive control)", async () => {
    // What a command in the session could have left in its TMPDIR: a link to the person's files.
    // Outside Lathe: a removal that goes through links deletes what they point to.
    const control = path.join(base, "control");
    const controlTarget = path.join(base, "control-target");
    await mkdir(control);
    await mkdir(controlTarget);
    await writeFile(path.join(controlTarget, "keep.txt"), "a person's file");
    await symlink(controlTarget, path.join(control, "link"));
    bash('rm -rf "$1"/link/*', control);
    expect(await exists(path.join(controlTarget, "keep.txt"))).toBe(false);
    // Lathe: the folder goes, the link with it, and what it pointed to stays.
    const folder = path.join(dir, named("s-12", deadOwner));
    await folderWithOutput(folder);
    await symlink(outside, path.join(folder, "link"));
    expect((await sweepStaleTempFolders(dir)).removed).toEqual([folder]);
    expect(await exists(folder)).toBe(false);
    expect(await readFile(path.join(outside, "keep.txt"), "utf8")).toBe("a person's file");
  });

  it.skipIf(!root)(
    "leaves another user's folder that a plain rm -rf would remove (positive control)",
    async () => {
      const control = path.join(base, named("s-11", deadOwner));
      await folderWithOutput(control);
      await chown(control, 65534, 65534);
      bash('rm -rf "$1"', control);
      expect(await exists(control)).toBe(false);
      const folder = path.join(dir, named("s-11", deadOwner));
      await folderWithOutput(folder);
      await chown(folder, 65534, 65534);
      expect((await sweepStaleTempFolders(dir)).removed).toEqual([]);
      expect(await readFile(path.join(folder, "out.txt"), "utf8")).toBe("a command's output");
    },
  );

  it.skipIf(cannotLock)(
    `says what it could not remove, and goes on with the rest${cannotLock ? ` (skipped: ${cannotLock})` : ""}`,
    async () => {
      // A folder whose contents cannot be removed (an immutable file as root, a read-only
      // subfolder for anyone else).
      const stuck = path.join(dir, named("s-13", deadOwner));
      await folderWithOutput(stuck);
      await mkdir(path.join(stuck, "locked"));
      await writeFile(path.join(stuck, "locked", "f"), "x");
      const unlock = lock(path.join(stuck, "locked"));
      try {
        const gone = path.join(dir, named("s-14", deadOwner));
        await folderWithOutput(gone);
        const result = await sweepStaleTempFolders(dir);
        expect(result.removed).toEqual([gone]);
        expect(result.failed.map((f) => f.path)).toEqual([stuck]);
        expect(await exists(path.join(stuck, "locked", "f"))).toBe(true);
        expect(await exists(gone)).toBe(false);
      } finally {
        unlock();
      }
    },
  );
});
