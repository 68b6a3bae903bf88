// A bash card's terminal met from the keyboard alone: Tab goes into a command's output and out of
// it again, both ways, and the output shows that it has the keyboard. The terminal only shows
// what a command printed, so Tab is not a key for it: it kept every Tab (and Shift+Tab), and a
// person moving through the chat with the keyboard was stuck there for good, with nothing on the
// screen saying where the keyboard was. `lathe serve` in yolo mode with the loopback fixture
// model, the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOT = path.join(REPO, "test-results/ui-terminal-keyboard.png");
const runUi = runsUi("terminal keyboard");
const PROMPT = "Print two lines.";
const DONE = "Printed them.";

function reply(request: ChatRequest): FixtureReply {
  const { step } = scriptTurn(request, "tool");
  return [
    { toolCalls: [{ name: "bash", arguments: { command: "printf 'first line\\nsecond line\\n'" } }] },
    { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
    { text: DONE },
  ][Math.min(step, 2)]!;
}

let page: Page;
const chat = chatHelpers(() => page);

/** Where the keyboard is: the focused element's label or text, and whether it is in the terminal. */
const focus = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    return {
      label: (element?.getAttribute("aria-label") ?? element?.textContent ?? "").trim(),
      inTerminal: Boolean(element?.closest(".terminal-output")),
    };
  });

useChatWorld(
  runUi,
  {
    prefix: "terminal-keyboard",
    replies: reply,
    settings: { approvals: { mode: "yolo" } },
    viewport: { width: 1100, height: 800 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("a command's output from the keyboard", () => {
  it("takes Tab in and lets it out again, both ways, showing that it has the keyboard", async () => {
    await chat.send(PROMPT);
    await chat.conversation().getByText(DONE).waitFor({ timeout: 15_000 });
    await chat.turnEnded();
    const terminal = chat.lastCard("bash").getByRole("region", { name: "Terminal output" });
    await terminal.getByText("second line").waitFor();

    // From the bash card's header, Tab reaches the output…
    await chat.lastCard("bash").getByRole("button", { name: /^bash/ }).focus();
    await page.keyboard.press("Tab");
    expect((await focus()).inTerminal).toBe(true);
    // …which is outlined while it has the keyboard, as every other control is.
    const outline = await terminal.evaluate(
      (element) => element.ownerDocument.defaultView!.getComputedStyle(element).outlineStyle,
    );
    expect(outline).not.toBe("none");
    await page.screenshot({ path: SHOT });

    // Tab goes on to the next card (the read call's header), and Shift+Tab comes back and out.
    await page.keyboard.press("Tab");
    expect(await focus()).toEqual({ label: expect.stringMatching(/^read/), inTerminal: false });
    await page.keyboard.press("Shift+Tab");
    expect((await focus()).inTerminal).toBe(true);
    await page.keyboard.press("Shift+Tab");
    expect(await focus()).toEqual({ label: expect.stringMatching(/^bash/), inTerminal: false });
    // Nothing was typed into the output on the way.
    expect(await terminal.innerText()).not.toMatch(/\t/);
  });
});
