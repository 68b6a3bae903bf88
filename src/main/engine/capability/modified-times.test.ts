import { mkdir, mkdtemp, rm, unlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newest, newestFirst } from "./modified-time.ts";
import { ModifiedTimes } from "./modified-times.ts";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-mtimes-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `count` files whose modification times are 1_700_000_000 s plus their index, in seconds. */
async function files(count: number): Promise<string[]> {
  const paths = Array.from({ length: count }, (_, i) => path.join(dir, `d${i % 7}`, `f${i}.txt`));
  for (let d = 0; d < 7; d++) await mkdir(path.join(dir, `d${d}`));
  await Promise.all(paths.map((p) => writeFile(p, "")));
  await Promise.all(paths.map((p, i) => utimes(p, 1_700_000_000 + i, 1_700_000_000 + i)));
  return paths;
}

describe("ModifiedTimes", () => {
  it.each([[0], [1], [511], [512], [3000]])(
    "returns the time of each of %i files at the index it was added",
    async (count) => {
      const paths = await files(count);
      const times = new ModifiedTimes();
      for (const p of paths) times.add(p);
      const all = await times.all();
      expect(Array.from(all)).toEqual(paths.map((_, i) => (1_700_000_000 + i) * 1000));
    },
  );

  it("lets a helper thread stat the batches it claims, with the same results", async () => {
    const paths = await files(3000);
    const times = new ModifiedTimes();
    for (const p of paths) times.add(p);
    // Give the helper (started by the first full batch) time to claim all five full batches.
    for (let waited = 0; times.claimedByHelper < 5 && waited < 10_000; waited += 20) await sleep(20);
    expect(Array.from(await times.all())).toEqual(paths.map((_, i) => (1_700_000_000 + i) * 1000));
    expect(times.stattedByHelper).toBe(5 * 512);
  });

  it("gives NaN for a file that is gone by the time it is statted", async () => {
    const paths = await files(600);
    // Gone after a walk saw them, before their batches were statted.
    await unlink(paths[10] as string);
    await unlink(paths[599] as string);
    const times = new ModifiedTimes();
    for (const p of paths) times.add(p);
    const all = await times.all();
    expect(all[10]).toBeNaN();
    expect(all[599]).toBeNaN();
    expect(all[11]).toBe((1_700_000_000 + 11) * 1000);
  });

  it.each([[10], [2999]])(
    "throws an error other than a vanished file (a bad path at index %i), helper or not",
    async (at) => {
      const paths = await files(3000);
      paths[at] = path.join(dir, "x".repeat(300));
      for (let round = 0; round < 2; round++) {
        const times = new ModifiedTimes();
        for (const p of paths) times.add(p);
        await expect(times.all()).rejects.toMatchObject({ code: "ENAMETOOLONG" });
      }
    },
  );

  it("throws the abort reason when the signal fires", async () => {
    const paths = await files(2000);
    const times = new ModifiedTimes();
    for (const p of paths) times.add(p);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(times.all(controller.signal)).rejects.toThrow("stop");
  });
});

describe("newest", () => {
  const rand = (() => {
    let a = 7;
    return () => (a = (a * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  })();
  const items = Array.from({ length: 500 }, (_, i) => ({
    path: `p${String(Math.floor(rand() * 400)).padStart(3, "0")}-${i}`,
    // Few distinct times, so that ties (ordered by path) are common.
    mtimeMs: Math.floor(rand() * 20),
  }));
  it.each([[1], [2], [7], [50], [499], [500], [900]])("keeps the %i newest, as a full sort would", (k) => {
    expect(newest(items, k)).toEqual([...items].sort(newestFirst).slice(0, k));
  });
  it("keeps nothing for k = 0", () => {
    expect(newest(items, 0)).toEqual([]);
  });
});
