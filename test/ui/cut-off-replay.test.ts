// Answers and calls a run never finished — text cut at the output limit, a call whose arguments
// were cut off, a whole call its step never ran, an answer whose connection dropped — are shown
// as such while the run streams and again when the session is opened later: marked cut off or
// not run, never as if whole. A dropped connection offers to continue the conversation. `lathe
// serve` with the loopback fixture model, in Debian's Chromium. Needs `npm run build` first.
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("cut-off replay");

const LIMIT = "Explain it at length.";
const CUT_CALL = "Write big.txt.";
const UNRUN = "Write small.txt.";
const DROP = "Tell me a story.";

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === LIMIT)
    return { text: "The first part of a long explanation, and then", finishReason: "length" };
  if (prompt === CUT_CALL)
    return step === 0
      ? {
          text: "Writing it now.",
          toolCalls: [{ name: "write", arguments: '{"path":"big.txt","content":"a very long conte' }],
          finishReason: "length",
        }
      : { text: "Too long for one call." };
  if (prompt === UNRUN)
    return step === 0
      ? {
          toolCalls: [{ name: "write", arguments: { path: "small.txt", content: "small\n" } }],
          finishReason: "length",
        }
      : { text: "Not written." };
  if (prompt === DROP) return { text: "Once upon a time there was a", dropAfterEvents: 6 };
  return { text: `You said: ${prompt}` };
}

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "cutoff",
    replies: reply,
    settings: { approvals: { mode: "yolo" } },
    viewport: { width: 1100, height: 1400 },
  },
  (started) => {
    page = started.page;
  },
);

/** What the chat shows of each cut-short run: its cut-off marks, and each card's status and body. */
async function expectCutShortRuns(): Promise<void> {
  const conversation = chat.conversation();
  const turns = conversation.locator("li.turn");
  await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(4);
  // Text cut at the output limit: marked where it stops.
  const limit = turns.nth(0);
  expect(await limit.getByRole("note", { name: "Cut off" }).innerText()).toMatch(/cut off here/);
  // A call whose arguments were cut off: it says so, shows what the model wrote, and ran nothing;
  // the text before it and the answer after it are whole.
  const cutCall = turns.nth(1);
  const cutCard = cutCall.getByRole("article", { name: "write call" });
  expect(await cutCard.getByLabel("Status").innerText()).toBe("cut off");
  expect(await cutCard.locator(".tool-card-summary").innerText()).toBe("arguments cut off");
  expect(await cutCard.getByLabel("Arguments as written").innerText()).toBe(
    '{"path":"big.txt","content":"a very long conte',
  );
  expect(await cutCall.getByRole("note", { name: "Cut off" }).count()).toBe(0);
  // A whole call its step never ran: "not run", its content as not written.
  const unrun = turns.nth(2).getByRole("article", { name: "write call" });
  expect(await unrun.getByLabel("Status").innerText()).toBe("not run");
  expect(await unrun.getByLabel("Content not written").innerText()).toBe("small");
  // Why it was not run reads as a note, not as a failure (the badge is not an error's either).
  expect(await unrun.getByLabel("Why it was not run").innerText()).toMatch(/was not run: its step ended/);
  expect(await unrun.getByLabel("Error text").count()).toBe(0);
  expect(await cutCard.getByLabel("Why it was not run").innerText()).toMatch(/was cut off/);
  // A dropped connection: the text so far is marked cut off.
  expect(await turns.nth(3).getByRole("note", { name: "Cut off" }).count()).toBe(1);
  expect(await turns.nth(3).locator(".assistant-text").innerText()).toMatch(/^Once upon/);
  expect(await conversation.getByRole("note", { name: "Cut off" }).count()).toBe(2);
}

describe.skipIf(!runUi)("runs cut short, live and when the session is opened again", () => {
  it("marks cut-off text and calls that never ran, as they stream", async () => {
    for (const prompt of [LIMIT, CUT_CALL, UNRUN, DROP]) {
      await chat.send(prompt);
      await chat.turnEnded();
    }
    await expectCutShortRuns();
    await page.screenshot({ path: path.join(SHOTS, "ui-cut-off-live.png"), fullPage: true });
    // Nothing was written by the calls that never ran.
    expect(await readdir(world().root)).toEqual([]);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 60_000);

  it("marks them the same when the session is opened from the list", async () => {
    await page.getByRole("button", { name: "New chat" }).click();
    await page.getByText("What should the agent do?").waitFor();
    await page.getByRole("complementary").getByText(LIMIT).click();
    await expectCutShortRuns();
    await page.screenshot({ path: path.join(SHOTS, "ui-cut-off-replay.png"), fullPage: true });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 30_000);
});
