// Long lists use the room their view has: 16 chats made in the page (each reads a file, so the
// audit trail holds 16 calls), in a window 1000 px tall. The sidebar's session list runs down to
// the bottom of the sidebar, and the audit trail's list is as tall as its rows (the view scrolls),
// rather than either stopping at a third of the window with the rest of it left empty.
// `lathe serve` with the loopback fixture model, the page in Debian's Chromium.
// Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("long lists");
const CHATS = 16;

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  return step === 0
    ? { toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }
    : { text: `Read it for: ${prompt}` };
}

let page: Page;
const chat = chatHelpers(() => page);

/** The bottom edge of what `locator` shows, in pixels from the top of the window. */
async function bottom(locator: Locator): Promise<number> {
  const box = await locator.boundingBox();
  if (!box) throw new Error("the element is not on screen");
  return box.y + box.height;
}

/** How tall a list is drawn, and how tall its rows are together. */
const heights = (list: Locator) =>
  list.evaluate((element) => ({ shown: element.clientHeight, rows: element.scrollHeight }));

useChatWorld(
  runUi,
  {
    prefix: "long-lists",
    replies: reply,
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "README.md"), "# long lists\n");
    },
    viewport: { width: 1280, height: 1000 },
  },
  async (started) => {
    page = started.page;
    for (let i = 1; i <= CHATS; i++) {
      if (i > 1) await page.getByRole("button", { name: "New chat" }).click();
      await chat.send(`chat number ${i}`);
      await chat.conversation().getByText(`Read it for: chat number ${i}`).waitFor({ timeout: 10_000 });
      await chat.turnEnded();
    }
  },
);

describe.skipIf(!runUi)("long lists in a tall window", () => {
  it("draws the session list down to the bottom of the sidebar", async () => {
    const list = page.getByRole("list", { name: "Session list" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(CHATS);
    await page.screenshot({ path: path.join(SHOTS, "ui-long-lists-sessions.png") });
    const { shown, rows } = await heights(list);
    // More sessions than fit: the list scrolls, and it is as tall as the sidebar leaves it.
    expect(rows).toBeGreaterThan(shown);
    const sidebarBottom = await bottom(page.locator(".app-sidebar"));
    expect(sidebarBottom - (await bottom(list))).toBeLessThan(40);
    // Its last session is reached by scrolling the list.
    const last = list.getByRole("listitem", { name: "chat number 1", exact: true });
    await last.scrollIntoViewIfNeeded();
    expect(await bottom(last)).toBeLessThanOrEqual(sidebarBottom);
  });

  it("draws every call of the audit trail in one list, scrolled with the view", async () => {
    await goTo(page, "Audit");
    const calls = page.getByRole("list", { name: "Calls" });
    await expect.poll(() => calls.getByRole("listitem").count(), { timeout: 10_000 }).toBe(CHATS);
    await page.screenshot({ path: path.join(SHOTS, "ui-long-lists-audit.png") });
    const { shown, rows } = await heights(calls);
    expect(shown).toBe(rows);
  });
});
