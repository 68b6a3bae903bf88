// The audit trail in a window 800 px wide, where each call's row puts its time, tool, outcome and
// duration on one line and the call under them: the outcomes form a column, whatever the width of
// each duration. `lathe serve` in yolo mode, calls run from Tools → Run a tool, the page in
// Debian's Chromium. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("audit, narrow");

let page: Page;

const world = useUiWorld(
  runUi,
  {
    prefix: "audit-narrow",
    prepare: async ({ root, home }) => {
      await writeFile(path.join(root, "README.md"), "# audit\n");
      await writeFile(path.join(home, "settings.json"), JSON.stringify({ approvals: { mode: "yolo" } }));
    },
    viewport: { width: 800, height: 700 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("the audit trail in a narrow window", () => {
  it("lines up each call's outcome in one column, however long its duration reads", async () => {
    await goTo(page, "Tools", "Run a tool");
    await page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: /^read\b/ })
      .waitFor({ timeout: 10_000 });
    // A quick call ("3 ms") and a slower one ("5xx ms"): durations of different widths.
    await runTool(page, "read", { path: "README.md" });
    await page.getByLabel("Envelope", { exact: true }).waitFor({ timeout: 10_000 });
    await runTool(page, "bash", { command: "sleep 0.5" });
    await expect
      .poll(() => page.getByRole("region", { name: "Result" }).innerText(), { timeout: 10_000 })
      .toMatch(/exit_code/);

    await goTo(page, "Audit");
    const calls = page.getByRole("list", { name: "Calls" }).getByRole("listitem");
    await expect
      .poll(() => calls.getByLabel("Outcome").allInnerTexts(), { timeout: 10_000 })
      .toEqual(["ok", "ok"]);
    await page.screenshot({ path: path.join(SHOTS, "ui-audit-narrow.png") });
    const durations = await calls.locator(".audit-duration").allInnerTexts();
    expect(durations[0]).toMatch(/^\d{3} ms$/);
    const rights = [];
    for (const outcome of await calls.getByLabel("Outcome").all()) {
      const box = await outcome.boundingBox();
      if (!box) throw new Error("an outcome is not on screen");
      rights.push(box.x + box.width);
    }
    // Each outcome ended where its own duration began: "ok" of the slower call stood further left.
    expect(rights[0], durations.join(" / ")).toBeCloseTo(rights[1]!, 0);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
