import path from "node:path";
import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plugin, writePlugin, openPluginWorld, type PluginWorld } from "./support/plugin-test-kit.ts";
import { PLUGIN_LIMITS } from "../src/main/engine/plugins/plugin-limits.ts";
import { driveLoad, openHostileWorld, type HostileWorld, type LoadScale } from "./support/hostile-loads.ts";
import { idleLag, measureLag } from "./support/lag-probe.ts";

/**
 * The host's event loop keeps turning under every load a hostile plugin or a model can put on
 * it (issue 8): each load runs through the real engine and plugin host, its result is checked,
 * and a lag probe watches the loop meanwhile.
 *
 * Why these bounds and not the 50 ms goal: the goal is measured by `npm run bench`
 * (bench/event-loop.bench.ts), which prints the real figures beside the idle loop's. A test runs
 * beside other test files on two shared cores, where the scheduler alone keeps a busy thread off
 * a core for hundreds of milliseconds (seen here: 680 ms of wall-clock lag under the shell flood
 * during a full suite run, with 25 ms of the thread's own CPU), so a 50 ms, or even a 250 ms,
 * wall-clock assertion would fail for reasons that are not Lathe's. Two generous bounds still
 * fail loudly on a real stall (before the fixes these loads blocked the loop for 0.5 s to over
 * an hour, or crashed the process):
 * - the main thread's own CPU time between two turns of the loop stays under 250 ms. Other
 *   processes do not stretch this figure, so it can be fairly tight without being flaky;
 * - the wall-clock lag stays under 2 s, which also catches blocks spent waiting in the kernel
 *   (a synchronous read, a spawn) that CPU time does not see, with room for a busy machine.
 */
const CPU_BOUND_MS = 250;
const WALL_BOUND_MS = 2_000;

/** The loads, with the file sizes trimmed so the suite stays fast (the bench runs them whole). */
const TEST_SCALE: LoadScale = {
  readers: 200,
  readMb: 2,
  spawns: 200,
  editLines: [20_000, 500_000],
  writeMb: 8,
  bigFileMb: 16,
  fetches: 100,
  htmlChars: 900_000,
};

const LOAD_IDS = [
  "plugin-read-flood",
  "plugin-shell-flood",
  "plugin-fetch-flood",
  "plugin-write",
  "plugin-big-result",
  "plugin-many-objects",
  "edit-replace-all-sparse",
  "edit-replace-all-20000",
  "edit-replace-all-500000",
  "write-large",
  "read-large",
  "grep-large-file",
  "grep-backtracking",
  "web-fetch-html",
];

let hostile: HostileWorld;

beforeAll(async () => {
  hostile = await openHostileWorld(TEST_SCALE);
  await hostile.warm();
}, 180_000);

afterAll(async () => {
  await hostile?.cleanup();
});

describe("the event loop under hostile loads", () => {
  it("knows every load it is meant to run", () => {
    expect(hostile.loads.map((l) => l.id).sort()).toEqual([...LOAD_IDS].sort());
  });

  it("sees an idle loop as idle, and a 300 ms block as one (the probe itself works)", async () => {
    const idle = await idleLag(200);
    expect(idle.samples).toBeGreaterThan(10);
    // 300 ms of the main thread's own CPU time without a turn of the loop (wall time is longer
    // when the machine is busy, never shorter).
    const cpuMs = (): number => {
      const { user, system } = process.threadCpuUsage();
      return (user + system) / 1000;
    };
    const { lag } = await measureLag(async () => {
      await new Promise((r) => setTimeout(r, 10));
      const end = cpuMs() + 300;
      while (cpuMs() < end);
    });
    expect(lag.maxCpuMs).toBeGreaterThanOrEqual(290);
    expect(lag.maxMs).toBeGreaterThanOrEqual(290);
  });

  it.each(LOAD_IDS)(
    "%s: the result is right and the loop is never blocked long",
    async (id) => {
      const load = hostile.loads.find((l) => l.id === id);
      if (!load) throw new Error(`no load ${id}`);
      const { summary, lag } = await driveLoad(load, measureLag);
      console.log(
        `${load.title}: ${summary}; max lag ${lag.maxMs.toFixed(1)} ms (main-thread CPU ${lag.maxCpuMs.toFixed(1)} ms), p99 ${lag.p99Ms.toFixed(1)} ms`,
      );
      expect(lag.samples).toBeGreaterThan(0);
      expect(lag.maxCpuMs).toBeLessThan(CPU_BOUND_MS);
      expect(lag.maxMs).toBeLessThan(WALL_BOUND_MS);
    },
    180_000,
  );
});

describe("a plugin that floods its runtime", () => {
  let world: PluginWorld;

  beforeAll(async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writePlugin(
          w.globalDir,
          "flooder",
          plugin(
            "flooder",
            `const jobs = [];
             for (let i = 0; i < args.n; i++) jobs.push(runtime.fs.readText('small.txt').then((t) => 'ok ' + t, (e) => e.message));
             return await Promise.all(jobs);`,
            {
              input_schema: { type: "object", additionalProperties: true },
              requires: { fs: { read: ["{workspace}/**"] } },
            },
          ),
        );
        await writePlugin(
          w.globalDir,
          "hoarder",
          plugin(
            "hoarder",
            "const keep = []; for (let i = 0; i < args.n; i++) keep.push(await runtime.fs.readText('big.txt')); return keep.length;",
            {
              input_schema: { type: "object", additionalProperties: true },
              requires: { fs: { read: ["{workspace}/**"] } },
              limits: { memoryMb: 32 },
            },
          ),
        );
        await writePlugin(
          w.globalDir,
          "huge_writer",
          plugin("huge_writer", "return await runtime.fs.writeText('out.txt', 'z'.repeat(args.bytes));", {
            input_schema: { type: "object", additionalProperties: true },
            readOnly: false,
            requires: { fs: { write: ["{workspace}/**"] } },
          }),
        );
        await writeFile(path.join(w.root, "small.txt"), "small");
        await writeFile(path.join(w.root, "big.txt"), "0123456789abcdef\n".repeat((4 * 1024 * 1024) / 17));
      },
    });
  });

  afterAll(async () => {
    await world?.cleanup();
  });

  it("gets every request answered up to its queue, and a clear refusal past it", async () => {
    const { active, queued } = PLUGIN_LIMITS.bridge.fs;
    const n = 1_000;
    const session = await world.session();
    const envelope = await session.call("flooder", { n });
    expect(envelope.type).toBe("output");
    const results = (envelope as { data: string[] }).data;
    const ok = results.filter((r) => r === "ok small").length;
    const refused = results.filter((r) => r.includes("the most a plugin may have"));
    expect(ok + refused.length).toBe(n);
    expect(ok).toBeGreaterThanOrEqual(active + queued);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toBe(
      `flooder has ${active} runtime.fs requests running and ${queued} more waiting, the most a plugin may have; this one was refused. Await some of them before starting more (for example in batches of ${active}).`,
    );
  });

  it("stops a plugin that hoards large replies past its memory limit, and the host lives on", async () => {
    // Before large replies were copied in by the isolate itself, this aborted the whole process
    // (isolated-vm copied the 4 MB reply in outside any call and died on the memory limit).
    const session = await world.session();
    const envelope = await session.call("hoarder", { n: 20 });
    // Said as the limit it broke, so its author knows what to change.
    expect(envelope).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/^hoarder used more than its memory limit of 32 MB during the call/),
    });
    // The same plugin works again on a fresh isolate.
    const again = await session.call("hoarder", { n: 1 });
    expect(again).toMatchObject({ type: "output", data: 1 });
  });

  it("refuses a writeText larger than its limit, and writes nothing", async () => {
    const session = await world.session();
    const envelope = await session.call("huge_writer", { bytes: PLUGIN_LIMITS.writeBytes + 1 });
    expect(envelope).toMatchObject({
      type: "error",
      // The refusal, let through by the plugin, names the line that awaited it.
      error_text: expect.stringMatching(
        new RegExp(
          `^runtime\\.fs\\.writeText was given ${PLUGIN_LIMITS.writeBytes + 1} bytes of text, more than it writes at once \\(${PLUGIN_LIMITS.writeBytes}\\)\\. Write smaller files\\. \\(thrown at .*huge_writer/index\\.js:\\d+:\\d+\\)$`,
        ),
      ),
    });
    await expect(
      import("node:fs/promises").then((fs) => fs.stat(path.join(world.root, "out.txt"))),
    ).rejects.toThrow();
  });
});
