// The app in a window 800 px wide, as on a small laptop screen or a window beside an editor:
// `lathe serve` with the loopback fixture model, the page in Debian's Chromium. What opens over a
// view must fit in the part of the window the view has, not hide behind the sidebar.
// Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi, useFixtureModel } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("narrow window");

let page: Page;
const chat = chatHelpers(() => page);

/** The left and right edges of what `locator` shows. */
async function edges(locator: Locator): Promise<{ left: number; right: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error("the element is not on screen");
  return { left: box.x, right: box.x + box.width };
}

const world = useUiWorld(
  runUi,
  {
    prefix: "narrow",
    replies: [{ text: "Hello from the fixture." }],
    prepare: async ({ home, fixture }) => useFixtureModel(home, fixture!.baseURL),
    viewport: { width: 800, height: 900 },
    waitForPrompt: true,
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("a window 800 px wide", () => {
  it("shows the whole model picker beside the sidebar, before and after a chat's title takes the header", async () => {
    const main = await edges(page.getByRole("main"));
    const panel = page.getByRole("dialog", { name: "Choose a model" });
    const check = async (shot: string) => {
      await page.getByRole("button", { name: /^Model: / }).click();
      await panel.waitFor();
      // Once the page has settled (the header may still be wrapping its buttons when it opens),
      // the panel is whole beside the sidebar.
      await expect
        .poll(
          async () => {
            const box = await edges(panel);
            return box.left >= main.left && box.right <= main.right;
          },
          { timeout: 5_000 },
        )
        .toBe(true);
      await page.screenshot({ path: path.join(SHOTS, shot) });
      // What a person types into is whole, not cut by the sidebar.
      const filter = await edges(panel.getByRole("searchbox", { name: "Filter models" }));
      expect(filter.left).toBeGreaterThanOrEqual(main.left);
      await page.keyboard.press("Escape");
      await panel.waitFor({ state: "hidden" });
    };
    await check("ui-narrow-model-picker-new.png");
    // With a session open the header holds its title too and the pickers move to a second row.
    await chat.send("Say hello");
    await chat.conversation().getByText("Hello from the fixture.").waitFor({ timeout: 10_000 });
    await chat.turnEnded();
    await check("ui-narrow-model-picker.png");
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("shows the tool catalog without scrolling sideways", async () => {
    await goTo(page, "Tools", "Catalog");
    const table = page.getByRole("table", { name: "All tools" });
    await table.getByRole("row", { name: "read", exact: true }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(SHOTS, "ui-narrow-catalog.png") });
    // Every column, the access badges included, is in view: the table is no wider than its frame.
    const widths = await table.evaluate((t) => ({
      table: t.scrollWidth,
      frame: t.parentElement!.clientWidth,
    }));
    expect(widths.table).toBeLessThanOrEqual(widths.frame);
    const main = await edges(page.getByRole("main"));
    const access = await edges(table.getByRole("row", { name: "write", exact: true }).getByText("gated"));
    expect(access.right).toBeLessThanOrEqual(main.right);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});

describe.skipIf(!runUi)("a window 480 px wide (960 px at 200% zoom)", () => {
  it("keeps each part of the top bar on one line, none over another", async () => {
    await page.setViewportSize({ width: 480, height: 900 });
    try {
      const bar = page.getByRole("banner");
      const status = bar.getByRole("status");
      await expect.poll(() => status.textContent(), { timeout: 10_000 }).toMatch(/\d+ tools/);
      await page.screenshot({ path: path.join(SHOTS, "ui-narrow-topbar.png") });
      const lineHeight = async (locator: Locator) =>
        locator.evaluate(
          (el) => Number.parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).lineHeight) || 20,
        );
      for (const part of [status, bar.locator("kbd"), bar.getByRole("button", { name: /not trusted/ })]) {
        const box = await part.boundingBox();
        if (!box) throw new Error("a part of the top bar is not on screen");
        // One line: "24 tools" and "Ctrl K" broke onto two at this width.
        expect(box.height).toBeLessThan((await lineHeight(part)) * 1.7);
      }
      // The trust badge sits beside the folder button, not pressed into it.
      const folder = await edges(bar.getByRole("button", { name: /project/ }).first());
      const badge = await edges(bar.getByRole("button", { name: /not trusted/ }));
      expect(badge.left).toBeGreaterThanOrEqual(folder.right);

      // Settings → Permissions: the four approval modes, each whole, none drawn over another.
      await goTo(page, "Settings", "Permissions");
      const modes = page.locator(".mode-option");
      await expect.poll(() => modes.count(), { timeout: 10_000 }).toBe(4);
      await page.screenshot({ path: path.join(SHOTS, "ui-narrow-permissions.png") });
      const boxes = [];
      for (const mode of await modes.all()) {
        const box = await mode.boundingBox();
        if (!box) throw new Error("an approval mode is not on screen");
        boxes.push(box);
        // Its words stay inside it.
        expect(await mode.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      }
      for (const [i, a] of boxes.entries())
        for (const b of boxes.slice(i + 1)) {
          const apart =
            a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
          expect(apart).toBe(true);
        }
    } finally {
      await page.setViewportSize({ width: 800, height: 900 });
    }
  });
});
