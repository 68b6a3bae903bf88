// The chat's header in a window 800 px wide with a session open: the session's name, the model
// picker, the context meter and the agent select fit in two rows at most, and the name stays
// readable. The agent select's minimum width pushed it onto a third row. `lathe serve` on a temp
// folder, the fixture model, the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOT = path.join(REPO, "test-results/ui-chat-header-narrow.png");
const runUi = runsUi("chat header, narrow");
const PROMPT = "Summarise the release notes of the parser rewrite for the team";

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "chat-header-narrow",
    replies: () => ({ text: "Here is the summary.", usage: { prompt_tokens: 1200, completion_tokens: 40 } }),
    viewport: { width: 800, height: 700 },
  },
  (started) => {
    page = started.page;
  },
);

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator.toString()} is not on screen`);
  return found;
}

describe.skipIf(!runUi)("the chat header at 800 px", () => {
  it("fits the session's name and every picker in two rows, the name readable", async () => {
    await chat.send(PROMPT);
    await chat.conversation().getByText("Here is the summary.").waitFor({ timeout: 15_000 });
    const header = page.locator(".chat-header");
    const title = header.getByRole("heading", { name: PROMPT });
    await title.waitFor();
    await page.getByRole("group", { name: "Context" }).waitFor();
    await page.screenshot({ path: SHOT });

    const parts = [
      title,
      header.getByRole("button", { name: /^Model: / }),
      header.getByRole("group", { name: "Context" }),
      header.getByRole("combobox", { name: "Agent" }),
    ];
    const boxes = await Promise.all(parts.map(box));
    // A row is the parts whose middles lie within one part's height of each other.
    const rows: number[] = [];
    for (const b of boxes) {
      const middle = b.y + b.height / 2;
      if (!rows.some((row) => Math.abs(row - middle) < 14)) rows.push(middle);
    }
    expect(rows.length, JSON.stringify(boxes)).toBeLessThanOrEqual(2);
    const headerBox = await box(header);
    // The name keeps most of its row: no ellipsis after a word or two.
    expect(boxes[0]!.width, JSON.stringify(boxes)).toBeGreaterThanOrEqual(headerBox.width * 0.5);
    // Every part stays inside the header.
    for (const b of boxes) expect(b.x + b.width).toBeLessThanOrEqual(headerBox.x + headerBox.width + 0.5);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
