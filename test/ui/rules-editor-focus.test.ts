// Settings → Permissions → Your rules from the keyboard alone: Add rule puts the keyboard in the
// new row's Permission field, to type the rule at once; Remove puts it on the Remove of the row
// that took the removed one's place (or the one above it), and on Add rule once no row is left.
// Add rule kept the keyboard on itself, below the row, and a removed row's Remove took the keyboard
// with it, to the page itself. `lathe serve` with a temp $LATHE_HOME, the page in Debian's
// Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-rules-editor-focus.png");
const runUi = runsUi("rules editor focus");

let page: Page;
const yours = () => page.getByRole("region", { name: "Your rules" });

/** The focused element's label, and the row of the rules table it is in. */
const focused = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    if (!element || element === body) return "nothing: the page itself";
    const row = element.closest("tr")?.getAttribute("aria-label");
    const name = (element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
    return row ? `${row}: ${name}` : name;
  });

async function press(name: string): Promise<void> {
  await yours().getByRole("button", { name, exact: true }).focus();
  await page.keyboard.press("Enter");
}

useUiWorld(
  runUi,
  {
    prefix: "rules-focus",
    viewport: { width: 1100, height: 900 },
  },
  async (started) => {
    page = started.page;
    await goTo(page, "Settings", "Permissions");
    await yours().getByText("No rules yet.").waitFor({ timeout: 10_000 });
  },
);

describe.skipIf(!runUi)("editing your rules from the keyboard", () => {
  it("puts the keyboard in a new row, and where a removed row was", async () => {
    await press("Add rule");
    await expect.poll(focused).toBe("Your rules 1: Permission");
    await page.keyboard.type("bash");
    await press("Add rule");
    await expect.poll(focused).toBe("Your rules 2: Permission");
    await page.keyboard.type("write");
    await press("Add rule");
    await page.keyboard.type("fetch");
    await page.screenshot({ path: SHOT });
    expect(
      await yours()
        .locator(`input[aria-label="Permission"]`)
        .evaluateAll((fields) => fields.map((field) => (field as unknown as { value: string }).value)),
    ).toEqual(["bash", "write", "fetch"]);

    // The middle row: the one after it moves up into its place and its Remove has the keyboard.
    await press("Remove rule 2");
    await expect.poll(focused).toBe("Your rules 2: Remove rule 2");
    // The last row: the one above it.
    await press("Remove rule 2");
    await expect.poll(focused).toBe("Your rules 1: Remove rule 1");
    // The only row: Add rule.
    await press("Remove rule 1");
    await expect.poll(focused).toBe("Add rule");
  });
});
