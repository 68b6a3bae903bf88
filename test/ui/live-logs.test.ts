// An MCP server's log while it keeps logging, as a person watches it in Extensions → MCP servers:
// `lathe serve` with a stdio server (a real one, from this repository) that writes 600 lines at
// start and a `tick <n>` line every 200 ms, the page in Debian's Chromium. New lines appear with
// no click; at the end the view follows them, and scrolled up it keeps the line the person reads
// in place while old lines fall off the top of the 500-line tail. The sandbox is off so the
// server starts the same way on every machine (after the person's yes).
// Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, fixtureProviders, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const SCRIPTED_MCP = path.join(REPO, "test/fixtures/scripted-mcp-server.ts");
const runUi = runsUi("live logs");

let page: Page;
let lines: Locator;

/** The number of the newest `tick <n>` line in the view. */
async function lastTick(): Promise<number> {
  const ticks = [...(await lines.innerText()).matchAll(/^tick (\d+)$/gm)];
  return Number(ticks.at(-1)?.[1] ?? 0);
}

/** The line of text at the top edge of the view, and whether the view shows the log's end. */
const seen = () =>
  lines.evaluate((view) => {
    const box = view.getBoundingClientRect();
    const at = view.ownerDocument.caretRangeFromPoint(box.left + 20, box.top + 12);
    let top: string | undefined;
    if (at && view.contains(at.startContainer)) {
      const text = at.startContainer.textContent ?? "";
      const start = text.lastIndexOf("\n", at.startOffset - 1) + 1;
      const end = text.indexOf("\n", at.startOffset);
      top = text.slice(start, end === -1 ? undefined : end);
    }
    return { top, atEnd: view.scrollHeight - view.scrollTop - view.clientHeight <= 4 };
  });

const world = useUiWorld(
  runUi,
  {
    prefix: "live-logs",
    prepare: async ({ base, home }) => {
      const script = path.join(base, "tools.json");
      const early = Array.from({ length: 600 }, (_, i) => `early line ${i + 1}`).join("\n");
      await writeFile(
        script,
        JSON.stringify({
          tools: [{ name: "echo", description: "Echo it.", inputSchema: { type: "object" } }],
          stderr: `${early}\n`,
          stderrEveryMs: 200,
        }),
      );
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          providers: await fixtureProviders(),
          sandbox: { enabled: false },
          mcpServers: { chatty: { command: process.execPath, args: [SCRIPTED_MCP, script] } },
        }),
      );
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("an MCP server's log while the server keeps logging", () => {
  it("shows new lines without a click, following the end", async () => {
    const dialog = page.getByRole("dialog", { name: "Start chatty without the sandbox?" });
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole("button", { name: "Start it unconfined" }).click();
    await dialog.waitFor({ state: "hidden" });
    await goTo(page, "Extensions", "MCP servers");
    const server = page.getByRole("list", { name: "MCP servers" }).getByRole("listitem", { name: "chatty" });
    await expect.poll(() => server.getByLabel(/^state /).innerText(), { timeout: 15_000 }).toBe("connected");
    await server.getByRole("button", { name: "Log" }).click();
    lines = page.getByRole("region", { name: "Log: chatty" }).getByLabel("Log lines");
    await expect.poll(lastTick, { timeout: 10_000 }).toBeGreaterThan(0);
    const first = await lastTick();
    // Nothing is clicked: the open view reads the log again by itself.
    await expect.poll(lastTick, { timeout: 10_000 }).toBeGreaterThan(first + 5);
    await expect.poll(async () => (await seen()).atEnd).toBe(true);
    expect((await lines.innerText()).trimEnd().split("\n")).toHaveLength(500);
  });

  it("keeps the line the person reads in place once they scroll up, while lines come and go", async () => {
    await lines.hover();
    await page.mouse.wheel(0, -2_000);
    await expect.poll(async () => (await seen()).atEnd).toBe(false);
    const before = await seen();
    expect(before.top).toMatch(/^(early line|tick) \d+$/);
    const ticks = await lastTick();
    // Two more reads at least: the tail moved on, old lines fell off its top.
    await expect.poll(lastTick, { timeout: 10_000 }).toBeGreaterThan(ticks + 20);
    await page.screenshot({ path: path.join(SHOTS, "ui-mcp-log-scrolled-up.png") });
    expect(await seen()).toEqual(before);

    // Back at the end, the view follows again.
    await page.mouse.wheel(0, 100_000);
    await expect.poll(async () => (await seen()).atEnd).toBe(true);
    const now = await lastTick();
    await expect.poll(lastTick, { timeout: 10_000 }).toBeGreaterThan(now + 5);
    expect((await seen()).atEnd).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, "ui-mcp-log-following.png") });
    expect(world().problems).toEqual([]);
  });
});
