// One call's outcome reads the same word wherever the app shows it: a chat's tool card, Run a
// tool's result and the Audit trail. The cards said "ok"/"error", Run a tool said
// "output"/"error" and the Audit view "ran"/"failed" for the very same calls. `lathe serve` in
// yolo mode on a temp folder, the fixture model, the page in Debian's Chromium. Needs
// `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { scriptFor, useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("outcome words");
const PROMPT = "Read the readme and the missing file.";

const reply = scriptFor(PROMPT, [
  {
    toolCalls: [
      { name: "read", arguments: { path: "README.md" } },
      { name: "read", arguments: { path: "missing.md" } },
    ],
  },
  { text: "Read both." },
]);

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "outcome-words",
    replies: reply,
    settings: { approvals: { mode: "yolo" } },
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "README.md"), "# words\n");
    },
    viewport: { width: 1280, height: 860 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("a call's outcome in every view", () => {
  it("reads ok or error on the chat's cards, in Run a tool and in the Audit trail alike", async () => {
    await chat.send(PROMPT);
    await chat.conversation().getByText("Read both.").waitFor({ timeout: 15_000 });
    expect(await chat.card("read").getByLabel("Status").allInnerTexts()).toEqual(["ok", "error"]);
    await page.screenshot({ path: path.join(SHOTS, "ui-outcome-words-chat.png") });

    await goTo(page, "Tools", "Run a tool");
    const envelopeHead = () => page.getByLabel("Envelope", { exact: true }).locator(".badge").innerText();
    await runTool(page, "read", { path: "missing.md" });
    await expect.poll(envelopeHead, { timeout: 10_000 }).toBe("error");
    await page.screenshot({ path: path.join(SHOTS, "ui-outcome-words-run.png") });
    await runTool(page, "read", { path: "README.md" });
    await expect.poll(envelopeHead, { timeout: 10_000 }).toBe("ok");

    await goTo(page, "Audit");
    const calls = page.getByRole("list", { name: "Calls" }).getByRole("listitem");
    // Newest first: Run a tool's two calls, then the chat's (which ran side by side, in either order).
    await expect
      .poll(
        async () => {
          const words = await calls.getByLabel("Outcome").allInnerTexts();
          return [...words.slice(0, 2), ...words.slice(2).sort()];
        },
        { timeout: 10_000 },
      )
      .toEqual(["ok", "error", "error", "ok"]);
    // The filter names its choices by the same words.
    const filter = page.getByRole("radiogroup", { name: "Outcome" });
    expect(await filter.getByRole("radio").allInnerTexts()).toEqual(["all", "ok", "error", "denied"]);
    await filter.getByRole("radio", { name: "error", exact: true }).click();
    await expect.poll(() => calls.getByLabel("Outcome").allInnerTexts()).toEqual(["error", "error"]);
    await page.screenshot({ path: path.join(SHOTS, "ui-outcome-words-audit.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
