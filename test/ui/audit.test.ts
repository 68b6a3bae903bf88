// The Audit view as a person uses it: `lathe serve` on a folder, the page in Debian's Chromium, a
// few calls made from the tool workbench (one runs, one is rejected in the approval dialog, one
// fails), then the trail: newest first, each call's decision chain, and the filters by outcome,
// tool and session. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, fixtureProviders, goTo, runsUi } from "./serve-fixture.ts";
import { startUiWorld, type UiWorld } from "./ui-world.ts";

const SHOT = path.join(REPO, "test-results/ui-audit.png");
const runUi = runsUi("audit");

let world: UiWorld | undefined;
let page: Page;
let problems: string[];

async function runTool(toolId: string, args: unknown): Promise<void> {
  await page
    .getByRole("list", { name: "Tools" })
    .getByRole("button", { name: new RegExp(`^${toolId}\\b`) })
    .click();
  await page.getByLabel("Arguments (JSON)").fill(JSON.stringify(args));
  await page.getByRole("button", { name: `Run ${toolId}` }).click();
}

const calls = () => page.getByRole("list", { name: "Calls" }).getByRole("listitem");
const outcomes = () => calls().getByLabel("Outcome").allInnerTexts();

beforeAll(async () => {
  if (!runUi) return;
  world = await startUiWorld({
    prefix: "audit",
    prepare: async ({ root, home }) => {
      await writeFile(path.join(root, "README.md"), "# audited\n");
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ providers: await fixtureProviders() }),
      );
    },
    viewport: { width: 1280, height: 900 },
  });
  ({ page, problems } = world);
  await goTo(page, "Tools", "Run a tool");
  await page
    .getByRole("list", { name: "Tools" })
    .getByRole("button", { name: /^read\b/ })
    .waitFor({ timeout: 10_000 });
});

afterAll(() => world?.close());

describe.skipIf(!runUi)("the Audit view through lathe serve", () => {
  it("shows every call newest first, with its outcome and the stage that refused it", async () => {
    await runTool("read", { path: "README.md" });
    await page.getByLabel("Envelope", { exact: true }).waitFor({ timeout: 10_000 });
    await runTool("write", { path: "secret.txt", content: "no" });
    const dialog = page.getByRole("dialog", { name: "Allow write to run?" });
    await dialog.getByRole("button", { name: "Reject" }).click();
    await dialog.waitFor({ state: "hidden" });
    await runTool("read", { path: "missing.md" });
    await expect
      .poll(() => page.getByLabel("Error text", { exact: true }).innerText())
      .toMatch(/missing\.md/);

    await goTo(page, "Audit");
    await expect.poll(outcomes, { timeout: 10_000 }).toEqual(["failed", "denied", "ran"]);
    expect(await calls().nth(1).innerText()).toMatch(
      /write[\s\S]*secret\.txt[\s\S]*Refused at Approval: the user rejected the call/,
    );
  });

  it("opens a call on its whole decision chain, arguments and envelope", async () => {
    const write = calls().nth(1);
    await write.getByRole("button", { expanded: false }).click();
    const chain = write.getByRole("list", { name: "Decisions" });
    expect(
      (await chain.getByRole("listitem").allInnerTexts()).map((t) =>
        t.split(/\s+/).slice(0, 2).join(" ").toLowerCase(),
      ),
    ).toEqual(["capability allow", "rules ask", "watchdog allow", "approval deny"]);
    expect(await write.innerText()).toContain('"path": "secret.txt"');
    await page.screenshot({ path: SHOT });
  });

  it("filters by outcome, tool and session", async () => {
    const outcome = page.getByRole("radiogroup", { name: "Outcome" });
    await outcome.getByRole("radio", { name: "Denied" }).click();
    await expect.poll(outcomes).toEqual(["denied"]);
    await outcome.getByRole("radio", { name: "Failed" }).click();
    await expect.poll(outcomes).toEqual(["failed"]);
    await outcome.getByRole("radio", { name: "All" }).click();
    await page.getByRole("combobox", { name: "Tool" }).selectOption("read");
    await expect.poll(outcomes).toEqual(["failed", "ran"]);
    const sessions = page.getByRole("combobox", { name: "Session" });
    const options = await sessions.locator("option").allInnerTexts();
    expect(options).toHaveLength(2);
    await sessions.selectOption({ index: 1 });
    await expect.poll(outcomes).toEqual(["failed", "ran"]);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
