// A button pressed from the keyboard that its own action takes away leaves the keyboard at the
// start of the view (its heading), not on the page itself, where the next Tab starts over at the
// header: Extensions → Plugins' "Trust this folder" goes once the folder is trusted.
// `lathe serve` on a project with a plugin of its own, the page in Debian's Chromium.
// Needs `npm run build` first.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-vanishing-button-focus.png");
const runUi = runsUi("vanishing button focus");

let page: Page;
let problems: string[];

/** The focused element's accessible name (its label, else its text). */
const focused = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    if (!element || element === body) return "nothing: the page itself";
    return (element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
  });

useUiWorld(
  runUi,
  {
    prefix: "vanishing-focus",
    prepare: async ({ root }) => {
      const plugin = path.join(root, ".lathe", "tools", "shout");
      await mkdir(plugin, { recursive: true });
      await writeFile(
        path.join(plugin, "tool.yaml"),
        [
          "name: shout",
          "version: 1.0.0",
          "description: Says it loudly.",
          "input_schema:",
          "  type: object",
          "  properties: {}",
          "readOnly: true",
          "gated: false",
          "",
        ].join("\n"),
      );
      await writeFile(
        path.join(plugin, "index.js"),
        'export async function execute() {\n  return "HI";\n}\n',
      );
    },
    viewport: { width: 1100, height: 800 },
  },
  (started) => {
    ({ page, problems } = started);
  },
);

describe.skipIf(!runUi)("a button its action takes away", () => {
  it("Trust this folder, once trusted, leaves the keyboard at the view's heading", async () => {
    const trust = page.getByRole("dialog", { name: "Trust this folder?" });
    await trust.waitFor({ timeout: 10_000 });
    await trust.getByRole("button", { name: "Not now" }).click();
    await trust.waitFor({ state: "hidden" });
    await goTo(page, "Extensions", "Plugins");
    const waiting = page.getByRole("note", { name: "Project plugins wait for trust" });
    await waiting.waitFor({ timeout: 10_000 });
    await waiting.getByRole("button", { name: "Trust this folder" }).focus();
    await page.keyboard.press("Enter");
    await waiting.waitFor({ state: "detached", timeout: 15_000 });
    await expect.poll(focused).toBe("Extensions");
    await page.screenshot({ path: SHOT });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
