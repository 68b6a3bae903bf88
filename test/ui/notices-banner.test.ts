// The notices banner when the engine has two long things to say: the OS sandbox is turned off,
// and the folder itself lies inside $LATHE_HOME (so every file tool refuses every file there).
// `lathe serve` on such a folder, the page in Debian's Chromium at 200 % zoom (a 1280 × 860
// window shows 640 × 430 CSS pixels). Each notice is there once, as a sentence, also after a
// reload; and the banner leaves most of the window to the chat, its notices still readable by
// scrolling it. Needs `npm run build` first.
import path from "node:path";
import { writeFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, fixtureProviders, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("notices banner");
const VIEW = { width: 640, height: 430 };

let page: Page;
const chat = chatHelpers(() => page);
const notices = () => page.getByRole("list", { name: "Notices" }).getByRole("listitem");

const world = useUiWorld(
  runUi,
  {
    prefix: "notices",
    // The project folder inside $LATHE_HOME (`lathe-home`, beside it in the temp folder).
    rootName: "lathe-home/work",
    prepare: async ({ home }) =>
      writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ providers: await fixtureProviders(), sandbox: { enabled: false } }),
      ),
    viewport: VIEW,
    waitForPrompt: true,
  },
  (started) => {
    page = started.page;
  },
);

/** The texts of the notices shown, whitespace collapsed. */
const shown = async () => (await notices().allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());

describe.skipIf(!runUi)("two long notices at 200 % zoom", () => {
  it("shows each notice once, as a sentence, and again once after a reload", async () => {
    await expect.poll(() => notices().count(), { timeout: 10_000 }).toBe(2);
    const before = await shown();
    expect(before.filter((t) => t.startsWith("The OS sandbox is not active"))).toHaveLength(1);
    const hidden = before.filter((t) => /is inside Lathe's own data/.test(t));
    expect(hidden).toHaveLength(1);
    // Read on its own, the notice starts as a sentence does, not mid-way ("this folder (…)").
    expect(hidden[0]).toMatch(/^This folder \(/);
    await page.reload();
    await chat.prompt().waitFor({ timeout: 10_000 });
    await expect.poll(() => notices().count(), { timeout: 10_000 }).toBe(2);
    expect(await shown()).toEqual(before);
    expect(world().problems).toEqual([]);
  });

  it("leaves most of the window to the chat, every notice still readable by scrolling the banner", async () => {
    const banner = page.getByRole("list", { name: "Notices" });
    await expect.poll(() => notices().count(), { timeout: 10_000 }).toBe(2);
    await page.screenshot({ path: path.join(SHOTS, "ui-notices-zoomed.png") });
    const bannerBox = (await banner.boundingBox())!;
    const main = (await page.locator("main").boundingBox())!;
    // The chat (its view below the banner) keeps at least half the window's height.
    expect(main.height, `the banner is ${Math.round(bannerBox.height)} px tall`).toBeGreaterThanOrEqual(
      VIEW.height / 2,
    );
    // The prompt box is whole on screen.
    const prompt = (await chat.prompt().boundingBox())!;
    expect(prompt.y + prompt.height).toBeLessThanOrEqual(VIEW.height);
    // The last notice can be reached: scrolled to, its close button is inside the banner's view.
    const lastClose = notices().last().getByRole("button", { name: "Close this notice" });
    await lastClose.scrollIntoViewIfNeeded();
    const close = (await lastClose.boundingBox())!;
    const shownBanner = (await banner.boundingBox())!;
    expect(close.y).toBeGreaterThanOrEqual(shownBanner.y - 1);
    expect(close.y + close.height).toBeLessThanOrEqual(shownBanner.y + shownBanner.height + 1);
    await page.screenshot({ path: path.join(SHOTS, "ui-notices-zoomed-scrolled.png") });
    // Closing one gives its room back to the chat.
    await notices().first().getByRole("button", { name: "Close this notice" }).click();
    await expect.poll(() => notices().count()).toBe(1);
    expect(world().problems).toEqual([]);
  });
});
