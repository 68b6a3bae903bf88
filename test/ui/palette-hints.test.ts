// The command palette's right-hand hints (what a view holds, when a session was last used) form
// one column: each starts at the same place and none runs past the dialog. Each row sized its own
// hint, so a short "just now" stood far right of a long hint and the labels beside them were cut
// at different places. `lathe serve` with the fixture model, the page in Debian's Chromium. Needs
// `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOT = path.join(REPO, "test-results/ui-palette-hints.png");
const runUi = runsUi("palette hints");
const TITLES = ["Fix the flaky login test", "Write the release notes"];

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "palette-hints",
    replies: () => ({ text: "Done." }),
    viewport: { width: 1200, height: 800 },
  },
  async (started) => {
    page = started.page;
    for (const [i, title] of TITLES.entries()) {
      if (i > 0) await page.getByRole("button", { name: "New chat" }).click();
      await chat.send(title);
      await chat.conversation().getByText("Done.").last().waitFor({ timeout: 10_000 });
      await chat.turnEnded();
    }
  },
);

describe.skipIf(!runUi)("the command palette's hints", () => {
  it("line up in one column, inside the dialog", async () => {
    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: "Command palette" });
    await palette.waitFor();
    const hints = palette.getByRole("option").locator(".palette-detail");
    // The views' hints and the other session's "just now": long and short ones.
    await expect.poll(() => hints.count()).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: SHOT });
    // The last hints are below the list's fold: scroll them in.
    await hints.last().scrollIntoViewIfNeeded();
    await page.screenshot({ path: SHOT.replace(".png", "-end.png") });
    const boxes = [];
    for (const hint of await hints.all()) {
      const found = await hint.boundingBox();
      if (!found) throw new Error("a hint is not on screen");
      boxes.push(found);
    }
    const texts = await hints.allInnerTexts();
    const lefts = boxes.map((b) => Math.round(b.x));
    expect(new Set(lefts).size, `${texts.join(" | ")}: ${lefts.join(", ")}`).toBe(1);
    const list = await palette.getByRole("listbox", { name: "Commands" }).boundingBox();
    for (const b of boxes) expect(b.x + b.width).toBeLessThanOrEqual(list!.x + list!.width);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
