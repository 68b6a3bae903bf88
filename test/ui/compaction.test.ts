// A conversation that fills the model's context is summarised and goes on: the chat shows a
// divider where it happened ("Earlier conversation summarised"), which opens to the summary, and
// keeps every earlier message above it — live and when the session is opened again. `lathe serve`
// with the loopback fixture model (its context set small in settings), in Debian's Chromium.
// Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("compaction");

const SUMMARY = "Goals and constraints: the person asked for three long answers.\n\nDone: the first two.";

function reply(request: ChatRequest): FixtureReply {
  if (String(request.messages[0]?.content ?? "").includes("working notes that replace"))
    return { text: SUMMARY };
  const { prompt } = scriptTurn(request, "tool");
  return { text: `Answer to ${prompt}: ${"lorem ipsum ".repeat(500)}` };
}

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "compaction",
    replies: reply,
    // A small window: the fourth prompt no longer fits beside the three answers.
    provider: { contextTokens: 8_000 },
    viewport: { width: 1100, height: 1400 },
  },
  (started) => {
    page = started.page;
  },
);

async function expectDivider(): Promise<void> {
  const conversation = chat.conversation();
  const divider = conversation.getByRole("group", { name: "Earlier conversation summarised" });
  await expect.poll(() => divider.count(), { timeout: 10_000 }).toBe(1);
  expect((await divider.locator("summary").innerText()).replace(/\s+/g, " ")).toMatch(
    /^Earlier conversation summarised · \d+ messages \(it neared the model's context window\), about \d+ → \d+ tokens a request$/,
  );
  // Closed, the summary is out of the way; opened, it reads as written.
  expect(await divider.getByText("Done: the first two.").isVisible()).toBe(false);
  await divider.locator("summary").click();
  expect(await divider.getByText("Done: the first two.").isVisible()).toBe(true);
  // Nothing is lost from the chat: the first answer is still there, above the divider.
  expect(await conversation.getByText(/^Answer to first:/).count()).toBe(1);
}

describe.skipIf(!runUi)("a conversation summarised when it fills the context", () => {
  it("shows a divider that opens to the summary, and the run goes on", async () => {
    for (const prompt of ["first", "second", "third", "fourth"]) {
      await chat.send(prompt);
      await chat.turnEnded();
    }
    await expectDivider();
    expect(
      await chat
        .conversation()
        .getByText(/^Answer to fourth:/)
        .count(),
    ).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, "ui-compaction-live.png"), fullPage: true });
    const summaries = world().fixture!.requests.filter((r) =>
      String(r.messages[0]?.content ?? "").includes("working notes that replace"),
    );
    expect(summaries.length).toBeGreaterThan(0);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 90_000);

  it("shows it the same when the session is opened from the list", async () => {
    await page.getByRole("button", { name: "New chat" }).click();
    await page.getByText("What should the agent do?").waitFor();
    await page.getByRole("complementary").getByText("first").first().click();
    await expectDivider();
    await page.screenshot({ path: path.join(SHOTS, "ui-compaction-replay.png"), fullPage: true });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 30_000);
});
