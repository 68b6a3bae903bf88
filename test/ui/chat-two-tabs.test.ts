// Two browser tabs on one `lathe serve`, one chat: a run started in the first tab is shown in the
// second as going on (not "interrupted"), its answer streams there too, and its Stop works there;
// a chat deleted in one tab is left in the other, so nothing is sent into it.
// The page in Debian's Chromium, the loopback fixture model. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, openSecondTab, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("chat in two tabs");

let second: Page;
const other = chatHelpers(() => second);
const list = (page: Page) => page.getByRole("list", { name: "Session list" });

const world = useChatWorld(
  runUi,
  {
    prefix: "chat-tabs",
    // The first answer streams slowly: long enough to open its session in the other tab.
    replies: [
      { text: "Counting the files one by one, slowly, and then some more of them.", eventDelayMs: 250 },
      { text: "Never sent." },
    ],
    viewport: { width: 1100, height: 800 },
  },
  async (started) => {
    second = await openSecondTab(started);
  },
);
const first = world.chat;

describe.skipIf(!runUi)("one chat in two tabs", () => {
  it("follows the other tab's run live, and stops it from here", async () => {
    await first.send("Count the files");
    await first.conversation().getByText("Counting").waitFor({ timeout: 10_000 });

    await list(second).getByRole("listitem", { name: "Count the files" }).click();
    // Going on here too: the Stop button, the text still arriving, no "interrupted" turn.
    await second.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });
    await other.conversation().getByText("slowly").waitFor({ timeout: 10_000 });
    await expect.poll(() => other.conversation().innerText()).not.toMatch(/interrupted/i);
    await second.screenshot({ path: path.join(SHOTS, "ui-chat-two-tabs-running.png") });

    await second.getByRole("button", { name: "Stop" }).click();
    await other.turnEnded();
    await first.turnEnded();
    await expect.poll(() => first.conversation().innerText()).toMatch(/stopped/i);
    await expect.poll(() => other.conversation().innerText()).toMatch(/stopped/i);
    await second.screenshot({ path: path.join(SHOTS, "ui-chat-two-tabs-stopped.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("leaves the chat in the other tab when one tab deletes it, keeping what was typed", async () => {
    await first.prompt().fill("What did you count?");
    const row = list(second).getByRole("listitem", { name: "Count the files" });
    await row.hover();
    await row.getByRole("button", { name: "Delete Count the files" }).click();
    const dialog = second.getByRole("dialog", { name: "Delete this session?" });
    await dialog.getByRole("button", { name: "Delete" }).click();
    await dialog.waitFor({ state: "hidden" });

    const page = world().page;
    await page.getByText(/The chat that was open here was deleted/).waitFor({ timeout: 10_000 });
    expect(await page.getByText("Counting the files").count()).toBe(0);
    expect(await first.prompt().inputValue()).toBe("What did you count?");
    // The tab that deleted it says nothing of the kind.
    expect(await second.getByText(/was deleted/).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-chat-two-tabs-deleted.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
