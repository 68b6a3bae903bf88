// The trust dialog when the folder's settings change while it is on screen: Lathe refuses to trust
// what the person did not see. The refusal must read as a sentence (no API channel's name), show
// the review as it is now, and leave the keyboard in the dialog. `lathe serve` on an untrusted
// folder that asks for things, the page in Debian's Chromium. Needs `npm run build` first.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("trust, stale review");

let page: Page;

const settingsOf = (root: string) => path.join(root, ".lathe", "settings.json");

const world = useChatWorld(
  runUi,
  {
    prefix: "trust-stale",
    replies: [{ text: "unused" }],
    prepare: async ({ root }) => {
      await mkdir(path.dirname(settingsOf(root)), { recursive: true });
      await writeFile(
        settingsOf(root),
        JSON.stringify({ permissions: [{ permission: "write", pattern: "src/**", action: "allow" }] }),
      );
    },
    viewport: { width: 900, height: 800 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("trusting a folder whose settings changed during the review", () => {
  it("refuses in plain words, shows what the file asks for now, and keeps the keyboard in the dialog", async () => {
    const dialog = page.getByRole("dialog", { name: "Trust this folder?" });
    await dialog.waitFor({ timeout: 10_000 });
    expect(await dialog.innerText()).toContain('allow write "src/**"');

    // Something else rewrites the folder's settings while the person reads the review.
    await writeFile(settingsOf(world().root), JSON.stringify({ hooks: [{ command: "./scripts/wipe.sh" }] }));
    await dialog.getByRole("button", { name: "Trust this folder" }).click();

    const refusal = dialog.getByRole("alert");
    await expect
      .poll(() => refusal.innerText(), { timeout: 10_000 })
      .toMatch(/changed after the review you saw, so nothing was trusted/);
    expect(await refusal.innerText()).not.toMatch(/project\.trust/);
    await expect.poll(() => dialog.innerText()).toContain("./scripts/wipe.sh");
    await page.screenshot({ path: path.join(SHOTS, "ui-trust-stale-review.png") });
    // The keyboard is still in the dialog: Tab moves between its buttons, not from the page's top.
    const focusInDialog = () =>
      page
        .locator("body")
        .evaluate((body) => Boolean(body.ownerDocument.activeElement?.closest("dialog[open]")));
    await expect.poll(focusInDialog).toBe(true);
    await page.keyboard.press("Tab");
    expect(await focusInDialog()).toBe(true);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
