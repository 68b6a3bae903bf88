// A button pressed from the keyboard that its own action disables while it runs (Refresh, Check
// again, Look again) keeps the keyboard: once it is done, the keyboard is on it again, to press it
// once more or Tab on from there. The browser takes the keyboard from a button as it is disabled,
// and it fell to the page itself, where the next Tab starts over at the header.
// `lathe serve` with the page in Debian's Chromium. Needs `npm run build` first.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const runUi = runsUi("busy button focus");

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
