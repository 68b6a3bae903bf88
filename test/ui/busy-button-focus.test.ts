// A button pressed from the keyboard that its own action disables while it runs (Refresh, Check
// again, Look again) keeps the keyboard: once it is done, the keyboard is on it again, to press it
// once more or Tab on from there. The browser takes the keyboard from a button as it is disabled,
// and it fell to the page itself, where the next Tab starts over at the header.
// `lathe serve` with the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const runUi = runsUi("busy button focus");
const SHOTS = path.join(REPO, "test-results");

let page: Page;

/** The focused element's accessible name (its label, else its text). */
const focused = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    if (!element || element === body) return "nothing: the page itself";
    return (element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
  });

useUiWorld(runUi, { prefix: "busy-focus", viewport: { width: 1100, height: 800 } }, (started) => {
  page = started.page;
});

describe.skipIf(!runUi)("a button that is busy with its own action", () => {
  it.each([
    { view: "Audit", section: undefined, label: "Refresh" },
    { view: "Settings", section: "Sandbox", label: "Check again" },
    { view: "Settings", section: "Models", label: "Look again" },
  ])("$view: $label keeps the keyboard", async ({ view, section, label }) => {
    await goTo(page, view, section);
    const button = page.getByRole("main").getByRole("button", { name: label, exact: true });
    await button.and(page.locator(":enabled")).waitFor({ timeout: 10_000 });
    await button.focus();
    await page.keyboard.press("Enter");
    // Done: the button is back, enabled, under its own name.
    await button.and(page.locator(":enabled")).waitFor({ timeout: 10_000 });
    await expect.poll(focused).toBe(label);
    await page.keyboard.press("Enter");
    await button.and(page.locator(":enabled")).waitFor({ timeout: 10_000 });
    await expect.poll(focused).toBe(label);
  });
});

// A button that stays disabled once its action is done (Save, once saved; Revert, once reverted)
// hands the keyboard on to the next control, rather than dropping it on the page.
describe.skipIf(!runUi)("a button that stays disabled once its action is done", () => {
  const yours = () => page.getByRole("region", { name: "Your rules" });
  const addRule = async () => {
    await yours().getByRole("button", { name: "Add rule" }).click();
    const row = yours().getByRole("row").last();
    await row.getByRole("combobox", { name: "Permission" }).fill("bash");
    await row.getByRole("textbox", { name: "Pattern" }).fill("git status");
  };
  it.each([
    {
      label: "Save approvals",
      scope: () => page.getByRole("main"),
      change: () => page.getByRole("radio", { name: /^Allowlist/ }).check(),
      done: () => page.getByRole("status").getByText("Saved in your settings").waitFor({ timeout: 10_000 }),
    },
    {
      label: "Save your rules",
      scope: yours,
      change: addRule,
      done: () => yours().getByRole("status").waitFor({ timeout: 10_000 }),
    },
    {
      label: "Revert",
      scope: yours,
      change: addRule,
      // Reverting is done at once.
      done: async () => undefined,
    },
  ])(
    "Settings → Permissions: $label moves the keyboard on to the next control",
    async ({ label, scope, change, done }) => {
      await goTo(page, "Settings", "Permissions");
      await change();
      const button = scope().getByRole("button", { name: label, exact: true });
      await button.focus();
      await page.keyboard.press("Enter");
      await done();
      await button.and(page.locator(":disabled")).waitFor({ timeout: 10_000 });
      await expect.poll(focused).not.toBe("nothing: the page itself");
      // The keyboard is on a control after the button.
      const after = await button.evaluate((source) => {
        const active = source.ownerDocument.activeElement!;
        return Boolean(source.compareDocumentPosition(active) & source.DOCUMENT_POSITION_FOLLOWING);
      });
      expect(after).toBe(true);
      await page.screenshot({
        path: path.join(SHOTS, `ui-done-button-focus-${label.replaceAll(" ", "-")}.png`),
      });
    },
  );
});
