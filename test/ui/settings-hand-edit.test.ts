// Settings edited by hand while `lathe serve` runs, seen in Debian's Chromium: a file broken by
// the edit (a trailing comma) puts a notice under the header naming the file, the line and the
// fix, the app going on with the settings it read before; fixed, the notice goes and the new
// settings apply. Needs `npm run build` first.
import path from "node:path";
import { writeFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, fixtureProviders, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("settings edited by hand");

let page: Page;
let providers: unknown;
const notices = () => page.getByRole("list", { name: "Notices" }).getByRole("listitem");
const shown = async () => (await notices().allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());

const world = useUiWorld(
  runUi,
  {
    prefix: "settings-hand-edit",
    prepare: async ({ home }) => {
      providers = await fixtureProviders();
      await writeFile(path.join(home, "settings.json"), JSON.stringify({ providers }, null, 2));
    },
    waitForPrompt: true,
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("settings.json edited by hand while the app runs", () => {
  it("says under the header why a broken edit is not applied, and takes the notice down once the file is fixed", async () => {
    const file = path.join(world().home, "settings.json");
    await writeFile(
      file,
      `{\n  "providers": ${JSON.stringify(providers)},\n  "permissions": [\n    { "permission": "read", "pattern": "secrets/**", "action": "deny" },\n  ]\n}\n`,
    );
    await expect
      .poll(async () => (await shown()).find((t) => t.startsWith("Your settings changed")), {
        timeout: 10_000,
      })
      .toMatch(
        /cannot apply them, so it goes on with the settings it read before: .*settings\.json is not valid JSON: line 4, column 72: a comma after the last entry: JSON allows none there; remove it\./,
      );
    await page.screenshot({ path: path.join(SHOTS, "ui-settings-hand-edit-broken.png") });

    await writeFile(
      file,
      JSON.stringify({
        providers,
        permissions: [{ permission: "read", pattern: "secrets/**", action: "deny" }],
      }),
    );
    await expect
      .poll(async () => (await shown()).filter((t) => t.startsWith("Your settings changed")), {
        timeout: 10_000,
      })
      .toEqual([]);
    expect(world().problems).toEqual([]);
  });
});
