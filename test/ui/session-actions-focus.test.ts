// Renaming and deleting sessions from the keyboard alone: after each, the keyboard stays in the
// session list, on the session renamed or on the one that took the deleted one's place (the
// prompt box once none is left), rather than falling back to the top of the page, where the next
// Tab starts over at the header. `lathe serve` with the loopback fixture model, the page in
// Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("session actions focus");
const CHATS = ["Plan the trip", "Book the hotel", "Pack the bags"];

function reply(request: ChatRequest): FixtureReply {
  return { text: `Done: ${scriptTurn(request, "tool").prompt}` };
}

let page: Page;
const chat = chatHelpers(() => page);
const list = () => page.getByRole("list", { name: "Session list" });

/** The focused element's accessible name (its label, else its text). */
const focused = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    if (!element || element === body) return "nothing: the page itself";
    return (element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
  });

/** Reach a session's button by focusing it and press Enter, as from the keyboard. */
async function press(name: string): Promise<void> {
  await list().getByRole("button", { name, exact: true }).focus();
  await page.keyboard.press("Enter");
}

/** Delete a session with the keyboard: its Delete, then Tab to the dialog's Delete and Enter. */
async function deleteWithKeys(title: string): Promise<void> {
  await press(`Delete ${title}`);
  const dialog = page.getByRole("dialog", { name: "Delete this session?" });
  await dialog.waitFor();
  await page.keyboard.press("Tab");
  expect(await focused()).toBe("Delete");
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "hidden" });
  await list().getByRole("listitem", { name: title, exact: true }).waitFor({ state: "detached" });
}

useChatWorld(
  runUi,
  {
    prefix: "session-focus",
    replies: reply,
    viewport: { width: 1100, height: 760 },
  },
  async (started) => {
    page = started.page;
    for (const [i, text] of CHATS.entries()) {
      if (i > 0) await page.getByRole("button", { name: "New chat" }).click();
      await chat.send(text);
      await chat.conversation().getByText(`Done: ${text}`).waitFor({ timeout: 10_000 });
      await chat.turnEnded();
    }
  },
);

describe.skipIf(!runUi)("renaming and deleting a session from the keyboard", () => {
  it("keeps the keyboard on the session after a rename is saved or left with Esc", async () => {
    await press("Rename Book the hotel");
    expect(await focused()).toBe("Session name");
    await page.keyboard.type("Book the seaside hotel");
    await page.keyboard.press("Enter");
    await list().getByRole("button", { name: "Book the seaside hotel", exact: true }).waitFor();
    await expect.poll(focused).toBe("Rename Book the seaside hotel");
    await page.screenshot({ path: path.join(SHOTS, "ui-session-focus-renamed.png") });

    await page.keyboard.press("Enter");
    expect(await focused()).toBe("Session name");
    await page.keyboard.press("Escape");
    await expect.poll(focused).toBe("Rename Book the seaside hotel");
  });

  it("moves the keyboard to the session that takes a deleted one's place, then to the prompt", async () => {
    // The list is newest first: Pack the bags, Book the seaside hotel, Plan the trip.
    await deleteWithKeys("Book the seaside hotel");
    await expect.poll(focused).toBe("Plan the trip");
    await page.screenshot({ path: path.join(SHOTS, "ui-session-focus-deleted.png") });
    // The last one in the list: the one above it takes over.
    await deleteWithKeys("Plan the trip");
    await expect.poll(focused).toBe("Pack the bags");
    // The open chat, and the last of all: the chat starts afresh and the prompt box has the keyboard.
    await deleteWithKeys("Pack the bags");
    await page.getByText("No sessions yet.").waitFor();
    await expect.poll(focused).toBe("Prompt");
  });
});
