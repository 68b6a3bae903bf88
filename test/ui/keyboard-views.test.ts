// The views reached from the keyboard alone: Ctrl+K, a view's name, Enter, then Tab. Focus must
// land in the view that opened, not fall back to the top of the page (where the next Tab starts
// over at the header and the sidebar). `lathe serve` with the loopback fixture model, the page in
// Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("keyboard views");

let page: Page;

/** Where the keyboard is: the focused element's tag and accessible text, and whether it is in <main>. */
const focus = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    return {
      tag: element?.tagName ?? "",
      text: (element?.getAttribute("aria-label") ?? element?.textContent ?? "").trim(),
      inMain: Boolean(element?.closest("main")),
    };
  });

async function paletteTo(command: string): Promise<void> {
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Command palette" });
  await palette.waitFor();
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
  await palette.waitFor({ state: "hidden" });
}

useChatWorld(
  runUi,
  {
    prefix: "keyboard",
    replies: [{ text: "unused" }],
    viewport: { width: 1100, height: 800 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("views from the keyboard", () => {
  it.each([
    ["Audit", "Audit", /^(SELECT|BUTTON)$/],
    ["Settings: Sandbox", "Settings", /^BUTTON$/],
    ["Extensions: MCP servers", "Extensions", /^BUTTON$/],
  ])("the palette's %s puts focus in the view, and Tab goes on inside it", async (command, heading, next) => {
    // Start from the chat's prompt, which the new view replaces.
    await page.getByRole("textbox", { name: "Prompt" }).focus();
    await paletteTo(command);
    await expect.poll(focus).toMatchObject({ text: heading, inMain: true });
    await page.keyboard.press("Tab");
    const after = await focus();
    expect(after.inMain, `Tab went to ${after.tag} "${after.text}"`).toBe(true);
    expect(after.tag).toMatch(next);
    await page.screenshot({ path: path.join(SHOTS, `ui-keyboard-${heading.toLowerCase()}.png`) });
    await paletteTo("Chat");
    await expect.poll(focus).toMatchObject({ tag: "TEXTAREA", inMain: true });
  });

  it("keeps the command ↑↓ chose in sight, down past the list's visible part and back up", async () => {
    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: "Command palette" });
    await palette.waitFor();
    const list = palette.getByRole("listbox", { name: "Commands" });
    const chosen = list.getByRole("option", { selected: true });
    /** Whether the chosen option lies wholly inside the list's visible part. */
    const chosenInSight = async () => {
      const [outer, inner] = await Promise.all([list.boundingBox(), chosen.boundingBox()]);
      if (!outer || !inner) return false;
      return inner.y >= outer.y - 1 && inner.y + inner.height <= outer.y + outer.height + 1;
    };
    const count = await list.getByRole("option").count();
    expect(count, "the palette lists more commands than it shows at once").toBeGreaterThan(12);
    for (let i = 1; i < count; i++) {
      await page.keyboard.press("ArrowDown");
      expect(await chosenInSight(), `option ${i + 1} of ${count} is out of sight`).toBe(true);
    }
    await page.screenshot({ path: path.join(SHOTS, "ui-palette-last-chosen.png") });
    // Down once more wraps to the first command, which must come back into sight too.
    await page.keyboard.press("ArrowDown");
    expect(await chosen.innerText()).toContain("New chat");
    expect(await chosenInSight()).toBe(true);
    await page.keyboard.press("Escape");
    await palette.waitFor({ state: "hidden" });
  });
});
