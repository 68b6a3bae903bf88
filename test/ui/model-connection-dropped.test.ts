// The model's server drops the connection mid-answer: the chat says what happened and offers to
// continue the conversation, live and after a reload (the way the CLI names `lathe run --resume`).
// Continue goes on in the same session, and the model reads its earlier answer marked as cut off.
// `lathe serve` with the loopback fixture model, in Debian's Chromium. Needs `npm run build` first.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("model connection dropped");

let dropping = true;
const replies = (): FixtureReply =>
  dropping
    ? { text: "Once upon a time there was a", dropAfterEvents: 6 }
    : { text: "a fox who lived in a wood." };

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "dropped",
    replies,
    viewport: { width: 1100, height: 800 },
  },
  (started) => {
    page = started.page;
  },
);

const way = () => chat.conversation().getByRole("group", { name: "Continue the conversation" });

describe.skipIf(!runUi)("the model's connection drops mid-answer", () => {
  it("says so, offers Continue (also after a reload), and Continue goes on in the same session", async () => {
    await chat.send("Tell me a story.");
    await chat.turnEnded();
    const error = chat.conversation().getByRole("alert");
    await error.waitFor({ timeout: 15_000 });
    expect(await error.innerText()).toMatch(/closed the connection before the answer was complete/);
    expect(await error.innerText()).not.toMatch(/--resume/);
    await way().waitFor({ timeout: 5_000 });
    expect(await way().innerText()).toMatch(/kept, marked as cut off/);
    await page.screenshot({ path: path.join(SHOTS, "ui-connection-dropped.png") });

    // A redrawn session offers the same way on.
    await page.reload();
    await way().waitFor({ timeout: 10_000 });
    const sent = world().fixture!.requests.length;
    dropping = false;
    await way().getByRole("button", { name: "Continue" }).click();
    await chat.conversation().getByText("a fox who lived in a wood.").waitFor({ timeout: 15_000 });
    await chat.turnEnded();
    // The way on is gone once the conversation went on, and it went on in the same session:
    // the model was sent its earlier answer, marked as cut off.
    expect(await way().count()).toBe(0);
    const request = world().fixture!.requests[sent]!;
    const history = request.messages.map((m) => `${m.role}: ${String(m.content)}`);
    expect(history.slice(1, 3)).toEqual([
      "user: Tell me a story.",
      expect.stringMatching(/^assistant: Once upon a \S*[\s\S]*\[Lathe: this answer was cut off here/),
    ]);
    expect(history.at(-1)).toBe("user: Go on from where your answer was cut off.");
    expect(await page.getByRole("complementary").getByText("Tell me a story.").count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, "ui-connection-dropped-continued.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 60_000);
});
