// Session names in the sidebar of an 800 px window: a row that is not hovered or focused gives its
// name the whole row (its Rename and Delete buttons, shown only on hover or focus, took their room
// anyway, so names were cut on every row); hovering or tabbing into the row shows the buttons,
// inside the row, and they work. `lathe serve` on a temp folder, the fixture model, the page in
// Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";
import { box } from "./boxes.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("session row names");
// Each fits the sidebar's row whole, but not beside the row's two buttons.
const NAMES = ["Tidy the fixture files", "Check release notes"];

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "session-row-names",
    replies: () => ({ text: "Done." }),
    viewport: { width: 800, height: 700 },
  },
  (started) => {
    page = started.page;
  },
);

/** Whether the element's text is drawn whole (not cut with an ellipsis). */
const drawnWhole = (locator: Locator) => locator.evaluate((el) => el.scrollWidth <= el.clientWidth);
/** How opaque a row's button is drawn: its own opacity times its row buttons' group's. */
const opacity = (locator: Locator) =>
  locator.evaluate((el) => {
    const view = el.ownerDocument.defaultView!;
    return (
      Number(view.getComputedStyle(el).opacity) * Number(view.getComputedStyle(el.parentElement!).opacity)
    );
  });

describe.skipIf(!runUi)("session names in the sidebar", () => {
  const list = () => page.getByRole("list", { name: "Session list" });
  const row = (name: string) => list().getByRole("listitem", { name });

  it("shows each name whole on rows that are not hovered, the active one too", async () => {
    for (const [index, name] of NAMES.entries()) {
      if (index > 0) await page.getByRole("button", { name: "New chat" }).click();
      await chat.send(name);
      await chat.conversation().getByText("Done.").last().waitFor({ timeout: 15_000 });
      await row(name).waitFor();
    }
    await page.mouse.move(600, 400);
    await page.locator("body").evaluate((body) => {
      const focused = body.ownerDocument.activeElement;
      if (focused && "blur" in focused && typeof focused.blur === "function") focused.blur();
    });
    await page.screenshot({ path: path.join(SHOTS, "ui-session-row-names.png") });
    for (const name of NAMES) {
      const title = row(name).locator(".session-title");
      expect(await drawnWhole(title), name).toBe(true);
      const rowBox = await box(row(name).locator(".session-row"));
      const rename = row(name).getByRole("button", { name: `Rename ${name}` });
      const renameBox = await box(rename);
      // The hidden buttons take no room from the name: it may run under where they show.
      expect((await box(title)).x + (await box(title)).width, name).toBeGreaterThan(renameBox.x);
      expect(renameBox.x + renameBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
      expect(await opacity(rename), name).toBe(0);
    }
  });

  it("shows a row's buttons inside it on hover, and they work", async () => {
    const name = NAMES[0]!;
    await row(name).hover();
    const rename = row(name).getByRole("button", { name: `Rename ${name}` });
    await expect.poll(() => opacity(rename)).toBe(1);
    const rowBox = await box(row(name).locator(".session-row"));
    const titleBox = await box(row(name).locator(".session-title"));
    const renameBox = await box(rename);
    // Side by side now: the name ends before the buttons begin.
    expect(titleBox.x + titleBox.width).toBeLessThanOrEqual(renameBox.x);
    expect(renameBox.x + renameBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
    await page.screenshot({ path: path.join(SHOTS, "ui-session-row-names-hover.png") });
    await rename.click();
    const field = page.getByRole("textbox", { name: "Session name" });
    await field.waitFor();
    await page.keyboard.press("Escape");
    await field.waitFor({ state: "hidden" });
  });

  it("reaches a row's buttons with the keyboard, shown while they have focus", async () => {
    const name = NAMES[1]!;
    await page.mouse.move(600, 400);
    await row(name).getByRole("button", { name, exact: true }).focus();
    await page.keyboard.press("Tab");
    const rename = row(name).getByRole("button", { name: `Rename ${name}` });
    expect(await rename.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await expect.poll(() => opacity(rename)).toBe(1);
    const rowBox = await box(row(name).locator(".session-row"));
    const renameBox = await box(rename);
    expect(renameBox.x).toBeGreaterThanOrEqual(rowBox.x);
    expect(renameBox.x + renameBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
    await page.keyboard.press("Tab");
    expect(await page.locator(":focus").getAttribute("aria-label")).toBe(`Delete ${name}`);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
