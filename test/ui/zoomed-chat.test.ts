// The chat at 200 % zoom (a 1280 × 860 window shows 640 × 430 CSS pixels), once the agent keeps a
// todo list: `lathe serve` with the loopback fixture model, the page in Debian's Chromium. The
// prompt box and Send must stay in sight and uncovered, and the todo list readable beside them.
// Needs `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOT = path.join(REPO, "test-results/ui-zoomed-chat-todo.png");
const runUi = runsUi("zoomed chat");
const TODOS = [
  { content: "Read the code", status: "completed" },
  { content: "Write the fix, with a test that fails before it and passes after", status: "in_progress" },
  { content: "Run the suite", status: "pending" },
  { content: "Write the report", status: "pending" },
];

let page: Page;
const chat = chatHelpers(() => page);

/** Whether what a person sees at the middle of `locator` is `locator` itself (or inside it). */
async function uncovered(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const top = element.ownerDocument.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return top !== null && (top === element || element.contains(top));
  });
}

const world = useChatWorld(
  runUi,
  {
    prefix: "zoomed-chat",
    replies: (request) => {
      const { step } = scriptTurn(request, "tool");
      return step === 0
        ? { toolCalls: [{ name: "todo", arguments: { todos: TODOS } }] }
        : { text: "The plan is in the todo list." };
    },
    viewport: { width: 640, height: 430 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("the chat at 200 % zoom with a todo list", () => {
  it("keeps the prompt box and Send in sight and uncovered, and the todo list beside them", async () => {
    await chat.send("Make a plan");
    await chat.turnEnded();
    const todo = page.getByRole("list", { name: "Todo list" });
    await todo.waitFor();
    await page.screenshot({ path: SHOT });
    for (const control of [chat.prompt(), page.getByRole("button", { name: "Send" })]) {
      expect(await control.isVisible()).toBe(true);
      expect(
        await uncovered(control),
        `${await control.evaluate((e) => e.outerHTML.slice(0, 60))} is covered`,
      ).toBe(true);
    }
    // The todo list is not pushed out of the window: its first item shows, uncovered.
    const first = todo.getByRole("listitem").first();
    const box = await first.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y + box!.height).toBeLessThanOrEqual(430);
    expect(await uncovered(first)).toBe(true);
    // And typing still reaches the prompt.
    await chat.prompt().click();
    await page.keyboard.type("next step");
    expect(await chat.prompt().inputValue()).toBe("next step");
    expect(world().problems).toEqual([]);
  });
});
