// Tools → Run a tool shows the result of the tool on screen only: picking another tool clears the
// last one's result. The result of bash stayed under the read tool's form ("ok from bash"), as
// if it were what read had answered. `lathe serve` in yolo mode on a temp folder, the page in
// Debian's Chromium. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("run a tool, result");

let page: Page;

const world = useUiWorld(
  runUi,
  {
    prefix: "run-tool-result",
    prepare: async ({ root, home }) => {
      await writeFile(path.join(root, "README.md"), "# result\n");
      await writeFile(path.join(home, "settings.json"), JSON.stringify({ approvals: { mode: "yolo" } }));
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("Run a tool's result", () => {
  const result = () => page.getByRole("region", { name: "Result" });
  const envelope = () => result().getByLabel("Envelope", { exact: true });
  const pick = (toolId: string) =>
    page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: new RegExp(`^${toolId}\\b`) })
      .click();

  it("goes when another tool is picked, and comes back with that tool's own run", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "bash", { command: "echo from-bash" });
    await expect.poll(() => envelope().innerText(), { timeout: 10_000 }).toMatch(/from bash[\s\S]*from-bash/);

    await pick("read");
    await page.getByRole("heading", { name: "read", exact: true }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, "ui-run-tool-result-picked.png") });
    expect(await envelope().count()).toBe(0);
    expect(await result().innerText()).not.toContain("from-bash");
    expect(await result().innerText()).toContain("Run a tool to see its result envelope here.");

    await runTool(page, "read", { path: "README.md" });
    await expect.poll(() => envelope().innerText(), { timeout: 10_000 }).toMatch(/from read[\s\S]*# result/);
    // Picking the tool already on screen keeps its result.
    await pick("read");
    expect(await envelope().innerText()).toMatch(/from read/);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  // While bash ran, picking read showed "Running…" under read's form, as if read were running.
  it("says which tool runs while another one is picked, and Stop names it", async () => {
    await pick("bash");
    await runTool(page, "bash", { command: "sleep 30" });
    await result().getByText("Running bash…").waitFor({ timeout: 10_000 });

    await pick("read");
    await page.getByRole("heading", { name: "read", exact: true }).waitFor();
    expect(await result().innerText()).toMatch(/Running bash…/);
    // The form is read's: its button is not bash's "Running…", and Stop says whose call it ends.
    expect(await page.getByRole("button", { name: "Run read" }).isDisabled()).toBe(true);
    const stop = page.getByRole("button", { name: "Stop bash" });
    await page.screenshot({ path: path.join(SHOTS, "ui-run-tool-result-running-other.png") });
    await stop.click();
    await expect
      .poll(() => result().innerText(), { timeout: 10_000 })
      .toContain("Run a tool to see its result envelope here.");
    expect(await page.getByRole("button", { name: "Run read" }).isEnabled()).toBe(true);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
