// Who a chat run belongs to when it is open in several tabs of one `lathe serve`: a tab that only
// watches a run (another tab started it) may go elsewhere, the run going on; the tab that started
// it keeps it across a reload (by the id it keeps in its sessionStorage); a copy of that tab (its
// sessionStorage copied) is a tab of its own; a tab really closed stops its run after a few
// seconds, another tab opening the chat meanwhile does not take it over, and the tabs still
// showing it say why it stopped.
// The page in Debian's Chromium, the loopback fixture model. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, openWatchedPage, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("run owner across tabs");

/** About `seconds` of text streamed three characters at a time, 150 ms apart, ending in `last`. */
function slowText(first: string, seconds: number, last: string): string {
  const filler = " and then some more words of it".repeat(Math.ceil((seconds * 20) / 31));
  return `${first}${filler} ${last}`;
}

const REPLIES: Record<string, string> = {
  "Watch me": slowText("Watching the clock", 6, "Watched to the end."),
  "Reload me": slowText("Counting through a reload", 10, "Counted to the end."),
  "Close my tab": slowText("Writing on and on", 40, "Never reached."),
  "Copy my tab": slowText("Copying along", 12, "Copied to the end."),
};

let viewer: Page;
const watching = chatHelpers(() => viewer);
const list = (page: Page) => page.getByRole("list", { name: "Session list" });
/** What the page's script sees of its sessionStorage (the test compiles without the DOM's types). */
type PageStorage = { sessionStorage: Pick<Storage, "getItem" | "setItem"> };
/** The tab id the page keeps in its sessionStorage (see session-tab-id.ts). */
const tabIdOf = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PageStorage).sessionStorage.getItem("lathe.tabId"));

const world = useChatWorld(
  runUi,
  {
    prefix: "run-owner",
    replies: (request) => ({
      text: REPLIES[scriptTurn(request, "tool").prompt] ?? "Nothing to say.",
      eventDelayMs: 150,
    }),
    viewport: { width: 1100, height: 800 },
  },
  async (started) => {
    viewer = await openWatchedPage(started.browser, started.problems, { width: 1100, height: 800 });
    await viewer.goto(started.url);
    await watching.prompt().waitFor({ timeout: 10_000 });
  },
);
const owner = world.chat;

describe.skipIf(!runUi)("a chat run open in several tabs", () => {
  it("lets a tab that only watches a run go elsewhere, the run going on", async () => {
    const page = world().page;
    await owner.send("Watch me");
    await owner.conversation().getByText("Watching the clock").waitFor({ timeout: 10_000 });
    await list(viewer).getByRole("listitem", { name: "Watch me" }).click();
    await viewer.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });

    // The watching tab starts a new chat: nothing holds it back.
    const fresh = viewer.getByRole("button", { name: "New chat" });
    expect(await fresh.isEnabled()).toBe(true);
    await fresh.click();
    await expect.poll(() => viewer.getByText("Watching the clock").count()).toBe(0);
    expect(await viewer.getByText(/A run is going on in this chat/).count()).toBe(0);
    await viewer.screenshot({ path: path.join(SHOTS, "ui-run-owner-viewer-left.png") });

    // The run goes on in the tab that started it, which stays with it.
    await page.getByRole("button", { name: "Stop" }).waitFor();
    expect(await page.getByRole("button", { name: "New chat" }).isDisabled()).toBe(true);
    // Back in the chat, the watching tab shows it still going on, then ending as it should.
    await list(viewer).getByRole("listitem", { name: "Watch me" }).click();
    await viewer.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });
    await watching.conversation().getByText("Watched to the end.").waitFor({ timeout: 20_000 });
    await owner.turnEnded();
    await watching.turnEnded();
    for (const chat of [owner, watching])
      expect(await chat.conversation().innerText()).not.toMatch(/stopped/i);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("keeps a run going when the tab that started it reloads; that tab shows it and stays with it", async () => {
    const page = world().page;
    await page.getByRole("button", { name: "New chat" }).click();
    await owner.send("Reload me");
    await owner.conversation().getByText("Counting through a reload").waitFor({ timeout: 10_000 });
    await list(viewer).getByRole("listitem", { name: "Reload me" }).click();
    await viewer.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });

    const before = await tabIdOf(page);
    expect(before).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    await page.reload();
    // Back after the reload: the run goes on here (Stop, text still arriving), not "interrupted".
    await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });
    await expect.poll(() => owner.conversation().innerText()).not.toMatch(/interrupted/i);
    // The run is this tab's again: it cannot wander off while the run goes on (the watcher can).
    expect(await page.getByRole("button", { name: "New chat" }).isDisabled()).toBe(true);
    expect(await viewer.getByRole("button", { name: "New chat" }).isEnabled()).toBe(true);
    expect(await tabIdOf(page)).toBe(before);
    await page.screenshot({ path: path.join(SHOTS, "ui-run-owner-reloaded.png") });
    // It outlives the few seconds a closed tab's run is given, and ends as the model finishes it.
    await owner.conversation().getByText("Counted to the end.").waitFor({ timeout: 30_000 });
    await owner.turnEnded();
    await watching.turnEnded();
    for (const chat of [owner, watching])
      expect(await chat.conversation().innerText()).not.toMatch(/stopped/i);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("keeps the run with its tab when a copy of the tab (its sessionStorage copied) opens the chat and closes", async () => {
    const { browser, url, problems, page } = world();
    await page.getByRole("button", { name: "New chat" }).click();
    await owner.send("Copy my tab");
    await owner.conversation().getByText("Copying along").waitFor({ timeout: 10_000 });
    const original = await tabIdOf(page);
    // What a duplicated tab starts with: a copy of its original's sessionStorage, the tab id included.
    const copy = await openWatchedPage(browser, problems, { width: 1100, height: 800 });
    await copy.addInitScript((id) => {
      const { sessionStorage } = globalThis as unknown as PageStorage;
      if (id !== null && sessionStorage.getItem("lathe.tabId") === null)
        sessionStorage.setItem("lathe.tabId", id);
    }, original);
    await copy.goto(url);
    await list(copy).getByRole("listitem", { name: "Copy my tab" }).click();
    await copy.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10_000 });
    // The copy was given an id of its own, and only watches the run: it may leave it.
    await expect.poll(() => tabIdOf(copy)).not.toBe(original);
    expect(await copy.getByRole("button", { name: "New chat" }).isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "New chat" }).isDisabled()).toBe(true);
    await copy.screenshot({ path: path.join(SHOTS, "ui-run-owner-copy-watches.png") });
    // The copy closing costs the run nothing: it is still the original tab's, past the grace.
    await copy.close();
    await page.waitForTimeout(7_000);
    expect(await owner.conversation().innerText()).not.toMatch(/stopped/i);
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await owner.conversation().getByText("Copied to the end.").waitFor({ timeout: 30_000 });
    await owner.turnEnded();
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("stops the run of a tab that was closed, after a few seconds, though another tab opened its chat meanwhile", async () => {
    const { browser, url, problems } = world();
    const starter = await openWatchedPage(browser, problems, { width: 1100, height: 800 });
    await starter.goto(url);
    const starting = chatHelpers(() => starter);
    await starting.send("Close my tab");
    await starting.conversation().getByText("Writing on and on").waitFor({ timeout: 10_000 });
    await viewer.getByRole("button", { name: "New chat" }).click();
    await list(viewer).getByRole("listitem", { name: "Close my tab" }).waitFor({ timeout: 10_000 });

    await starter.close();
    // Another tab opening the chat in the grace shows the run going on, but only watches it.
    await list(viewer).getByRole("listitem", { name: "Close my tab" }).click();
    await viewer.getByRole("button", { name: "Stop" }).waitFor({ timeout: 4_000 });
    expect(await viewer.getByRole("button", { name: "New chat" }).isEnabled()).toBe(true);
    await viewer.screenshot({ path: path.join(SHOTS, "ui-run-owner-other-tab-in-grace.png") });
    await viewer.getByText(/Stopped: the tab that started it was closed/).waitFor({ timeout: 20_000 });
    await watching.turnEnded();
    expect(await viewer.getByText("Never reached.").count()).toBe(0);
    await viewer.screenshot({ path: path.join(SHOTS, "ui-run-owner-tab-closed.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
