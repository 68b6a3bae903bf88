import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine/index.ts";
import { ExtensionsWatch } from "./extensions-watch.ts";

let base: string;
let engine: Engine;
let applied: number;
let idle: boolean;
let told: Engine[];
let watch: ExtensionsWatch;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-extensions-watch-"));
  engine = await Engine.create({ root: base, latheHome: path.join(base, "home"), extensions: false });
  applied = 0;
  const apply = engine.applyPendingChanges.bind(engine);
  engine.applyPendingChanges = () => {
    applied++;
    return apply();
  };
  idle = true;
  told = [];
  watch = new ExtensionsWatch({
    engine: () => engine,
    idle: () => idle,
    onChange: (e) => {
      told.push(e);
      return Promise.resolve();
    },
  });
});

afterEach(async () => {
  await watch.stop();
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

describe("ExtensionsWatch", () => {
  it("reports the first look and then only what changed (or when forced)", async () => {
    await watch.check();
    expect(told).toEqual([engine]);
    await watch.check();
    expect(told).toHaveLength(1);
    engine.registry.reportDisabled({
      id: "broken",
      origin: { layer: "global", kind: "plugin", name: "broken" },
      reason: "tool.yaml is missing",
    });
    await watch.check();
    expect(told).toHaveLength(2);
    await watch.check(true);
    expect(told).toHaveLength(3);
  });

  it("applies pending changes only while no call is running", async () => {
    idle = false;
    await watch.check();
    expect(applied).toBe(0);
    idle = true;
    await watch.check();
    expect(applied).toBe(1);
  });

  it("looks on its own timer once started, and stops", async () => {
    const timed = new ExtensionsWatch({
      engine: () => engine,
      idle: () => true,
      onChange: () => Promise.resolve(),
      intervalMs: 10,
    });
    timed.start();
    await expect.poll(() => applied, { timeout: 2_000 }).toBeGreaterThan(2);
    await timed.stop();
    const after = applied;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(applied).toBe(after);
  });

  it("keeps looking after a look fails, and says so", async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const failing = new ExtensionsWatch({
        engine: () => engine,
        idle: () => true,
        onChange: () => Promise.reject(new Error("the window is gone")),
      });
      await failing.check();
      await failing.check();
      expect(errors).toHaveLength(2);
      expect(String((errors[0] as unknown[])[1])).toMatch(/the window is gone/);
    } finally {
      console.error = original;
    }
  });
});
