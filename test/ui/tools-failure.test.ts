// What a person sees when `lathe serve` cannot list the tools: the page in Debian's Chromium,
// with every `tools.list` answer replaced by a failure on its way back until the test lets them
// through (every other frame passes untouched). The failure says so, and its "Try again" is a
// button of the app, not the browser's bare default; pressing it lists the tools. The header does
// not claim the connection is gone: it says the tools are not listed.
// Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { WS_PATH } from "../../src/shared/ws-protocol.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-tools-failure.png");
const FAILURE = "the engine could not start: a fixture failure";
const runUi = runsUi("tools failure");

let page: Page;
/** While true, every `tools.list` is answered with a failure; `failed` counts them. */
let failing = true;
let failed = 0;

/** Answer `tools.list` with a failure while `failing`; pass everything else through both ways. */
async function failToolsList(p: Page): Promise<void> {
  await p.routeWebSocket(new RegExp(`${WS_PATH}\\?`), (ws) => {
    const server = ws.connectToServer();
    server.onMessage((frame) => ws.send(frame));
    ws.onMessage((frame) => {
      const request =
        typeof frame === "string" ? (JSON.parse(frame) as { id: number; channel: string }) : undefined;
      if (request?.channel === "tools.list" && failing) {
        failed++;
        ws.send(JSON.stringify({ id: request.id, result: { ok: false, error: { message: FAILURE } } }));
        return;
      }
      server.send(frame);
    });
  });
}

/** The computed look of a button: what tells the app's buttons from the browser's default. */
const look = (button: Locator) =>
  button.evaluate((b) => {
    const s = b.ownerDocument.defaultView!.getComputedStyle(b);
    return {
      background: s.backgroundColor,
      color: s.color,
      border: s.borderTopColor,
      radius: s.borderTopLeftRadius,
      padding: `${s.paddingTop} ${s.paddingLeft}`,
      weight: s.fontWeight,
      cursor: s.cursor,
    };
  });

const world = useUiWorld(
  runUi,
  {
    prefix: "tools-failure",
    viewport: { width: 1100, height: 700 },
    goto: false,
  },
  async (started) => {
    page = started.page;
    await failToolsList(page);
    await page.goto(started.url);
  },
);

describe.skipIf(!runUi)("when Lathe cannot list its tools", () => {
  it("says so with a styled Try again, which lists the tools", async () => {
    await goTo(page, "Tools");
    const alert = page.getByRole("alert").filter({ hasText: "Lathe could not list its tools" });
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.innerText()).toContain(FAILURE);
    // The socket is fine, and the header says so: only the tools are missing, and it names that,
    // with the failure on hover and a way to the Tools view, where "Try again" is.
    const header = page.locator("header.topbar").getByRole("status");
    expect(await header.innerText()).toBe("Tools not listed");
    const toTools = header.getByRole("button", { name: "Tools not listed" });
    expect(await toTools.getAttribute("title")).toContain(FAILURE);
    await goTo(page, "Audit");
    await toTools.click();
    await alert.waitFor();
    const retry = alert.getByRole("button", { name: "Try again" });
    const retryLook = await look(retry);
    await retry.focus();
    await page.screenshot({ path: SHOT });

    // The engine is back: the next listing passes through.
    failing = false;
    await retry.click();
    const run = page.getByRole("button", { name: /^Run / });
    await run.waitFor({ timeout: 10_000 });
    expect(await header.innerText()).toMatch(/^\d+ tools$/);
    expect(failed).toBeGreaterThan(0);
    // "Try again" is the failure's main action: it looks like the workbench's main action (Run),
    // not like the browser's grey default button.
    expect(retryLook).toEqual(await look(run));
    expect(world().problems).toEqual([]);
  });
});
