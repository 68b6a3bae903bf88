// Settings → Permissions open in two browser tabs on one `lathe serve` (or the file edited by hand
// while the view is open): a save from the tab that loaded the file before the other tab changed
// it must not silently drop what the other tab saved. It is refused with what to do, the file
// keeps both tabs' work reachable, and after Revert the save goes through. Needs `npm run build`.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, openWatchedPage, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("settings in two tabs");

let first: Page;
let second: Page;

const yours = (page: Page) => page.getByRole("region", { name: "Your rules" });
const settingsFile = async () =>
  JSON.parse(await readFile(path.join(world().home, "settings.json"), "utf8")) as Record<string, unknown>;

/** Add a bash rule with `pattern` as the last row of "Your rules" (not saved). */
async function addRule(page: Page, pattern: string): Promise<void> {
  await yours(page).getByRole("button", { name: "Add rule" }).click();
  const row = yours(page).getByRole("row").last();
  await row.getByRole("combobox", { name: "Permission" }).fill("bash");
  await row.getByRole("textbox", { name: "Pattern" }).fill(pattern);
}

const world = useChatWorld(
  runUi,
  {
    prefix: "settings-tabs",
    replies: [{ text: "unused" }],
    viewport: { width: 1100, height: 1000 },
  },
  async (started) => {
    first = started.page;
    second = await openWatchedPage(started.browser, started.problems, { width: 1100, height: 1000 });
    await second.goto(started.url);
    for (const page of [first, second]) {
      await goTo(page, "Settings", "Permissions");
      await yours(page).getByText("No rules yet.").waitFor({ timeout: 10_000 });
    }
  },
);

describe.skipIf(!runUi)("Settings → Permissions in two tabs", () => {
  it("refuses to save rules over ones another tab saved since, and saves after Revert", async () => {
    await addRule(first, "git *");
    await yours(first).getByRole("button", { name: "Save your rules" }).click();
    await expect
      .poll(async () => (await settingsFile())["permissions"], { timeout: 10_000 })
      .toEqual([{ permission: "bash", pattern: "git *", action: "ask" }]);

    // The second tab still shows the file as it was when it loaded: no rules.
    await addRule(second, "ls *");
    await yours(second).getByRole("button", { name: "Save your rules" }).click();
    const problem = yours(second).getByRole("alert");
    await expect
      .poll(() => problem.innerText(), { timeout: 10_000 })
      .toMatch(/changed since this view read it .*Revert/s);
    await second.screenshot({ path: path.join(SHOTS, "ui-settings-two-tabs-refused.png") });
    // The first tab's rule is still in the file.
    expect((await settingsFile())["permissions"]).toEqual([
      { permission: "bash", pattern: "git *", action: "ask" },
    ]);

    // Revert shows the file as it is now; a change made on top of it saves.
    await yours(second).getByRole("button", { name: "Revert" }).click();
    await expect
      .poll(() => yours(second).getByRole("textbox", { name: "Pattern" }).first().inputValue())
      .toBe("git *");
    await addRule(second, "ls *");
    await yours(second).getByRole("button", { name: "Save your rules" }).click();
    await expect
      .poll(async () => (await settingsFile())["permissions"], { timeout: 10_000 })
      .toEqual([
        { permission: "bash", pattern: "git *", action: "ask" },
        { permission: "bash", pattern: "ls *", action: "ask" },
      ]);
    expect(await yours(second).getByRole("alert").count()).toBe(0);
    await second.screenshot({ path: path.join(SHOTS, "ui-settings-two-tabs-saved.png") });
  });

  it("refuses to save the approval mode over one another tab saved since", async () => {
    await first.getByRole("radio", { name: /^Allowlist/ }).check();
    await first.getByRole("button", { name: "Save approvals" }).click();
    await expect
      .poll(async () => (await settingsFile())["approvals"], { timeout: 10_000 })
      .toEqual({ mode: "allowlist" });

    await second.getByRole("radio", { name: /^Yolo/ }).check();
    await second.getByRole("button", { name: "Save approvals" }).click();
    const approvals = second.getByRole("region", { name: "Approvals" });
    await expect
      .poll(() => approvals.getByRole("alert").innerText(), { timeout: 10_000 })
      .toMatch(/changed since this view read it/);
    expect((await settingsFile())["approvals"]).toEqual({ mode: "allowlist" });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
