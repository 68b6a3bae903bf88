// The Restore and Rewind dialogs from the keyboard alone: when one closes, the keyboard goes back
// to where the person was, not to the page itself (where the next Tab starts over at the header).
// Left with Esc, to the button that opened it; after a restore, to the card it undid (its Restore
// button is gone); after a rewind, to the prompt box, which holds the prompt to send again.
// `lathe serve` in yolo mode with the loopback fixture model, the page in Debian's Chromium.
// Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("restore dialog focus");
const PROMPT = "Say hi in the notes.";
const DONE = "The notes say hi.";

function reply(request: ChatRequest): FixtureReply {
  const { step } = scriptTurn(request, "tool");
  return [
    { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
    {
      toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_string: "hello", new_string: "hi" } }],
    },
    { text: DONE },
  ][Math.min(step, 2)]!;
}

let page: Page;
const chat = chatHelpers(() => page);

/** The focused element's accessible name (its label, else its text). */
const focused = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    if (!element || element === body) return "nothing: the page itself";
    return (element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
  });

/** Reach a button by focusing it and press Enter, then wait for the dialog it opens. */
async function openWithKeys(button: string, dialog: string): Promise<void> {
  await page.getByRole("button", { name: button, exact: true }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("dialog", { name: dialog }).waitFor();
}

/** Tab from Cancel to the dialog's action, press it, then press the outcome's Done. */
async function applyWithKeys(action: string): Promise<void> {
  await page.getByRole("button", { name: action, exact: true }).and(page.locator(":enabled")).waitFor();
  await page.keyboard.press("Tab");
  expect(await focused()).toBe(action);
  await page.keyboard.press("Enter");
  await page.getByRole("button", { name: "Done" }).waitFor();
  expect(await focused()).toBe("Done");
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").waitFor({ state: "detached" });
}

useChatWorld(
  runUi,
  {
    prefix: "restore-focus",
    replies: reply,
    settings: { approvals: { mode: "yolo" } },
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "notes.txt"), "hello\n");
    },
    viewport: { width: 1100, height: 760 },
  },
  async (started) => {
    page = started.page;
    await chat.send(PROMPT);
    await chat.conversation().getByText(DONE).waitFor({ timeout: 15_000 });
    await chat.turnEnded();
  },
);

describe.skipIf(!runUi)("closing the Restore and Rewind dialogs from the keyboard", () => {
  it("gives the keyboard back to the button that opened the dialog when it is left with Esc", async () => {
    await openWithKeys("Restore the files edit changed", "Undo what edit changed?");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Restore the files edit changed");

    await openWithKeys("Rewind to before this prompt", "Rewind to before this prompt?");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Rewind to before this prompt");
  });

  it("puts the keyboard on the card a restore undid", async () => {
    await openWithKeys("Restore the files edit changed", "Undo what edit changed?");
    await applyWithKeys("Restore");
    await expect.poll(focused).toMatch(/^edit/);
    expect(await page.locator(":focus").evaluate((element) => Boolean(element.closest("article")))).toBe(
      true,
    );
    await page.screenshot({ path: path.join(SHOTS, "ui-restore-focus-restored.png") });
  });

  it("puts the keyboard in the prompt box, holding the prompt, after a rewind", async () => {
    await openWithKeys("Rewind to before this prompt", "Rewind to before this prompt?");
    await applyWithKeys("Rewind");
    await expect.poll(focused).toBe("Prompt");
    expect(await chat.prompt().inputValue()).toBe(PROMPT);
    await page.screenshot({ path: path.join(SHOTS, "ui-restore-focus-rewound.png") });
  });
});
