// A UI suite's set-up and tear-down, registered once here rather than in every file: its world
// (or, for a suite that serves several folders, one Chromium shared by their worlds) started
// before its tests and closed after them. Call these at the top of a test file or of a
// `describe`; nothing starts when the suite does not run (see `runsUi`).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchChromium, missingPrerequisite } from "./serve-fixture.ts";
import { startUiWorld, type UiWorld, type UiWorldOptions } from "./ui-world.ts";

/**
 * The suite's world: started before its tests when `run`, then handed to `ready` in the same
 * hook (to pick up its page, open a view); closed after the tests. Read it in a test as `world()`.
 */
export function useUiWorld(
  run: boolean,
  options: UiWorldOptions,
  ready?: (world: UiWorld) => void | Promise<void>,
): () => UiWorld {
  let world: UiWorld | undefined;
  beforeAll(async () => {
    if (!run) return;
    world = await startUiWorld(options);
    await ready?.(world);
  });
  afterAll(() => world?.close());
  return () => {
    if (!world) throw new Error("The UI world is not started: read it inside a test of a suite that runs.");
    return world;
  };
}

/**
 * One Chromium for a suite that serves several folders, launched before its tests when `run`
 * (failing with what is missing when it cannot be). The function returned starts a world in it;
 * each world, then the browser, is closed after the tests.
 */
export function useSharedChromium(
  run: boolean,
): (options: Omit<UiWorldOptions, "browser">) => Promise<UiWorld> {
  let browser: Browser | undefined;
  const worlds: UiWorld[] = [];
  beforeAll(async () => {
    if (!run) return;
    const missing = missingPrerequisite();
    if (missing) throw new Error(missing);
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const world of worlds) await world.close();
    await browser?.close();
  });
  return async (options) => {
    if (!browser) throw new Error("Chromium is not started: start a world inside a suite that runs.");
    const world = await startUiWorld({ ...options, browser });
    worlds.push(world);
    return world;
  };
}
