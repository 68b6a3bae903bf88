// One call's outcome wears one colour wherever the app shows it. A call the person refused had a
// red "denied" badge on its chat card and in the Activity list, but an amber one in the Audit
// trail: the same refusal read as broken in two views and as a warning in the third. Denied is
// the warning (amber) tone everywhere: refused, not broken; an error stays red. `lathe serve` on
// a temp folder asking before writes, the fixture model, the page in Debian's Chromium. Needs
// `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { scriptFor, useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("outcome colours");
const PROMPT = "Write the notes and read the missing file.";

const reply = scriptFor(PROMPT, [
  {
    toolCalls: [
      { name: "write", arguments: { path: "notes.txt", content: "refused\n" } },
      { name: "read", arguments: { path: "missing.md" } },
    ],
  },
  { text: "One refused, one failed." },
]);

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "outcome-colours",
    replies: reply,
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "README.md"), "# colours\n");
    },
    viewport: { width: 1280, height: 860 },
  },
  (started) => {
    page = started.page;
  },
);

interface Look {
  text: string;
  badge: string;
  edge: string;
}

/** A badge's words and colours, and the coloured edge of the row or card that holds it. */
async function lookOf(
  badge: Locator,
  edgeOf: Locator,
  edge: "borderLeftColor" | "borderTopColor",
): Promise<Look> {
  const text = await badge.innerText();
  const badgeColours = await badge.evaluate((el) => {
    const style = el.ownerDocument.defaultView!.getComputedStyle(el);
    return `${style.color} on ${style.backgroundColor}`;
  });
  const edgeColour = await edgeOf.evaluate(
    (el, side) => el.ownerDocument.defaultView!.getComputedStyle(el)[side],
    edge,
  );
  return { text, badge: badgeColours, edge: edgeColour };
}

describe.skipIf(!runUi)("a call's outcome colour in every view", () => {
  it("is the same for a denied call on its chat card, in Activity and in the Audit trail, and not an error's", async () => {
    await chat.send(PROMPT);
    await chat.answerWithKey("write", "n");
    await chat.conversation().getByText("One refused, one failed.").waitFor({ timeout: 15_000 });
    const chatDenied = await lookOf(
      chat.card("write").getByLabel("Status"),
      chat.card("write"),
      "borderLeftColor",
    );
    const chatError = await lookOf(
      chat.card("read").getByLabel("Status"),
      chat.card("read"),
      "borderLeftColor",
    );
    expect([chatDenied.text, chatError.text]).toEqual(["denied", "error"]);
    // Why it was refused reads in the refusal's tone too, not in an error's red box.
    const boxColours = (tool: string) =>
      chat
        .card(tool)
        .getByLabel("Error text")
        .evaluate((el) => {
          const style = el.ownerDocument.defaultView!.getComputedStyle(el);
          return `${style.color} on ${style.backgroundColor}`;
        });
    expect(await boxColours("write")).toBe(chatDenied.badge);
    expect(await boxColours("read")).toBe(chatError.badge);
    await page.screenshot({ path: path.join(SHOTS, "ui-outcome-colours-chat.png") });

    // The Activity list is Run a tool's: the same two calls, made there.
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "write", { path: "notes.txt", content: "refused\n" });
    await chat.answerWithKey("write", "n");
    await runTool(page, "read", { path: "missing.md" });
    const activityItem = (tool: string) =>
      page.locator(".activity-item").filter({ has: page.getByText(tool, { exact: true }) });
    await expect
      .poll(() => activityItem("read").getByLabel("Status").innerText(), { timeout: 10_000 })
      .toBe("error");
    const activityDenied = await lookOf(
      activityItem("write").getByLabel("Status"),
      activityItem("write"),
      "borderTopColor",
    );
    const activityError = await lookOf(
      activityItem("read").getByLabel("Status"),
      activityItem("read"),
      "borderTopColor",
    );
    expect([activityDenied.text, activityError.text]).toEqual(["denied", "error"]);
    await activityItem("write").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-outcome-colours-activity.png") });

    await goTo(page, "Audit");
    // Newest first: each tool's first row is its Run a tool call, then the chat's.
    const row = (tool: string) =>
      page
        .getByRole("list", { name: "Calls" })
        .getByRole("listitem", { name: `${tool} call` })
        .first();
    await row("write").getByLabel("Outcome").waitFor({ timeout: 10_000 });
    const auditDenied = await lookOf(row("write").getByLabel("Outcome"), row("write"), "borderLeftColor");
    const auditError = await lookOf(row("read").getByLabel("Outcome"), row("read"), "borderLeftColor");
    expect([auditDenied.text, auditError.text]).toEqual(["denied", "error"]);
    await page.screenshot({ path: path.join(SHOTS, "ui-outcome-colours-audit.png") });

    // The chat's colours for each outcome are every view's.
    expect({ activity: activityDenied, audit: auditDenied }).toEqual({
      activity: chatDenied,
      audit: chatDenied,
    });
    expect({ activity: activityError, audit: auditError }).toEqual({ activity: chatError, audit: chatError });
    // And a refusal does not look like a failure.
    expect(chatDenied.badge).not.toBe(chatError.badge);
    expect(chatDenied.edge).not.toBe(chatError.edge);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
