// The trust dialog of a folder with no settings of its own, opened from the command palette's
// "Review trust for this folder…": it says the folder asks for nothing, without speaking of deny
// rules the folder does not have. `lathe serve` on a bare folder, the page in Debian's Chromium.
// Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("trust, bare folder");

let page: Page;

const world = useUiWorld(
  runUi,
  {
    prefix: "trust-bare",
    prepare: ({ root }) => writeFile(path.join(root, "README.md"), "# no .lathe folder here\n"),
    viewport: { width: 900, height: 700 },
    waitForPrompt: true,
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("reviewing trust for a folder with no settings", () => {
  it("says it asks for nothing, and names no deny rules", async () => {
    await page.keyboard.press("Control+k");
    await page.getByRole("dialog", { name: "Command palette" }).waitFor();
    await page.keyboard.type("Review trust");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Trust this folder?" });
    await dialog.waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(SHOTS, "ui-trust-bare-folder.png") });
    const text = await dialog.innerText();
    expect(text).toContain(`${world().root} asks for nothing; trusting it changes nothing today.`);
    // It said "nothing beyond deny rules" of a folder that has none.
    expect(text).not.toMatch(/deny rule/);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
