// Tools → Run a tool and Audit at 200 % zoom (a 1280 × 860 window shows 640 × 430 CSS pixels):
// `lathe serve` on a project, the page in Debian's Chromium. Every row of the parameters table
// and of the audit trail is whole inside the view, wrapped to its width: nothing is cut at the
// right edge, and the view never needs scrolling sideways. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("zoomed views");
const DEEP = "docs/a-folder-with-a-rather-long-name/and-another-one-below-it/notes-that-are-not-there.md";

let page: Page;

/**
 * What inside `locator` a person cannot reach: each element drawn (partly) right of the main
 * view's visible edge, or of a box that cuts off what overflows it, with its text; and whether
 * the main view itself overflows sideways.
 */
function outOfReach(locator: Locator): Promise<string[]> {
  return locator.evaluate((root) => {
    const main = root.closest("main")!;
    const found: string[] = [];
    if (main.scrollWidth > main.clientWidth + 1)
      found.push(`the view scrolls sideways: ${main.scrollWidth} > ${main.clientWidth}`);
    const limit = main.getBoundingClientRect().right;
    for (const element of [root, ...root.querySelectorAll("*")]) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      let right = limit;
      for (let up = element.parentElement; up && up !== main; up = up.parentElement) {
        const style = up.ownerDocument.defaultView!.getComputedStyle(up);
        if (style.overflowX === "auto" || style.overflowX === "scroll") break; // reachable by scrolling it
        if (style.overflowX !== "visible") right = Math.min(right, up.getBoundingClientRect().right);
      }
      if (box.right > right + 1) {
        const text = (element.textContent ?? "").trim().slice(0, 40);
        found.push(
          `<${element.tagName.toLowerCase()} class="${element.className}"> "${text}" ends at ${Math.round(box.right)} > ${Math.round(right)}`,
        );
      }
    }
    return found;
  });
}

const world = useUiWorld(
  runUi,
  {
    prefix: "zoomed-views",
    prepare: async ({ root }) => writeFile(path.join(root, "README.md"), "# zoomed\n"),
    viewport: { width: 640, height: 430 },
  },
  async (started) => {
    page = started.page;
    await goTo(page, "Tools", "Run a tool");
  },
);

describe.skipIf(!runUi)("Run a tool and Audit at 200 % zoom", () => {
  it("shows every column of the parameters table within the view", async () => {
    await page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: /^grep\b/ })
      .click();
    const table = page.getByRole("table", { name: "Parameters" });
    await table.waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(SHOTS, "ui-zoomed-workbench.png") });
    await table.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-zoomed-parameters.png") });
    expect(await outOfReach(table)).toEqual([]);
    // The longest type (an enum of three strings) is there whole, if wrapped.
    const mode = table.getByRole("row").filter({ hasText: "output_mode" });
    expect((await mode.innerText()).replace(/\s+/g, "")).toContain('"files_with_matches"|"content"|"count"');
    // The rest of the workbench too: the tool list, the arguments, the Run button.
    expect(await outOfReach(page.locator(".layout"))).toEqual([]);
    expect(world().problems).toEqual([]);
  });

  it("shows every audit row whole: its time, tool, call, outcome and duration, and its details", async () => {
    await runTool(page, "read", { path: "README.md" });
    await page.getByLabel("Envelope", { exact: true }).waitFor({ timeout: 10_000 });
    await runTool(page, "read", { path: DEEP });
    await expect.poll(() => page.getByLabel("Error text", { exact: true }).innerText()).toMatch(/notes-that/);

    await goTo(page, "Audit");
    const calls = page.getByRole("list", { name: "Calls" }).getByRole("listitem");
    await expect
      .poll(() => calls.getByLabel("Outcome").allInnerTexts(), { timeout: 10_000 })
      .toEqual(["error", "ok"]);
    const failed = calls.first();
    const head = failed.getByRole("button", { expanded: false });
    // Every part of the row's line is on screen with some width: the call's summary is not squeezed to nothing.
    for (const part of ["audit-time", "audit-tool", "audit-args", "badge", "audit-duration"]) {
      const box = await head.locator(`.${part}`).boundingBox();
      expect(box?.width ?? 0, part).toBeGreaterThan(20);
    }
    expect(await outOfReach(page.getByRole("region", { name: "Audit trail" }))).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, "ui-zoomed-audit.png") });
    // The filters and the rows reach the trail's edges, as in a wide window: they sat in a box
    // inset from the frame, the failed call's red edge floating inside it.
    const trail = await page.getByRole("region", { name: "Audit trail" }).evaluate((el) => {
      const inner = el.getBoundingClientRect();
      const style = el.ownerDocument.defaultView!.getComputedStyle(el);
      return { left: inner.left + Number.parseFloat(style.borderLeftWidth) };
    });
    for (const part of [page.getByRole("group", { name: "Filters" }), failed]) {
      const box = await part.boundingBox();
      expect(box?.x).toBeCloseTo(trail.left, 0);
    }

    await head.click();
    const chain = failed.getByRole("list", { name: "Decisions" });
    await chain.waitFor();
    await chain.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-zoomed-audit-open.png") });
    expect(await outOfReach(page.getByRole("region", { name: "Audit trail" }))).toEqual([]);
    expect(await failed.innerText()).toContain(DEEP);
    expect(world().problems).toEqual([]);
  });
});
