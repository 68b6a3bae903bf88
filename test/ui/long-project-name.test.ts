// A project folder with a long name in a window 480 px wide (or 960 px at 200% zoom), a session
// named by a long first prompt: the top bar, the sidebar's drawer and the chat's header each stay
// usable. Nothing runs off the window or over another part, the folder's name shows more than a
// word's worth (it showed six letters, "custom…", beside the trust badge, the tool count and the
// palette button), the chat's title runs to the context meter, and the whole name is in the
// tooltip and the accessible name wherever it is cut. `lathe serve` on a temp folder, the fixture
// model, the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { type Box, box, overlap } from "./boxes.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("long project name");
const ROOT_NAME = "customer-billing-reconciliation-service-with-a-very-long-folder-name-2026";
// A session's name as long as a prompt makes one (80 characters; a longer prompt is cut to that).
const PROMPT = "Summarise the release notes of the parser rewrite and list each breaking change";
const WIDTH = 480;

let page: Page;

const world = useChatWorld(
  runUi,
  {
    prefix: "long-project-name",
    rootName: ROOT_NAME,
    replies: () => ({ text: "Here is the summary.", usage: { prompt_tokens: 1200, completion_tokens: 40 } }),
    viewport: { width: WIDTH, height: 800 },
  },
  (started) => {
    page = started.page;
  },
);
const chat = world.chat;

/** Every box inside the window's width and clear of every other. */
function expectApartInside(boxes: Box[], seen: string): void {
  for (const [i, b] of boxes.entries()) {
    expect(b.x, seen).toBeGreaterThanOrEqual(-0.5);
    expect(b.x + b.width, seen).toBeLessThanOrEqual(WIDTH + 0.5);
    for (const other of boxes.slice(i + 1)) expect(overlap(b, other), seen).toBe(false);
  }
}

/** The element's text: the box it is drawn in, how wide the whole text is, and how it is cut. */
const textFit = (locator: Locator) =>
  locator.evaluate((e) => {
    const text = e.ownerDocument.createRange();
    text.selectNodeContents(e);
    return {
      shown: e.getBoundingClientRect().width,
      whole: text.getBoundingClientRect().width,
      overflow: e.ownerDocument.defaultView!.getComputedStyle(e).textOverflow,
    };
  });

describe.skipIf(!runUi)(`a long project name at ${WIDTH} px`, () => {
  it("keeps the top bar, the sidebar's drawer and the chat's header usable, nothing off-screen or overlapping", async () => {
    const root = world().root;
    await chat.send(PROMPT);
    await chat.conversation().getByText("Here is the summary.").waitFor({ timeout: 15_000 });
    await chat.turnEnded();
    const bar = page.getByRole("banner");
    await expect.poll(() => bar.getByRole("status").textContent(), { timeout: 10_000 }).toMatch(/\d+ tools/);
    await page.screenshot({ path: path.join(SHOTS, "ui-480-long-project-name.png") });

    // No part of the page scrolls sideways.
    const scroll = await page.locator("html").evaluate((html) => ({
      width: html.scrollWidth,
      client: html.clientWidth,
    }));
    expect(scroll.width, JSON.stringify(scroll)).toBeLessThanOrEqual(scroll.client);

    // The top bar: its parts in one row, inside the window, none over another.
    const project = bar.getByRole("button", { name: `Project ${root}: open another folder` });
    const barParts = [
      bar.getByRole("button", { name: "Menu" }),
      project,
      bar.getByRole("button", { name: /not trusted/ }),
      bar.getByRole("status"),
      bar.getByRole("button", { name: /^Search and commands/ }),
    ];
    const barBoxes = await Promise.all(barParts.map(box));
    const barSeen = JSON.stringify(barBoxes);
    expectApartInside(barBoxes, barSeen);
    const band = {
      top: Math.max(...barBoxes.map((b) => b.y)),
      bottom: Math.min(...barBoxes.map((b) => b.y + b.height)),
    };
    expect(band.top, barSeen).toBeLessThan(band.bottom);
    // The folder's name shows more than a word (at least ~12 of its letters, 100 px; it had 77),
    // cut with an ellipsis, the whole path in the button's tooltip and its accessible name.
    const name = project.locator(".project-name");
    const nameFit = await textFit(name);
    expect(nameFit.shown, JSON.stringify(nameFit)).toBeGreaterThanOrEqual(100);
    expect((await box(name)).x + nameFit.shown).toBeLessThanOrEqual(barBoxes[1]!.x + barBoxes[1]!.width);
    if (nameFit.whole > nameFit.shown + 0.01) expect(nameFit.overflow).toBe("ellipsis");
    expect(await project.getAttribute("title")).toBe(root);

    // The chat's header: the title, the model, the meter and the agent in two rows, inside the
    // window and apart; the title runs to the meter (it stopped at the agent's column, 70 px
    // short), the whole name in its tooltip and as the heading's name.
    const header = page.locator(".chat-header");
    const title = header.getByRole("heading", { name: PROMPT });
    expect(await title.getAttribute("title")).toBe(PROMPT);
    const meter = header.getByRole("group", { name: "Context" });
    const headerParts = [
      title,
      header.getByRole("button", { name: /^Model: / }),
      meter,
      header.getByRole("combobox", { name: "Agent" }),
    ];
    const headerBoxes = await Promise.all(headerParts.map(box));
    const headerSeen = JSON.stringify(headerBoxes);
    expectApartInside(headerBoxes, headerSeen);
    const headerBox = await box(header);
    for (const b of headerBoxes)
      expect(b.y + b.height, headerSeen).toBeLessThanOrEqual(headerBox.y + headerBox.height);
    const gap = await header.evaluate((e) =>
      Number.parseFloat(e.ownerDocument.defaultView!.getComputedStyle(e).columnGap),
    );
    const [titleBox, , meterBox] = headerBoxes as [Box, Box, Box, Box];
    expect(titleBox.x + titleBox.width, headerSeen).toBeGreaterThanOrEqual(meterBox.x - gap - 0.5);
    expect(await meter.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    const titleFit = await textFit(title);
    if (titleFit.whole > titleFit.shown + 0.01) expect(titleFit.overflow).toBe("ellipsis");

    // The sidebar's drawer: inside the window, its views and the session whole or cut with an
    // ellipsis and named in full, nothing in it scrolling sideways.
    const menu = bar.getByRole("button", { name: "Menu" });
    await menu.click();
    const drawer = page.locator("#app-sidebar");
    const nav = page.getByRole("navigation", { name: "Views" });
    await nav.waitFor();
    const session = page.getByRole("list", { name: "Session list" }).getByRole("listitem", { name: PROMPT });
    await session.waitFor();
    await page.screenshot({ path: path.join(SHOTS, "ui-480-long-project-name-drawer.png") });
    const drawerBox = await box(drawer);
    expectApartInside([drawerBox], JSON.stringify(drawerBox));
    expect(await drawer.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    const rows = [...(await nav.getByRole("button").all()), session.locator(".session-row")];
    for (const row of rows) {
      const b = await box(row);
      const at = `${await row.innerText()}: ${JSON.stringify(b)} in ${JSON.stringify(drawerBox)}`;
      expect(b.x, at).toBeGreaterThanOrEqual(drawerBox.x - 0.5);
      expect(b.x + b.width, at).toBeLessThanOrEqual(drawerBox.x + drawerBox.width + 0.5);
    }
    const sessionTitle = session.locator(".session-title");
    const sessionFit = await textFit(sessionTitle);
    if (sessionFit.whole > sessionFit.shown + 0.01) expect(sessionFit.overflow).toBe("ellipsis");
    expect(await session.getByRole("button", { name: PROMPT, exact: true }).getAttribute("title")).toBe(
      PROMPT,
    );
    await page.keyboard.press("Escape");
    await nav.waitFor({ state: "hidden" });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
