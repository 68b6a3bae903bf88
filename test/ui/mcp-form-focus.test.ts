// The MCP server form from the keyboard alone: when it closes (Cancel, or the server added), the
// keyboard goes back to the button that opened it (Add server, or the server's Edit), not to the
// page itself, where the next Tab starts over at the header. The server added is one whose command
// does not exist, so nothing runs; it fails to start, and says which PATH it searched.
// `lathe serve` with the page in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-mcp-form-focus.png");
const runUi = runsUi("MCP form focus");
const COMMAND = "lathe-no-such-mcp-server";

let page: Page;

/** The focused element's accessible name (its label, a field's <label>, else its text). */
const focused = () =>
  page.locator("body").evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    if (!element || element === body) return "nothing: the page itself";
    const { labels } = element as unknown as { labels?: ArrayLike<{ textContent: string | null }> | null };
    const label = labels?.[0]?.textContent ?? undefined;
    return (element.getAttribute("aria-label") ?? label ?? element.textContent ?? "").trim();
  });

/** Focus a button and press Enter, as from the keyboard. */
async function press(name: string): Promise<void> {
  await page.getByRole("main").getByRole("button", { name, exact: true }).focus();
  await page.keyboard.press("Enter");
}

const form = () => page.getByRole("form");

useUiWorld(
  runUi,
  {
    prefix: "mcp-form-focus",
    viewport: { width: 1100, height: 800 },
  },
  async (started) => {
    page = started.page;
    await goTo(page, "Extensions", "MCP servers");
    await page.getByText("No MCP servers are configured.").waitFor({ timeout: 10_000 });
  },
);

describe.skipIf(!runUi)("closing the MCP server form from the keyboard", () => {
  it("gives the keyboard back to Add server after Cancel and after adding", async () => {
    await press("Add server");
    await form().waitFor();
    expect(await focused()).toBe("Name");
    await press("Cancel");
    await form().waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Add server");

    await press("Add server");
    await page.keyboard.type("ghost");
    await page.getByRole("textbox", { name: "Command", exact: true }).fill(COMMAND);
    await press("Review command");
    await press("Add and start");
    await form().waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Add server");
    // The server could not start, and says where its command was looked for: a real PATH.
    const error = page.getByText(/^Last error: /);
    await error.waitFor({ timeout: 15_000 });
    expect(await error.innerText()).toMatch(
      new RegExp(`the command "${COMMAND}" was not found \\(searched PATH: /[^)]*\\)`),
    );
    await page.screenshot({ path: SHOT });
  });

  it("gives the keyboard back to the server's Edit after Cancel", async () => {
    await press("Edit");
    await form().waitFor();
    await press("Cancel");
    await form().waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Edit");
  });

  // Esc leaves the form the way its buttons on screen do, as Esc leaves the session's rename
  // field and every dialog of the app: the edits are dropped, as Cancel drops them.
  it.each([
    { from: "Name", step: "form", keyboardTo: "Add server" },
    { from: "Arguments (one per line)", step: "form", keyboardTo: "Add server" },
    { from: "Add and start", step: "review", keyboardTo: "Review command" },
  ])(
    "Esc on $from ($step) closes that step; the keyboard goes to $keyboardTo",
    async ({ from, step, keyboardTo }) => {
      await press("Add server");
      await form().waitFor();
      await page.keyboard.type("half-typed");
      await page.getByRole("textbox", { name: "Command", exact: true }).fill(COMMAND);
      if (step === "review") await press("Review command");
      const target = page
        .getByRole("main")
        .getByRole(step === "review" ? "button" : "textbox", { name: from, exact: true });
      await target.focus();
      await page.keyboard.press("Escape");
      if (step === "review") {
        // Back to the form, as Back does: the edits are still there.
        await page.getByRole("button", { name: "Add and start" }).waitFor({ state: "detached" });
        await expect.poll(focused).toBe(keyboardTo);
        expect(await page.getByRole("textbox", { name: "Name", exact: true }).inputValue()).toBe(
          "half-typed",
        );
        await page.keyboard.press("Escape");
      }
      await form().waitFor({ state: "detached" });
      await expect.poll(focused).toBe("Add server");
      // Nothing was saved: the half-typed server is not listed.
      expect(await page.getByText("half-typed").count()).toBe(0);
    },
  );

  // Removing a server from the keyboard: the question takes the keyboard (on Keep it, the safe
  // answer, as the delete dialog starts on Cancel), Keep it or Esc gives it back to Remove, and once the
  // server is gone it goes to the view's heading. Each step dropped it on the page.
  it("Remove asks with the keyboard on Keep it; Keep it or Esc goes back to Remove; removed, the heading", async () => {
    await press("Remove");
    await page.getByRole("group", { name: "Remove ghost?" }).waitFor();
    await expect.poll(focused).toBe("Keep it");
    await page.keyboard.press("Enter");
    await page.getByRole("group", { name: "Remove ghost?" }).waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Remove");
    // Esc keeps it too.
    await page.keyboard.press("Enter");
    await expect.poll(focused).toBe("Keep it");
    await page.keyboard.press("Escape");
    await page.getByRole("group", { name: "Remove ghost?" }).waitFor({ state: "detached" });
    await expect.poll(focused).toBe("Remove");
    await page.keyboard.press("Enter");
    await expect.poll(focused).toBe("Keep it");
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("Remove");
    await page.keyboard.press("Enter");
    await page.getByText("No MCP servers are configured.").waitFor({ timeout: 15_000 });
    await expect.poll(focused).toBe("Extensions");
  });
});
