// The OS sandbox in the app as a person meets it when it is off: `lathe serve` whose user settings
// turn the sandbox off and configure a stdio MCP server (a real one, from this repository). The page
// says the sandbox is off (a notice under the header, Settings → Sandbox with the reason and the
// fix, from the same check as `lathe doctor`), and the server waits for the person's yes before it
// starts unconfined. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, fixtureProviders, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const SCRIPTED_MCP = path.join(REPO, "test/fixtures/scripted-mcp-server.ts");
const runUi = runsUi("sandbox");

let page: Page;
let problems: string[];

useUiWorld(
  runUi,
  {
    prefix: "sandbox",
    prepare: async ({ base, home }) => {
      const script = path.join(base, "tools.json");
      await writeFile(
        script,
        JSON.stringify({
          tools: [{ name: "echo", description: "Echo it.", inputSchema: { type: "object" } }],
        }),
      );
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          providers: await fixtureProviders(),
          sandbox: { enabled: false },
          mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED_MCP, script] } },
        }),
      );
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    ({ page, problems } = started);
  },
);

describe.skipIf(!runUi)("the sandbox turned off, through lathe serve", () => {
  it("asks before the MCP server starts unconfined, with its exact command, and starts it on yes", async () => {
    const dialog = page.getByRole("dialog", { name: "Start scripted without the sandbox?" });
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.getByLabel("Command line").innerText()).toContain(SCRIPTED_MCP);
    expect(await dialog.innerText()).toMatch(/The OS sandbox is not active: it is turned off/);
    // Focus starts on the safe answer.
    expect(await page.locator(":focus").innerText()).toBe("Leave it stopped");
    await page.screenshot({ path: path.join(SHOTS, "ui-sandbox-mcp-dialog.png") });
    await dialog.getByRole("button", { name: "Start it unconfined" }).click();
    await dialog.waitFor({ state: "hidden" });
    await goTo(page, "Extensions", "MCP servers");
    const server = page
      .getByRole("list", { name: "MCP servers" })
      .getByRole("listitem", { name: "scripted" });
    await expect.poll(() => server.getByLabel(/^state /).innerText(), { timeout: 15_000 }).toBe("connected");
  });

  it("says the sandbox is off under the header and in Settings → Sandbox, with the reason and the fix", async () => {
    const notice = page
      .getByRole("list", { name: "Notices" })
      .getByRole("listitem")
      .filter({ hasText: "sandbox" });
    expect(await notice.innerText()).toMatch(/The OS sandbox is not active: it is turned off/);
    await notice.getByRole("button", { name: "Sandbox settings" }).click();
    expect(await page.getByRole("tab", { name: "Sandbox" }).getAttribute("aria-selected")).toBe("true");
    const walls = page.getByRole("list", { name: "Walls" });
    await walls.waitFor({ timeout: 15_000 });
    const policy = walls.getByRole("listitem", { name: "Parser policy" });
    expect(await policy.innerText()).toMatch(/^on/i);
    // What the wall does reads as a sentence under its name, capital first (it began "every call").
    expect(await policy.getByRole("paragraph").innerText()).toMatch(
      /^Every call passes the capability check/,
    );
    const sandbox = walls.getByRole("listitem", { name: "OS sandbox" });
    expect(await sandbox.innerText()).toMatch(/^off/i);
    expect(await sandbox.innerText()).toMatch(/Not active: it is turned off[\s\S]*Fix:/);
    expect(await page.getByRole("list", { name: "Checks" }).innerText()).toMatch(/Node 24 or newer/);
    await page.screenshot({ path: path.join(SHOTS, "ui-sandbox-settings.png") });
    // Closed, the notice stays closed.
    await notice.getByRole("button", { name: "Close this notice" }).click();
    expect(await page.getByRole("list", { name: "Notices" }).count()).toBe(0);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
