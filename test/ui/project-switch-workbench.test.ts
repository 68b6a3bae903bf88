// Tools → Run a tool after opening another folder: the Result and the Activity belong to the
// folder they were run in. They stayed on screen after the switch, so the new folder's workbench
// showed a read of a file it does not have, and its Activity listed a call its Audit did not know.
// `lathe serve` on one folder, the page in Debian's Chromium, the other folder opened by its path.
// Needs `npm run build` first.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-project-switch-workbench.png");
const runUi = runsUi("project switch workbench");
const MARK = "only-in-the-first-folder";

let page: Page;
let second: string;

const panel = (heading: string) =>
  page.locator("section, .panel").filter({ has: page.getByRole("heading", { name: heading, exact: true }) });

useUiWorld(
  runUi,
  {
    prefix: "switch-workbench",
    rootName: "first",
    prepare: async ({ base, root }) => {
      await writeFile(path.join(root, "README.md"), `# ${MARK}\n`);
      second = path.join(base, "second");
      await mkdir(second);
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("the workbench after opening another folder", () => {
  it("drops the old folder's result and activity", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "read", { path: "README.md" });
    await panel("Result").getByText(MARK).waitFor({ timeout: 10_000 });
    await panel("Activity").getByText("read", { exact: true }).waitFor();

    await page
      .getByRole("banner")
      .getByRole("button", { name: /^Project / })
      .click();
    const dialog = page.getByRole("dialog", { name: "Open a folder" });
    await dialog.getByRole("textbox", { name: "Folder path" }).fill(second);
    await dialog.getByRole("button", { name: "Open", exact: true }).click();
    await page
      .getByRole("banner")
      .getByRole("button", { name: `Project ${second}: open another folder` })
      .waitFor();
    // A first open may ask for trust; this folder asks for nothing, but close it if it shows.
    const trust = page.getByRole("dialog", { name: "Trust this folder?" });
    if (await trust.isVisible()) await page.keyboard.press("Escape");

    await goTo(page, "Tools", "Run a tool");
    await page.screenshot({ path: SHOT });
    expect(await panel("Result").innerText()).toContain("Run a tool to see its result envelope here.");
    expect(await panel("Result").innerText()).not.toContain(MARK);
    expect(await panel("Activity").innerText()).toContain("Tool calls appear here as they start and finish.");
  });
});
