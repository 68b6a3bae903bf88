// The app in a window 800 px wide, as on a small laptop screen or a window beside an editor:
// `lathe serve` with the loopback fixture model, the page in Debian's Chromium. What opens over a
// view must fit in the part of the window the view has, not hide behind the sidebar.
// Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { useSharedChromium } from "./ui-suite.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("narrow window");

let page: Page;

/** An attribute of the element the keyboard is on. */
const focused = (attribute: string) =>
  page
    .locator("body")
    .evaluate((body, name) => body.ownerDocument.activeElement?.getAttribute(name), attribute);

/** The left and right edges of what `locator` shows. */
async function edges(locator: Locator): Promise<{ left: number; right: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error("the element is not on screen");
  return { left: box.x, right: box.x + box.width };
}

/**
 * Wait until the model picker has settled: it is done looking for models (what it lists is in),
 * and its box has stayed the same for ten animation frames in a row (the header's wrap and its
 * own refit are over). Waits as long as the page takes, within the test's time.
 */
async function settled(panel: Locator): Promise<void> {
  await panel.getByRole("button", { name: "Look for models again" }).and(page.locator(":enabled")).waitFor({
    timeout: 45_000,
  });
  await panel.evaluate(
    (element) =>
      new Promise<void>((resolve) => {
        // The test compiles without the DOM's types: the page's own frame clock.
        const win = globalThis as unknown as { requestAnimationFrame: (f: () => void) => void };
        const frame = (f: () => void) => win.requestAnimationFrame(f);
        let last = "";
        let same = 0;
        const tick = () => {
          const r = element.getBoundingClientRect();
          const now = `${r.left} ${r.right} ${r.top} ${r.bottom}`;
          same = now === last ? same + 1 : 0;
          last = now;
          if (same >= 10) resolve();
          else frame(tick);
        };
        frame(tick);
      }),
  );
}

const world = useChatWorld(
  runUi,
  {
    prefix: "narrow",
    replies: [{ text: "Hello from the fixture." }],
    viewport: { width: 800, height: 900 },
  },
  (started) => {
    page = started.page;
  },
);
const chat = world.chat;

describe.skipIf(!runUi)("a window 800 px wide", () => {
  it("shows the whole model picker beside the sidebar, before and after a chat's title takes the header", async () => {
    const main = await edges(page.getByRole("main"));
    const panel = page.getByRole("dialog", { name: "Choose a model" });
    const check = async (shot: string) => {
      await page.getByRole("button", { name: /^Model: / }).click();
      await panel.waitFor();
      // Once the picker has settled (the header may still be wrapping its buttons when it opens,
      // and the models it lists arrive later), the panel is whole beside the sidebar.
      await settled(panel);
      const box = await edges(panel);
      expect(box.left).toBeGreaterThanOrEqual(main.left);
      expect(box.right).toBeLessThanOrEqual(main.right);
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
    // Waits on the page, not on a clock: a loaded machine only makes it slower.
  }, 60_000);

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

  it("keeps each local server's state at the right end of its name's line in Settings → Models", async () => {
    await goTo(page, "Settings", "Models");
    const servers = page.getByRole("list", { name: "Local servers" }).getByRole("listitem");
    await expect.poll(() => servers.count(), { timeout: 10_000 }).toBe(5);
    const state = /^(not running|not answering|\d+ models?)$/;
    await servers
      .filter({ hasText: "OpenAI-compatible" })
      .getByText(/^\d+ models?$/)
      .waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(SHOTS, "ui-narrow-models.png") });
    for (const server of await servers.all()) {
      const name = await server.locator("strong").first().boundingBox();
      const badge = await server.getByText(state).boundingBox();
      const row = await edges(server);
      if (!name || !badge) throw new Error(`${await server.innerText()}: its name or state is not on screen`);
      // The state reads as a column: at the row's right end, on the line of the server's name.
      // With a longer address (llama.cpp's) it broke onto a line of its own at the left.
      expect(badge.x + badge.width).toBeCloseTo(row.right, 0);
      expect(badge.y).toBeLessThan(name.y + name.height);
      expect(badge.y + badge.height).toBeGreaterThan(name.y);
    }
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

  it("opens the sidebar as a drawer from the menu button, and gives the view the whole width", async () => {
    await page.setViewportSize({ width: 480, height: 900 });
    try {
      await goTo(page, "Chat");
      const menu = page.getByRole("button", { name: "Menu" });
      // The view starts at the window's edge: no sidebar beside it.
      await expect.poll(async () => (await edges(page.getByRole("main"))).left, { timeout: 5_000 }).toBe(0);
      await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false");
      // The model's name is whole in its button (where it runs gives way first).
      const name = page.locator(".model-button-name");
      expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await page.getByRole("button", { name: /^Model: / }).click();
      const panel = page.getByRole("dialog", { name: "Choose a model" });
      await panel.waitFor();
      await page.screenshot({ path: path.join(SHOTS, "ui-480-model-picker.png") });
      // Each server's state is whole inside the panel, not cut at its edge.
      const panelEdges = await edges(panel);
      for (const state of await panel.getByText(/^(not running|running)$/).all())
        expect((await edges(state)).right).toBeLessThanOrEqual(panelEdges.right);
      await page.keyboard.press("Escape");

      // The menu opens the sidebar over the view, the keyboard on the view shown.
      await menu.click();
      const nav = page.getByRole("navigation", { name: "Views" });
      await nav.waitFor();
      await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("true");
      await expect.poll(() => focused("aria-current")).toBe("page");
      await page.screenshot({ path: path.join(SHOTS, "ui-480-drawer.png") });
      // Esc closes it and gives the keyboard back to the menu button.
      await page.keyboard.press("Escape");
      await nav.waitFor({ state: "hidden" });
      await expect.poll(() => focused("class")).toBe("menu-button");

      // Choosing a view closes it; the view's tabs each keep to one line.
      await goTo(page, "Tools", "Catalog");
      await nav.waitFor({ state: "hidden" });
      const tab = page.getByRole("tab", { name: "Run a tool" });
      const box = await tab.boundingBox();
      if (!box) throw new Error("the tab is not on screen");
      const line = await tab.evaluate(
        (el) => Number.parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).lineHeight) || 20,
      );
      expect(box.height).toBeLessThan(line * 2.5);
      const table = page.getByRole("table", { name: "All tools" });
      await table.getByRole("row", { name: "write", exact: true }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(SHOTS, "ui-480-catalog.png") });
      const widths = await table.evaluate((t) => ({
        table: t.scrollWidth,
        frame: t.parentElement!.clientWidth,
      }));
      expect(widths.table).toBeLessThanOrEqual(widths.frame);
    } finally {
      await page.setViewportSize({ width: 800, height: 900 });
    }
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("shows every section tab of each view whole inside the window", async () => {
    await page.setViewportSize({ width: 480, height: 900 });
    try {
      for (const view of ["Tools", "Extensions", "Settings"]) {
        await goTo(page, view);
        const main = await edges(page.getByRole("main"));
        const tabs = page.getByRole("tablist", { name: `${view} sections` }).getByRole("tab");
        await expect.poll(() => tabs.count(), { timeout: 5_000 }).toBeGreaterThan(1);
        await page.screenshot({ path: path.join(SHOTS, `ui-480-${view.toLowerCase()}-tabs.png`) });
        // Settings' fourth tab, Providers, was cut at the window's edge, half of it out of reach.
        for (const tab of await tabs.all()) {
          const box = await edges(tab);
          expect(box.left, await tab.innerText()).toBeGreaterThanOrEqual(main.left);
          expect(box.right, await tab.innerText()).toBeLessThanOrEqual(main.right);
        }
      }
    } finally {
      await page.setViewportSize({ width: 800, height: 900 });
    }
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("closes the drawer when the view chosen in it is the one already shown", async () => {
    await page.setViewportSize({ width: 480, height: 900 });
    try {
      const menu = page.getByRole("button", { name: "Menu" });
      const nav = page.getByRole("navigation", { name: "Views" });
      await goTo(page, "Settings", "Models");
      await nav.waitFor({ state: "hidden" });
      // Settings again, from the drawer: it closes, as it does for any other view, and the
      // view's tabs can be reached (the drawer stayed over them).
      await menu.click();
      await nav.waitFor();
      await nav.getByRole("button", { name: "Settings", exact: true }).click();
      await expect.poll(() => menu.getAttribute("aria-expanded"), { timeout: 5_000 }).toBe("false");
      await nav.waitFor({ state: "hidden" });
      await page.screenshot({ path: path.join(SHOTS, "ui-480-same-view.png") });
      await page.getByRole("tab", { name: "Permissions", exact: true }).click({ timeout: 5_000 });
      await expect
        .poll(() => page.getByRole("tab", { name: "Permissions", exact: true }).getAttribute("aria-selected"))
        .toBe("true");
    } finally {
      await page.setViewportSize({ width: 800, height: 900 });
    }
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});

// The top bar at the widths of a laptop screen or a window beside an editor, with a folder name
// as people give them and one much longer. At 960 px "Search and commands" broke onto two lines
// and "lathe-workbench-demo" was cut to "proj…" while the folder's full path took the room. From
// 901 px a long name then squeezed the path beside it to nothing: the path (the folder the project
// sits in) keeps a few characters of its end, cut from its start.
describe.skipIf(!runUi)("the top bar from 800 to 1280 px", () => {
  const startWorld = useSharedChromium(runUi);
  const names = {
    realistic: "lathe-workbench-demo",
    long: "customer-billing-reconciliation-service-with-a-very-long-folder-name-2026",
  };

  /** What the top bar shows at `width`: each visible part's box, and the folder name's fit. */
  async function measure(page: Page, width: number, shot: string) {
    await page.setViewportSize({ width, height: 700 });
    const bar = page.getByRole("banner");
    await expect.poll(() => bar.getByRole("status").textContent(), { timeout: 10_000 }).toMatch(/\d+ tools/);
    await page.screenshot({ path: path.join(SHOTS, shot), clip: { x: 0, y: 0, width, height: 120 } });
    return bar.evaluate((header) => {
      const view = header.ownerDocument.defaultView!;
      const shown = (el: typeof header) => {
        const box = el.getBoundingClientRect();
        return box.width > 1 && box.height > 1 && view.getComputedStyle(el).visibility !== "hidden";
      };
      const lineHeight = (el: typeof header) => Number.parseFloat(view.getComputedStyle(el).lineHeight) || 20;
      // Every label a person reads in the bar: each must keep to one line.
      const labels = [
        ...header.querySelectorAll(
          ".brand, .project-name, .badge, .topbar-status, .palette-button span, kbd",
        ),
      ]
        .filter(shown)
        .map((el) => ({
          text: el.textContent ?? "",
          lines: el.getBoundingClientRect().height / lineHeight(el),
        }));
      const parts = [...header.children].filter(shown).map((el) => {
        const box = el.getBoundingClientRect();
        return { top: box.top, bottom: box.bottom, right: box.right };
      });
      const name = header.querySelector(".project-name")!;
      // The text's own width against the box it has: an ellipsis takes the place of the last
      // letters even when the box is a fraction of a pixel short, which scrollWidth rounds away.
      const text = header.ownerDocument.createRange();
      text.selectNodeContents(name);
      // The folder's path beside it (hidden at 900 px and under): its box, and where its text is.
      const pathBox = header.querySelector(".project-path");
      const pathText = header.ownerDocument.createRange();
      if (pathBox) pathText.selectNodeContents(pathBox);
      const edges = (r: { left: number; right: number; width: number }) => ({
        left: r.left,
        right: r.right,
        width: r.width,
      });
      return {
        bar: header.getBoundingClientRect().height,
        width: header.clientWidth,
        scrollWidth: header.scrollWidth,
        labels,
        parts,
        nameWhole: text.getBoundingClientRect().width <= name.getBoundingClientRect().width,
        nameEllipsis: view.getComputedStyle(name).textOverflow,
        nameTooltip: name.closest("[title]")?.getAttribute("title") ?? "",
        name: edges(name.getBoundingClientRect()),
        path:
          pathBox && shown(pathBox)
            ? {
                box: edges(pathBox.getBoundingClientRect()),
                text: edges(pathText.getBoundingClientRect()),
                words: pathBox.textContent ?? "",
                ellipsis: view.getComputedStyle(pathBox).textOverflow,
                fontSize: Number.parseFloat(view.getComputedStyle(pathBox).fontSize),
              }
            : undefined,
        button: edges(name.closest("button")!.getBoundingClientRect()),
      };
    });
  }

  for (const [kind, rootName] of Object.entries(names))
    it(`keeps to one row with the ${kind} folder name "${rootName}", its labels each on one line`, async () => {
      const world = await startWorld({ prefix: `topbar-${kind}`, rootName });
      for (const width of [800, 901, 960, 1024, 1280]) {
        const seen = await measure(world.page, width, `ui-topbar-${kind}-${width}.png`);
        const at = `${width} px: ${JSON.stringify(seen)}`;
        // One row: every part of the bar shares one band, and nothing runs past its right edge.
        const top = Math.max(...seen.parts.map((p) => p.top));
        const bottom = Math.min(...seen.parts.map((p) => p.bottom));
        expect(top, at).toBeLessThan(bottom);
        expect(seen.bar, at).toBeLessThan(60);
        expect(seen.scrollWidth, at).toBeLessThanOrEqual(seen.width);
        for (const label of seen.labels) expect(label.lines, `${label.text} at ${at}`).toBeLessThan(1.5);
        // Where its words give way to the icon (900 px and under), the palette button keeps them as
        // its name for a screen reader: it was "Ctrl K" alone.
        const palette = world.page.getByRole("banner").getByRole("button", { name: /^Search and commands/ });
        expect(await palette.count(), `the palette button's name at ${width} px`).toBe(1);
        if (kind === "realistic" || width >= 1280) {
          // There is room: the name is whole.
          expect(seen.nameWhole, at).toBe(true);
        } else if (!seen.nameWhole) {
          // No room: cut with an ellipsis, the whole name in its tooltip.
          expect(seen.nameEllipsis, at).toBe("ellipsis");
          expect(seen.nameTooltip, at).toContain(rootName);
        }
        if (width > 900) {
          // The folder's path shares the button with the name: from 901 px a long name squeezed it
          // to nothing. It shows the folder the project sits in, and where that is cut, it is cut
          // from its start (the nearest folders show) with an ellipsis; a name that is cut keeps
          // the larger share, and the two sit side by side inside the button.
          const where = seen.path;
          if (!where) throw new Error(`the folder's path is not shown at ${at}`);
          expect(path.join(where.words, rootName), at).toBe(world.root);
          const fits = where.text.width <= where.box.width + 0.5;
          expect(where.box.width, at).toBeGreaterThanOrEqual(
            Math.min(where.text.width, 4 * where.fontSize) - 0.5,
          );
          if (!fits) {
            expect(where.text.right, at).toBeCloseTo(where.box.right, 0);
            expect(where.text.left, at).toBeLessThan(where.box.left);
            expect(where.ellipsis, at).toBe("ellipsis");
          }
          if (!seen.nameWhole) expect(seen.name.width, at).toBeGreaterThan(where.box.width);
          expect(seen.name.right, at).toBeLessThanOrEqual(where.box.left + 0.5);
          expect(where.box.right, at).toBeLessThanOrEqual(seen.button.right + 0.5);
        }
      }
      expect(world.problems, world.problems.join("\n")).toEqual([]);
    });
});
