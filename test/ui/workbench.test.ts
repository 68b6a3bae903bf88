// Tools → Run a tool, as a person uses it for a call that does not end and for one that prints a
// lot: `lathe serve` on a project in yolo mode, the page in Debian's Chromium. While a call runs,
// the last call's result is not shown as if it were this one's, and Stop ends the call (its
// process too) so the workbench can run the next. A huge output shows as its lines, its head only,
// with what is left out and where the whole of it is. Needs `npm run build` first.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("workbench");
// An odd duration, so the process it starts can be told from any other `sleep` on the machine.
const SLEEP = "sleep 613.37";

let page: Page;

/** Whether a process whose command line holds `text` is running. */
async function processRunning(text: string): Promise<boolean> {
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.replaceAll("\0", " ").includes(text)) return true;
  }
  return false;
}

const result = () => page.getByRole("region", { name: "Result" });

async function runBash(command: string): Promise<void> {
  await page.getByLabel("Arguments (JSON)").fill(JSON.stringify({ command }));
  await page.getByRole("button", { name: "Run bash" }).click();
}

const world = useUiWorld(
  runUi,
  {
    prefix: "workbench",
    prepare: async ({ home }) => {
      const { writeFile } = await import("node:fs/promises");
      await writeFile(path.join(home, "settings.json"), JSON.stringify({ approvals: { mode: "yolo" } }));
    },
    viewport: { width: 1280, height: 1000 },
  },
  async (started) => {
    page = started.page;
    await goTo(page, "Tools", "Run a tool");
    await page.getByRole("list", { name: "Tools" }).getByRole("button", { name: /^bash/ }).click();
  },
);

describe.skipIf(!runUi)("the workbench with a call that does not end", () => {
  it("drops the last result while a call runs, and Stop ends the call and its process", async () => {
    await runBash("echo first call");
    await expect.poll(() => result().innerText()).toContain("first call");

    await runBash(SLEEP);
    const stop = page.getByRole("button", { name: "Stop", exact: true });
    await stop.waitFor({ timeout: 10_000 });
    await expect.poll(() => processRunning(SLEEP), { timeout: 10_000 }).toBe(true);
    // The first call's output is not this call's: it must not stand under "Result" meanwhile.
    expect(await result().innerText()).not.toContain("first call");
    expect(await result().innerText()).toContain("Running bash…");
    await page.screenshot({ path: path.join(SHOTS, "ui-workbench-running.png") });

    await stop.click();
    await expect
      .poll(() => result().innerText(), { timeout: 10_000 })
      .toMatch(/bash was aborted: stopped by the person/);
    await page.screenshot({ path: path.join(SHOTS, "ui-workbench-stopped.png") });
    await stop.waitFor({ state: "detached" });
    await expect.poll(() => processRunning(SLEEP), { timeout: 10_000 }).toBe(false);

    // The workbench is free again: the next call runs and shows its own result.
    await runBash("echo after the stop");
    await expect.poll(() => result().innerText()).toContain("after the stop");
    expect(world().problems).toEqual([]);
  });
});

describe.skipIf(!runUi)("the workbench with a huge output", () => {
  it("shows the output as lines, draws its head only, and says how much is left out and where it all is", async () => {
    await runBash("seq 1 300000");
    const output = result().getByLabel("output", { exact: true });
    await output.waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(SHOTS, "ui-workbench-huge-output.png") });
    // Its lines, as the command printed them: not one JSON string full of escaped newlines.
    const shown = await output.innerText();
    expect(shown.startsWith("1\n2\n3\n")).toBe(true);
    expect(shown).not.toContain("\\n");
    // The envelope's other fields are there to read beside it.
    expect(await result().getByLabel("Fields", { exact: true }).innerText()).toMatch(/exit_code\s+0/);
    // Only the head is drawn (the envelope holds 200 KB of it), and the page says what is not.
    expect(shown.trimEnd().split("\n")).toHaveLength(1_000);
    const note = result().getByRole("note", { name: "output: not shown" });
    expect(await note.innerText()).toMatch(
      /^1,000 of the result's [\d,]+ lines shown; [\d,]+ more \([\d,.]+ K characters\) not drawn here\. The output was cut: [\d,]+ lines \([\d.]+ [KM]B\) in its middle are left out; its head and its last lines are shown\. All of it is in \//,
    );
    await note.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-workbench-huge-output-end.png") });
    const whole = await note.locator("code").innerText();
    // Said in that one line only: no second note repeats it.
    expect(await result().getByRole("note", { name: "Left out" }).count()).toBe(0);
    expect(whole.startsWith(world().home)).toBe(true);
    expect((await readFile(whole, "utf8")).endsWith("\n300000\n")).toBe(true);
    // More is a click away, a page at a time.
    await note.getByRole("button", { name: "Show 1,000 more lines" }).click();
    await expect.poll(async () => (await output.innerText()).trimEnd().split("\n").length).toBe(2_000);
    // And the page still answers at once: the arguments take typing.
    await page.getByLabel("Arguments (JSON)").fill('{"command":"echo still here"}');
    expect(await page.getByLabel("Arguments (JSON)").inputValue()).toContain("still here");
    expect(world().problems).toEqual([]);
  });
});

describe.skipIf(!runUi)("the workbench in a wide window", () => {
  it("starts the tool list and the tool beside it on one line", async () => {
    const list = await page.getByRole("navigation", { name: "Tools" }).boundingBox();
    const tool = await page.locator(".workspace > .panel").first().boundingBox();
    if (!list || !tool) throw new Error("the tool list or the tool is not on screen");
    // The list began 4 px above the tool's frame.
    expect(list.y).toBeCloseTo(tool.y, 0);
  });

  it("keeps each parameter's type whole on one line", async () => {
    await page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: /^read\b/ })
      .click();
    const table = page.getByRole("table", { name: "Parameters" });
    await table.getByRole("row").filter({ hasText: "offset" }).waitFor({ timeout: 10_000 });
    await table.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-workbench-parameters.png") });
    // The Type column was squeezed to a few letters beside long descriptions: "strin|g", "integ|er".
    for (const type of await table.locator("tbody td:nth-child(2) code").all()) {
      const lines = await type.evaluate((el) => el.getClientRects().length);
      expect(lines, await type.innerText()).toBe(1);
    }
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
