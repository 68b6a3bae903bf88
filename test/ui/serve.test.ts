// The UI as a person uses it: `lathe serve` on a folder, the page in Debian's Chromium, pick
// glob, run it, see the files. Needs `npm run build` first (npm test runs it).
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SCREENSHOT = path.join(REPO, "test-results/ui-glob.png");
const BUILTINS = ["edit", "glob", "grep", "read", "write"];

const runUi = runsUi("serve");

describe.skipIf(!runUi)("the UI through lathe serve in Chromium", () => {
  let url: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  useUiWorld(
    runUi,
    {
      prefix: "serve",
      prepare: async ({ root }) => {
        await mkdir(path.join(root, "src", "lib"), { recursive: true });
        await mkdir(path.join(root, "build"), { recursive: true });
        await writeFile(path.join(root, "src", "app.ts"), "export const app = 1;\n");
        await writeFile(path.join(root, "src", "lib", "strings.ts"), "export const s = '';\n");
        await writeFile(path.join(root, "README.md"), "# fixture\n");
        await writeFile(path.join(root, ".gitignore"), "build/\n");
        await writeFile(path.join(root, "build", "ignored.ts"), "// ignored by .gitignore\n");
      },
      goto: false,
    },
    (started) => {
      ({ url, browser, page, problems } = started);
    },
  );

  it("lists the built-in tools with their origin and concurrency class", async () => {
    await page.goto(url);
    // The app opens on the chat; the tool workbench is under Tools.
    await page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: 10_000 });
    await goTo(page, "Tools");
    const tools = page.getByRole("list", { name: "Tools" });
    const tool = (id: string) => tools.getByRole("button", { name: new RegExp(`^${id}\\b`) });
    await tool("glob").waitFor({ timeout: 10_000 });
    expect(await tools.getByRole("listitem").count()).toBeGreaterThanOrEqual(BUILTINS.length);
    for (const id of BUILTINS) expect(await tool(id).innerText()).toMatch(/\bbuiltin\b(?! · builtin)/);
    expect(await tool("glob").innerText()).toContain("read-only");
    expect(await tool("read").innerText()).toContain("read-only");
    expect(await tool("write").innerText()).toContain("mutating");
  });

  it("runs glob on the folder and shows the files it found", async () => {
    await page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: /^glob\b/ })
      .click();
    await expect.poll(() => page.getByRole("heading", { level: 2, name: "glob" }).count()).toBe(1);
    await page.getByLabel("Arguments (JSON)").fill('{ "pattern": "**/*.ts" }');
    await page.getByRole("button", { name: "Run glob" }).click();

    const data = page.getByLabel("Data", { exact: true });
    await data.waitFor({ timeout: 10_000 });
    const shown = await data.innerText();
    expect(shown).toContain("src/app.ts");
    expect(shown).toContain("src/lib/strings.ts");
    expect(shown).not.toContain("ignored.ts");
    const envelope = page.getByLabel("Envelope", { exact: true });
    expect(await envelope.innerText()).toMatch(/^ok\b/);
    expect(await page.getByLabel("Metadata", { exact: true }).innerText()).toMatch(/duration\s*[\d.]+ ms/);

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("shows a tool's error envelope as an error", async () => {
    await page.getByLabel("Arguments (JSON)").fill('{ "pattern": "../*" }');
    await page.getByRole("button", { name: "Run glob" }).click();
    const errorText = page.getByLabel("Error text", { exact: true });
    await errorText.waitFor({ timeout: 10_000 });
    expect(await errorText.innerText()).toMatch(/\.\./);
    expect(await page.getByLabel("Envelope", { exact: true }).innerText()).toMatch(/^error/);
    await page.screenshot({ path: SCREENSHOT.replace(".png", "-error.png"), fullPage: true });
  });

  it("gives nothing to a browser without the token", async () => {
    const stranger = await browser.newContext();
    try {
      const bare = await stranger.newPage();
      const origin = new URL(url).origin;
      const noToken = await bare.goto(`${origin}/`);
      expect(noToken?.status()).toBe(401);
      expect(await bare.content()).not.toContain('id="root"');
      const wrongToken = await bare.goto(`${origin}/?token=${"0".repeat(64)}`);
      expect(wrongToken?.status()).toBe(403);
      expect(await bare.getByRole("list", { name: "Tools" }).count()).toBe(0);
      const asset = await bare.goto(`${origin}/assets/`);
      expect(asset?.status()).toBe(401);
    } finally {
      await stranger.close();
    }
  });
});
