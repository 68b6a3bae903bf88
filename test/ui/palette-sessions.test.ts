// The command palette finds a session by part of its title, from the keyboard alone, whatever the
// sidebar shows: it listed only the sessions the sidebar's search had left, so a session the search
// field filtered out could not be found from Ctrl+K at all. `lathe serve` with the fixture model,
// the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("palette sessions");
const TITLES = ["Fix the flaky login test", "Write the release notes", "Tidy the docs folder"];

function reply(request: ChatRequest): FixtureReply {
  return { text: `Answer to: ${scriptTurn(request, "assistant").prompt}` };
}

let page: Page;
let problems: string[];
const chat = chatHelpers(() => page);

useChatWorld(
  runUi,
  {
    prefix: "palette-sessions",
    replies: reply,
    viewport: { width: 1200, height: 800 },
  },
  async (started) => {
    ({ page, problems } = started);
    for (const [i, title] of TITLES.entries()) {
      if (i > 0) await page.getByRole("button", { name: "New chat" }).click();
      await chat.send(title);
      await chat.conversation().getByText(`Answer to: ${title}`).waitFor({ timeout: 10_000 });
      await chat.turnEnded();
    }
  },
);

const palette = () => page.getByRole("dialog", { name: "Command palette" });
const sidebarSearch = () => page.getByRole("searchbox", { name: "Search sessions" });
const promptHasKeyboard = () =>
  page.getByRole("textbox", { name: "Prompt" }).evaluate((el) => el.ownerDocument.activeElement === el);

/** Open the palette with Ctrl+K, type `typed`, choose the first match with Enter. */
async function jumpWithKeys(typed: string): Promise<string[]> {
  await page.keyboard.press("Control+k");
  await palette().waitFor();
  await page.keyboard.type(typed);
  const options = await palette().getByRole("option").allInnerTexts();
  await page.keyboard.press("Enter");
  await palette().waitFor({ state: "hidden" });
  return options;
}

describe.skipIf(!runUi)("the command palette's sessions", () => {
  it.each([
    { search: "", typed: "flaky", title: TITLES[0]! },
    // The sidebar's search keeps only the docs session; the palette still finds the others.
    { search: "docs", typed: "release", title: TITLES[1]! },
    { search: "docs", typed: "LOGIN fix", title: TITLES[0]! },
  ])("sidebar search “$search”: typing “$typed” opens $title", async ({ search, typed, title }) => {
    await sidebarSearch().fill(search);
    if (search !== "") {
      await expect
        .poll(() => page.getByRole("list", { name: "Session list" }).getByRole("listitem").count())
        .toBe(1);
    }
    const options = await jumpWithKeys(typed);
    expect(options[0]).toContain(title);
    await chat.conversation().getByText(`Answer to: ${title}`).waitFor({ timeout: 10_000 });
    // The jump ends in the prompt, ready to type the next message (not dropped on the page).
    await expect.poll(() => promptHasKeyboard()).toBe(true);
  });

  it("↓ picks among several matches, and the list says when the session was last used", async () => {
    await sidebarSearch().fill("");
    await page.keyboard.press("Control+k");
    await palette().waitFor();
    await page.keyboard.type("the");
    const sessions = palette().getByRole("option").filter({ hasText: "Sessions" });
    await expect.poll(() => sessions.count()).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: path.join(SHOTS, "ui-palette-sessions.png") });
    const options = await palette().getByRole("option").allInnerTexts();
    const target = options.findIndex((o) => o.includes(TITLES[1]!));
    expect(target).toBeGreaterThanOrEqual(0);
    expect(options[target]).toMatch(/just now|ago/);
    for (let i = 0; i < target; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await chat.conversation().getByText(`Answer to: ${TITLES[1]}`).waitFor({ timeout: 10_000 });
    await expect.poll(() => promptHasKeyboard()).toBe(true);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("New chat from the palette, opened from the sidebar's search, leaves the keyboard in the prompt", async () => {
    await sidebarSearch().focus();
    await page.keyboard.press("Control+k");
    await palette().waitFor();
    await page.keyboard.type("new chat");
    await page.keyboard.press("Enter");
    await palette().waitFor({ state: "hidden" });
    await expect.poll(() => promptHasKeyboard()).toBe(true);
    await page.keyboard.type("typed at once");
    expect(await page.getByRole("textbox", { name: "Prompt" }).inputValue()).toBe("typed at once");
    await page.screenshot({ path: path.join(SHOTS, "ui-palette-new-chat-prompt.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
