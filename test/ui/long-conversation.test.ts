// A long conversation opens quickly: a run of hundreds of calls recorded in the store (each a
// text and a card) is drawn from its latest items, with a note above them saying how many earlier
// ones are not drawn and a button that draws more. Before, every item was drawn at once: a run of
// 10,000 calls took half a minute to show (190,000 elements, 400 MB of page memory).
// `lathe serve` with the loopback fixture model, the page in Debian's Chromium.
// Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { openDatabase } from "../../src/main/engine/store/database.ts";
import { ConversationStore, type ConversationBatch } from "../../src/main/engine/store/conversation-store.ts";
import { DRAWN_ITEMS } from "../../src/renderer/state/transcript-window.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("long conversation");
const FIRST = "Read the README.";
const LONG = "Read it again, many times.";
/** Steps of the long run: a text and a read card each. */
const STEPS = 600;

function reply(request: ChatRequest): FixtureReply {
  const { step } = scriptTurn(request, "tool");
  return step === 0
    ? { toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }
    : { text: "Read it." };
}

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "long-conversation",
    replies: reply,
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "README.md"), "# long\n");
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    page = started.page;
  },
);

/** A run of STEPS calls recorded in the session after its first turn, as `lathe run` records one. */
function recordLongRun(home: string): void {
  const db = openDatabase(path.join(home, "lathe.db"));
  try {
    const store = new ConversationStore(db);
    const { session_id: sessionId } = db.prepare("SELECT session_id FROM conversations").get() as {
      session_id: string;
    };
    let { message, event } = store.nextSeq(sessionId);
    const runId = "r-long-run";
    const batch: ConversationBatch = { messages: [], events: [] };
    const addEvent = (data: Record<string, unknown>) =>
      batch.events.push({ seq: event++, runId, type: String(data.type), json: JSON.stringify(data) });
    const envelope = {
      type: "output",
      data: { path: "README.md", content: "# long\n" },
      metadata: { duration_ms: 1 },
    };
    batch.messages.push({ seq: message++, runId, role: "user", parts: [{ type: "text", text: LONG }] });
    addEvent({
      type: "start",
      sessionId,
      runId,
      agent: "default",
      model: "openai-compatible:m",
      resumed: true,
    });
    for (let step = 0; step < STEPS; step++) {
      const toolCallId = `call-${step}`;
      const text = `Pass ${step} over the README.`;
      batch.messages.push(
        {
          seq: message++,
          runId,
          role: "assistant",
          parts: [
            { type: "text", text },
            { type: "tool-call", toolCallId, toolName: "read", input: { path: "README.md" } },
          ],
        },
        {
          seq: message++,
          runId,
          role: "tool",
          parts: [{ type: "tool-result", toolCallId, toolName: "read", envelope: envelope as never }],
        },
      );
      addEvent({ type: "step-start", step });
      addEvent({ type: "text", step, text });
      addEvent({ type: "tool-call", step, toolCallId, toolName: "read", input: { path: "README.md" } });
      addEvent({ type: "tool-result", step, toolCallId, toolName: "read", envelope });
      addEvent({
        type: "step-finish",
        step,
        finishReason: "tool-calls",
        usage: { inputTokens: 1, outputTokens: 1 },
      });
    }
    batch.messages.push({
      seq: message++,
      runId,
      role: "assistant",
      parts: [{ type: "text", text: "Read it many times." }],
    });
    addEvent({ type: "step-start", step: STEPS });
    addEvent({ type: "text", step: STEPS, text: "Read it many times." });
    addEvent({ type: "step-finish", step: STEPS, finishReason: "stop", usage: {} });
    addEvent({ type: "finish", status: "completed", finishReason: "stop", steps: STEPS + 1, usage: {} });
    store.write(sessionId, batch);
  } finally {
    db.close();
  }
}

describe.skipIf(!runUi)("a conversation of hundreds of calls", () => {
  it("draws its latest items when opened, and earlier ones when asked", async () => {
    await chat.send(FIRST);
    await chat.turnEnded();
    recordLongRun(world().home);

    await page.getByRole("button", { name: "New chat" }).click();
    await page.getByText("What should the agent do?").waitFor();
    await page.getByRole("complementary").getByText(FIRST).click();
    const conversation = chat.conversation();
    await conversation.getByText("Read it many times.").waitFor({ timeout: 15_000 });

    // 2 items of the first turn + 2 per step + the last answer; the latest DRAWN_ITEMS are drawn.
    const total = 2 + STEPS * 2 + 1;
    const earlier = page.getByRole("note", { name: "Earlier items not shown" });
    expect(await earlier.innerText()).toContain(`${total - DRAWN_ITEMS} earlier items`);
    expect(await chat.card("read").count()).toBe(DRAWN_ITEMS / 2);
    await expect.poll(() => conversation.getByText(`Pass ${STEPS - 1} over the README.`).count()).toBe(1);
    expect(await conversation.getByText("Pass 0 over the README.", { exact: true }).count()).toBe(0);
    // The turn the cut falls in still shows its prompt (and its Rewind).
    expect(await conversation.getByLabel("Your prompt").allInnerTexts()).toEqual([LONG]);
    await page.screenshot({ path: path.join(SHOTS, "ui-long-conversation.png") });
    await earlier.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-long-conversation-earlier.png") });

    await earlier.getByRole("button", { name: `Show ${DRAWN_ITEMS} earlier` }).click();
    await expect.poll(() => chat.card("read").count()).toBe(DRAWN_ITEMS);
    // Each press draws DRAWN_ITEMS more, the last what is left.
    while ((await earlier.count()) > 0) await earlier.getByRole("button").click();
    // Down to the start: every card, both prompts, and no note left.
    await expect.poll(() => chat.card("read").count()).toBe(STEPS + 1);
    expect(await conversation.getByLabel("Your prompt").allInnerTexts()).toEqual([FIRST, LONG]);
    expect(await earlier.count()).toBe(0);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 60_000);
});
