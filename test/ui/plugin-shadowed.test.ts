// A plugin of the user's named like a bundled one, as a person reads it in Extensions → Plugins:
// `lathe serve` with $LATHE_HOME/tools/word_count, the page in Debian's Chromium. The bundled
// word_count still loads, but its tool is not the one bound under that name; its row says so and
// names the plugin that took the name, as the Tools catalog's "shadows" says from the other side.
// Needs `npm run build` first.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, fixtureProviders, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-plugin-shadowed.png");
const runUi = runsUi("plugin shadowed");

let page: Page;

const world = useUiWorld(
  runUi,
  {
    prefix: "plugin-shadowed",
    prepare: async ({ home }) => {
      const dir = path.join(home, "tools", "word_count");
      await mkdir(dir, { recursive: true });
      await writeFile(
        path.join(dir, "tool.yaml"),
        "name: word_count\nversion: 2.0.0\ndescription: My own word count.\ninput_schema:\n  type: object\n  properties: {}\nreadOnly: true\ngated: false\n",
      );
      await writeFile(path.join(dir, "index.js"), "export async function execute() {\n  return 42;\n}\n");
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ providers: await fixtureProviders() }),
      );
    },
    viewport: { width: 1280, height: 860 },
  },
  (started) => {
    page = started.page;
  },
);

const row = (layer: string) =>
  page
    .getByRole("table", { name: "Plugins" })
    .getByRole("row", { name: `word_count (${layer})`, exact: true });
const text = async (layer: string) => (await row(layer).innerText()).replace(/\s+/g, " ");

describe.skipIf(!runUi)("a bundled plugin shadowed by the user's", () => {
  it("says in the Plugins list which plugin's tool is bound instead of it", async () => {
    await goTo(page, "Extensions", "Plugins");
    await row("bundled").waitFor({ timeout: 10_000 });
    await expect
      .poll(() => text("bundled"), { timeout: 10_000 })
      .toMatch(/shadowed by global plugin word_count/);
    // The user's plugin holds the name: it is not marked shadowed.
    expect(await text("global")).not.toMatch(/shadowed/);
    await row("bundled").screenshot({ path: SHOT });
    // The catalog says the same from the bound tool's side.
    await goTo(page, "Tools", "Catalog");
    const tool = page
      .getByRole("table", { name: "All tools" })
      .getByRole("row", { name: "word_count", exact: true });
    expect((await tool.innerText()).replace(/\s+/g, " ")).toMatch(
      /global · plugin · word_count shadows bundled plugin word_count/,
    );
    expect(world().problems).toEqual([]);
  });
});
