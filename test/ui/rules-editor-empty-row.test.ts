// Settings → Permissions → Your rules, a row just added: it says nothing is wrong before the
// person typed anything, and its Permission placeholder fits the field. The empty row said
// "name a tool, a capability or *" in red at once, and its placeholder was cut off. The error
// shows once the person left the field empty, or tried to save. `lathe serve` with a temp
// $LATHE_HOME, the page in Debian's Chromium. Needs `npm run build` first.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("rules editor empty row");
const ERROR = /name a tool, a capability or \*/;

let page: Page;
let home: string;
let problems: string[];
const yours = () => page.getByRole("region", { name: "Your rules" });
const row = (n: number) => yours().getByRole("row", { name: `Your rules ${n}` });
const permission = (n: number) => row(n).getByRole("combobox", { name: "Permission" });

/** Whether a field's placeholder fits inside it (its text, measured in the field's own font). */
const placeholderFits = (n: number) =>
  permission(n).evaluate((field) => {
    const input = field as unknown as { placeholder: string; clientWidth: number };
    const document = field.ownerDocument;
    const css = document.defaultView!.getComputedStyle(field);
    const context = document.createElement("canvas").getContext("2d")!;
    context.font = `${css.fontStyle} ${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
    const room = input.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight);
    return { text: input.placeholder, width: context.measureText(input.placeholder).width, room };
  });

useUiWorld(
  runUi,
  {
    prefix: "rules-empty",
    viewport: { width: 1100, height: 900 },
  },
  async (started) => {
    ({ page, home, problems } = started);
    await goTo(page, "Settings", "Permissions");
    await yours().getByText("No rules yet.").waitFor({ timeout: 10_000 });
  },
);

describe.skipIf(!runUi)("a rule row just added", () => {
  it("shows no error before anything was typed, and a placeholder that fits", async () => {
    await yours().getByRole("button", { name: "Add rule" }).click();
    await expect.poll(() => permission(1).evaluate((f) => f === f.ownerDocument.activeElement)).toBe(true);
    // Give the live check time to answer: it must not paint the untouched row red.
    await page.waitForTimeout(600);
    expect(await row(1).innerText()).not.toMatch(ERROR);
    expect(await permission(1).getAttribute("aria-invalid")).toBe("false");
    const fit = await placeholderFits(1);
    expect(fit.text.length).toBeGreaterThan(0);
    expect(fit.width, `"${fit.text}" is ${fit.width}px in ${fit.room}px`).toBeLessThanOrEqual(fit.room);
    await page.screenshot({ path: path.join(SHOTS, "ui-rules-empty-row.png") });

    // Left empty: now it says what is wrong.
    await row(1).getByRole("textbox", { name: "Pattern" }).focus();
    await expect.poll(() => row(1).innerText()).toMatch(ERROR);
    expect(await permission(1).getAttribute("aria-invalid")).toBe("true");
    await page.screenshot({ path: path.join(SHOTS, "ui-rules-empty-row-left.png") });
  });

  it("says what is wrong with an untouched empty row when the person tries to save, and saves nothing", async () => {
    await permission(1).fill("bash");
    await yours().getByRole("button", { name: "Add rule" }).click();
    await page.waitForTimeout(600);
    expect(await row(2).innerText()).not.toMatch(ERROR);
    await yours().getByRole("button", { name: "Save your rules" }).click();
    await expect.poll(() => row(2).innerText()).toMatch(ERROR);
    expect(await row(1).innerText()).not.toMatch(ERROR);
    const saved = await readFile(path.join(home, "settings.json"), "utf8").catch(() => "");
    expect(saved).not.toContain('"bash"');
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("keeps the placeholder whole in a window 800 px wide", async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    try {
      await row(2).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, "ui-rules-800.png") });
      // "bash, fs.read, *" was cut to "bash, fs.r" in a column of a quarter of the table. Beside
      // the words, room for the arrow Chromium draws at the right end of a field with a list.
      const fit = await placeholderFits(2);
      const arrow = 20;
      expect(fit.width, `"${fit.text}" is ${fit.width}px in ${fit.room}px`).toBeLessThanOrEqual(
        fit.room - arrow,
      );
    } finally {
      await page.setViewportSize({ width: 1100, height: 900 });
    }
  });
});
