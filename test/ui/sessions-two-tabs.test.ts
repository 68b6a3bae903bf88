// Two browser tabs on one `lathe serve`: a chat started, renamed or deleted in one tab shows in the
// other tab's session list without a reload (it is the same folder's list). The page in Debian's
// Chromium, the loopback fixture model. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, openSecondTab, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("sessions in two tabs");

let first: Page;
let second: Page;
const chat = chatHelpers(() => first);
const list = (page: Page) => page.getByRole("list", { name: "Session list" });
const titles = async (page: Page) =>
  (await list(page).count()) === 0
    ? []
    : list(page)
        .getByRole("listitem")
        .evaluateAll((items) => items.map((i) => i.getAttribute("aria-label")));

const world = useChatWorld(
  runUi,
  {
    prefix: "sessions-tabs",
    replies: [{ text: "Started." }],
    viewport: { width: 1100, height: 800 },
  },
  async (started) => {
    first = started.page;
    second = await openSecondTab(started);
  },
);

describe.skipIf(!runUi)("the session list in two tabs", () => {
  it("shows a chat another tab started, and its new name, without a reload", async () => {
    await chat.send("Plan the release");
    await chat.conversation().getByText("Started.").waitFor({ timeout: 10_000 });
    await chat.turnEnded();
    await expect.poll(() => titles(second), { timeout: 10_000 }).toEqual(["Plan the release"]);

    const row = list(first).getByRole("listitem", { name: "Plan the release" });
    await row.hover();
    await row.getByRole("button", { name: /^Rename/ }).click();
    const field = list(first).getByRole("textbox");
    await field.fill("Release plan");
    await field.press("Enter");
    await expect.poll(() => titles(second), { timeout: 10_000 }).toEqual(["Release plan"]);
    await second.screenshot({ path: path.join(SHOTS, "ui-sessions-two-tabs.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
