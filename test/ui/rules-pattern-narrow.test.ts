// Settings → Permissions in a window 480 px wide: a rule's Pattern field, the one holding the
// longest text (a path glob, a command prefix), gets a usable share of its row, not a sliver
// beside the Permission field, the Action select and Remove. `lathe serve` with a temp
// $LATHE_HOME, the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-rules-pattern-narrow.png");
const runUi = runsUi("rules pattern, narrow");
const PATTERN = "npm run test:*";

let page: Page;
const yours = () => page.getByRole("region", { name: "Your rules" });

const world = useUiWorld(
  runUi,
  {
    prefix: "rules-pattern-narrow",
    viewport: { width: 480, height: 800 },
  },
  async (started) => {
    page = started.page;
    await goTo(page, "Settings", "Permissions");
    await yours().getByText("No rules yet.").waitFor({ timeout: 10_000 });
  },
);

describe.skipIf(!runUi)("a rule's pattern at 480 px", () => {
  it("gets at least 40 % of the row and shows a typical pattern whole", async () => {
    await yours().getByRole("button", { name: "Add rule" }).click();
    const row = yours().getByRole("row", { name: "Your rules 1" });
    await row.getByRole("combobox", { name: "Permission" }).fill("bash");
    const pattern = row.getByRole("textbox", { name: "Pattern" });
    await pattern.fill(PATTERN);
    await pattern.evaluate((el) => el.scrollIntoView({ block: "center" }));
    await page.screenshot({ path: SHOT });
    const rowBox = await row.boundingBox();
    const patternBox = await pattern.boundingBox();
    if (!rowBox || !patternBox) throw new Error("the rule's row is not on screen");
    expect(
      patternBox.width / rowBox.width,
      `${patternBox.width} of ${rowBox.width} px`,
    ).toBeGreaterThanOrEqual(0.4);
    // The whole row stays inside the window: nothing to scroll sideways to.
    expect(rowBox.x + rowBox.width).toBeLessThanOrEqual(480);
    expect(await pattern.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
