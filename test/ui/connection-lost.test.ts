// `lathe serve` stops while the page is open (closed terminal, crash, restart): the page must say
// so, not go on showing a run that can no longer end. `lathe serve` with the loopback fixture model
// stuck mid-answer, the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runsUi, stopLatheServe } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("connection lost");

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "connection",
    // The model starts its answer, then goes silent: the run is under way when the server goes.
    replies: [{ text: "Let me think about that for a while", stallAfterEvents: 2 }],
    viewport: { width: 1100, height: 800 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("the connection to lathe serve is lost", () => {
  it("ends the run on screen, says the connection is gone, and names no internal channel", async () => {
    await chat.send("Think hard");
    await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });
    await chat
      .conversation()
      .getByText(/waiting for the model/)
      .waitFor({ timeout: 15_000 });
    // The session list marks the session as running while it runs.
    const runningMark = page.getByRole("complementary").getByText("running ·");
    await runningMark.waitFor({ timeout: 10_000 });

    await stopLatheServe(world().child);

    const banner = page.getByRole("alert").filter({ hasText: /connection to lathe serve/i });
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.innerText()).toMatch(/start it again/i);
    expect(await page.locator("header.topbar").getByRole("status").innerText()).toBe("Not connected");
    // The run can no longer end by itself: it is shown as interrupted, and the chat is usable.
    await chat.turnEnded();
    await chat.conversation().getByText("This run was interrupted before it finished.").waitFor();
    expect(
      await chat
        .conversation()
        .getByText(/waiting for the model/)
        .count(),
    ).toBe(0);
    expect(await page.getByRole("button", { name: "New chat" }).isEnabled()).toBe(true);
    // Nor does the session list claim a run this page can no longer follow.
    await runningMark.waitFor({ state: "hidden", timeout: 5_000 });
    await page.screenshot({ path: path.join(SHOTS, "ui-connection-lost-chat.png") });

    // Another view's request fails with a sentence, not the name of an API channel.
    await goTo(page, "Audit");
    await page.getByRole("button", { name: "Refresh" }).click();
    const audit = page.getByRole("region", { name: "Audit trail" });
    const error = audit.getByRole("alert");
    await expect.poll(() => error.innerText(), { timeout: 10_000 }).toMatch(/lathe serve/);
    expect(await error.innerText()).not.toMatch(/audit\.query/);
    // No "no tool calls yet" beside the failure: the view does not know that.
    expect(await audit.getByText(/No tool calls in/).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-connection-lost-audit.png") });
    const unexpected = world().problems.filter((p) => !/ERR_CONNECTION_REFUSED/.test(p));
    expect(unexpected, unexpected.join("\n")).toEqual([]);
  }, 60_000);
});
