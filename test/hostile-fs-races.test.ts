import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, readdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FsCapability } from "../src/main/engine/capability/fs-capability.ts";
import { HiddenPathSet } from "../src/main/engine/sandbox/hidden-path-set.ts";
import { PathScope } from "../src/main/engine/capability/path-scope.ts";
import { useProcFd } from "../src/main/engine/capability/verified-file.ts";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./support/plugin-test-kit.ts";
import { outputOf } from "./support/envelope-of.ts";
import type { Session } from "../src/main/engine/session/session.ts";

/**
 * Check-then-open races against the plugin fs bridge. A child process swaps a workspace folder
 * for a symlink to a folder outside, and back, as fast as it can, while a plugin reads, lists
 * and writes through that folder for about a second. The positive control does the same
 * against a naive resolve-then-open (the old bridge: canonicalise and check, then open by name)
 * and does read the outside file, list the outside folder and write into it. Lathe reads,
 * lists and writes only inside, every time, with the outside folder byte-for-byte unchanged.
 */

const SECRET = "outside-secret-7d1e";
const RACE_MS = 1_000;
const OPEN_ARGS = { type: "object", additionalProperties: true };

/** Flip `<ws>/d` between the real folder and a symlink to the outside folder until killed. */
const SWAPPER = `
const fs = require("node:fs");
const [ws] = process.argv.slice(1);
const d = ws + "/d", real = ws + "/d.real", link = ws + "/d.link";
let stop = false;
process.on("SIGTERM", () => { stop = true; });
const step = (from, to) => { try { fs.renameSync(from, to); } catch {} };
process.stdout.write("ready\\n");
(function loop() {
  for (let i = 0; i < 2000 && !stop; i++) {
    step(d, real); step(link, d);   // d is now the symlink to the outside
    step(d, link); step(real, d);   // d is the real folder again
  }
  if (stop) process.exit(0);
  setImmediate(loop);
})();
`;

/** Races for at least `RACE_MS`, counting what came back: inside, outside, refused. */
const RACER = `
  const counts = { inside: 0, outside: 0, refused: 0, attempts: 0, errors: [] };
  // At least args.ms of racing and enough attempts to mean something, however loaded the machine.
  const start = Date.now();
  const enough = () => Date.now() - start >= args.ms && counts.attempts >= 30 && counts.inside > 0;
  let i = 0;
  while (!enough() && Date.now() - start < args.ms * 8) {
    counts.attempts++;
    try {
      let seen;
      if (args.op === "read") seen = await runtime.fs.readText("d/f.txt");
      else if (args.op === "list") seen = (await runtime.fs.list("d")).map((e) => e.name).join(",");
      else seen = JSON.stringify(await runtime.fs.writeText("d/w-" + i++ + ".txt", "written by the plugin"));
      if (seen.includes(args.secret) || seen.includes("outside-only")) counts.outside++;
      else counts.inside++;
    } catch (e) {
      counts.refused++;
      if (counts.errors.length < 5 && !counts.errors.includes(e.message)) counts.errors.push(e.message);
    }
  }
  return counts;
`;

let world: PluginWorld;
let session: Session;
let outside: string;
let swapper: ChildProcess | undefined;

interface Counts {
  inside: number;
  outside: number;
  refused: number;
  attempts: number;
  errors: string[];
}

async function startSwapper(): Promise<void> {
  swapper = spawn(process.execPath, ["-e", SWAPPER, world.root], { stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = (await once(swapper.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  expect(chunk.toString()).toContain("ready");
}

async function stopSwapper(): Promise<void> {
  if (!swapper) return;
  const exited = once(swapper, "exit");
  swapper.kill("SIGTERM");
  await exited;
  swapper = undefined;
}

/** Every file of the outside folder with its content. */
async function outsideSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(outside)).sort())
    out[name] = await readFile(path.join(outside, name), "utf8");
  return out;
}

/** A fresh `<ws>/d` (with f.txt), `<ws>/d.link` → outside, and no `<ws>/d.real`. */
async function resetFixture(): Promise<void> {
  const { rm } = await import("node:fs/promises");
  for (const name of ["d", "d.real", "d.link"])
    await rm(path.join(world.root, name), { recursive: true, force: true });
  await mkdir(path.join(world.root, "d"));
  await writeFile(path.join(world.root, "d", "f.txt"), "inside");
  await symlink(outside, path.join(world.root, "d.link"));
}

/** Files the plugin wrote, wherever the swapper left the real folder (d or d.real). */
async function writtenInside(prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ["d", "d.real"]) {
    const full = path.join(world.root, dir);
    const { lstat } = await import("node:fs/promises");
    const stats = await lstat(full).catch(() => undefined);
    if (!stats?.isDirectory()) continue;
    found.push(...(await readdir(full)).filter((n) => n.startsWith(prefix)));
  }
  return found;
}

beforeAll(async () => {
  world = await openPluginWorld({
    arrange: async (w) => {
      await writePlugin(
        w.globalDir,
        "racer",
        plugin("racer", RACER, {
          input_schema: OPEN_ARGS,
          readOnly: false,
          timeoutMs: 30_000,
          requires: { fs: { read: ["{workspace}/**"], write: ["{workspace}/**"] } },
        }),
      );
    },
  });
  outside = path.join(world.base, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "f.txt"), SECRET);
  await writeFile(path.join(outside, "outside-only.txt"), SECRET);
  await resetFixture();
  session = await world.session("yolo");
});

afterEach(async () => {
  await stopSwapper();
  useProcFd(undefined);
  await resetFixture();
});

afterAll(async () => {
  await world?.cleanup();
});

/** The naive bridge: resolve and check by name, then open by name (what Lathe did before). */
function naiveFs(): FsCapability {
  const scope = PathScope.compile(["{workspace}/**"], {
    workspace: [world.root],
    "ad-hoc": [],
    "user-data": [],
    session: [],
  });
  return new FsCapability({ root: world.root, read: scope, write: scope, hidden: HiddenPathSet.none() });
}

async function naiveRace(op: "read" | "list" | "write"): Promise<Counts> {
  const fs = naiveFs();
  const counts: Counts = { inside: 0, outside: 0, refused: 0, attempts: 0, errors: [] };
  // Until the first leak (typically well under RACE_MS), with the same ceiling as Lathe's race.
  const until = performance.now() + RACE_MS * 8;
  let i = 0;
  while (performance.now() < until && counts.outside === 0) {
    counts.attempts++;
    try {
      let seen: string;
      if (op === "read") {
        const resolved = await fs.resolve("d/f.txt", "read");
        seen = await readFile(resolved.absolute, "utf8");
      } else if (op === "list") {
        const resolved = await fs.resolve("d", "read");
        seen = (await readdir(resolved.absolute)).join(",");
      } else {
        const resolved = await fs.resolve(`d/naive-${i++}.txt`, "write");
        await writeFile(resolved.absolute, "written by the naive bridge");
        seen = (await readdir(outside)).filter((n) => n.startsWith("naive-")).join(",");
      }
      if (seen.includes(SECRET) || seen.includes("outside-only") || seen.includes("naive-")) counts.outside++;
      else counts.inside++;
    } catch {
      counts.refused++;
    }
  }
  return counts;
}

const OPS = [
  ["read", "runtime.fs.readText reads the outside file"],
  ["list", "runtime.fs.list lists the outside folder"],
  ["write", "runtime.fs.writeText (temp file + rename) writes into the outside folder"],
] as const;

describe.skipIf(process.platform !== "linux")(
  "a folder swapped for a symlink mid-call (skipped off Linux: the exact /proc check is Linux's)",
  () => {
    it.each(OPS)("positive control, naive resolve-then-open: %s → %s within a second", async (op) => {
      const before = await outsideSnapshot();
      await startSwapper();
      const counts = await naiveRace(op);
      await stopSwapper();
      expect(counts.outside, JSON.stringify(counts)).toBeGreaterThan(0);
      if (op === "write") {
        const after = await outsideSnapshot();
        expect(Object.keys(after).filter((n) => n.startsWith("naive-")).length).toBeGreaterThan(0);
        // Clean the outside folder for the rows that follow.
        const { rm } = await import("node:fs/promises");
        for (const name of Object.keys(after))
          if (!(name in before)) await rm(path.join(outside, name), { force: true });
      }
      expect(await outsideSnapshot()).toEqual(before);
    });

    it.each(OPS)("Lathe, racing for a second: %s never happens", async (op) => {
      const before = await outsideSnapshot();
      await startSwapper();
      const counts = outputOf<Counts>(await session.call("racer", { op, ms: RACE_MS, secret: SECRET }));
      await stopSwapper();
      console.log(`fs race (${op}): ${JSON.stringify(counts)}`);
      expect(counts.outside, JSON.stringify(counts)).toBe(0);
      expect(counts.attempts).toBeGreaterThan(20);
      // It still works: the reads and writes that were not refused happened, inside.
      expect(counts.inside).toBeGreaterThan(0);
      expect(await outsideSnapshot()).toEqual(before);
      if (op === "write") {
        // Every write that succeeded is inside (in d, or in d.real where the swapper left it).
        expect((await writtenInside("w-")).length).toBe(counts.inside);
        expect(await writtenInside(".w-")).toEqual([]);
      }
    });
  },
);

/** The built-in tools' file access (read, write, edit): resolve by name, then FsCapability's own open. */
async function builtinRace(op: "read" | "write"): Promise<Counts> {
  const fs = naiveFs();
  const counts: Counts = { inside: 0, outside: 0, refused: 0, attempts: 0, errors: [] };
  const until = performance.now() + RACE_MS;
  let i = 0;
  while (performance.now() < until) {
    counts.attempts++;
    try {
      if (op === "read") {
        const { bytes } = await fs.readBytes(await fs.resolve("d/f.txt", "read"));
        if (bytes.toString("utf8").includes(SECRET)) counts.outside++;
        else counts.inside++;
      } else {
        await fs.writeAtomic(await fs.resolve(`d/b-${i++}.txt`, "write"), Buffer.from("built-in write"));
        counts.inside++;
      }
    } catch {
      counts.refused++;
    }
  }
  if (op === "write") counts.outside = (await readdir(outside)).filter((n) => n.startsWith("b-")).length;
  return counts;
}

describe.skipIf(process.platform !== "linux")(
  "the built-in tools' reads and writes under the same swap (skipped off Linux: the exact /proc check is Linux's)",
  () => {
    it.each(["read", "write"] as const)(
      "FsCapability, racing for a second: %s never reaches outside",
      async (op) => {
        const before = await outsideSnapshot();
        await startSwapper();
        const counts = await builtinRace(op);
        await stopSwapper();
        expect(counts.outside, JSON.stringify(counts)).toBe(0);
        expect(counts.attempts).toBeGreaterThan(20);
        expect(counts.inside, JSON.stringify(counts)).toBeGreaterThan(0);
        expect(await outsideSnapshot()).toEqual(before);
      },
    );
  },
);

describe("a folder that is a symlink when the bridge opens it is refused (no race needed)", () => {
  async function swapped<T>(work: () => Promise<T>): Promise<T> {
    const { rename } = await import("node:fs/promises");
    const d = path.join(world.root, "d");
    await rename(d, `${d}.real`);
    await rename(`${d}.link`, d);
    try {
      return await work();
    } finally {
      await rename(d, `${d}.link`);
      await rename(`${d}.real`, d);
    }
  }

  it.each([
    ["Linux /proc check", true],
    ["portable inode check", false],
  ] as const)("%s: the authorized path turns out to lead outside", async (_name, proc) => {
    useProcFd(proc);
    const { readVerifiedFile, writeVerifiedFile, listVerifiedDir } =
      await import("../src/main/engine/capability/verified-file.ts");
    const fs = naiveFs();
    // Authorized while d is the real folder…
    const file = await fs.resolve("d/f.txt", "read");
    const dir = await fs.resolve("d", "read");
    const fresh = await fs.resolve("d/new.txt", "write");
    expect(file.absolute).toBe(path.join(await realpath(world.root), "d", "f.txt"));
    // …opened after the swap.
    const before = await outsideSnapshot();
    await swapped(async () => {
      await expect(readVerifiedFile(file, 1e6, () => "too large")).rejects.toThrow(
        /changed while it was being read/,
      );
      await expect(listVerifiedDir(dir)).rejects.toThrow(/changed while it was being listed/);
      await expect(writeVerifiedFile(fresh, Buffer.from("x"))).rejects.toThrow(
        /changed while it was being written/,
      );
    });
    expect(await outsideSnapshot()).toEqual(before);
    // And without a swap the same handles work.
    expect((await readVerifiedFile(file, 1e6, () => "too large")).toString()).toBe("inside");
    await writeVerifiedFile(fresh, Buffer.from("fresh"));
    expect(await readFile(path.join(world.root, "d", "new.txt"), "utf8")).toBe("fresh");
  });
});
