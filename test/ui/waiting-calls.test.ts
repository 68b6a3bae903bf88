// What every card and list says while a call waits, rather than "running" with a timer counting:
// a write the model made right after another waits in the queue until the first is done ("queued"),
// a read identical to one whose prompt is up waits on that prompt ("awaiting approval"), and a
// call run from the Tools view waiting for its answer says so in the activity list and its button;
// a question waiting for the person's answer says so too.
// `lathe serve` on a temp folder, the fixture model, the page in Debian's Chromium.
// Needs `npm run build` first.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("waiting calls");
const TWO_WRITES = "Write a.txt and b.txt.";
const TWO_READS = "Read .env twice.";
const ASK = "Ask me which colour.";

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "assistant");
  if (step > 0) return { text: `Done: ${prompt}` };
  if (prompt === TWO_WRITES) {
    return {
      toolCalls: [
        { name: "write", arguments: { path: "a.txt", content: "a\n" } },
        { name: "write", arguments: { path: "b.txt", content: "b\n" } },
      ],
    };
  }
  if (prompt === TWO_READS) {
    return {
      toolCalls: [
        { name: "read", arguments: { path: ".env" } },
        { name: "read", arguments: { path: ".env" } },
      ],
    };
  }
  if (prompt === ASK) {
    return {
      toolCalls: [
        {
          name: "question",
          arguments: {
            questions: [{ question: "Which colour?", options: [{ label: "Red" }, { label: "Blue" }] }],
          },
        },
      ],
    };
  }
  return { text: "Nothing to do." };
}

const world = useChatWorld(runUi, {
  prefix: "waiting-calls",
  replies: reply,
  settings: { permissions: [{ permission: "read", pattern: ".env", action: "ask" }] },
  prepare: async ({ root }) => {
    await writeFile(path.join(root, ".env"), "TOKEN=1\n");
  },
  viewport: { width: 1280, height: 900 },
});
const { chat } = world;

/** What a card or an activity row says in its status badge (read even behind the dialog). */
const statusOf = (item: Locator) => item.locator('[aria-label="Status"]').innerText();
/** The `index`th card of `tool`'s calls in the conversation (behind the dialog too). */
const cardAt = (tool: string, index: number) =>
  world().page.locator(`[aria-label="Conversation"] article[aria-label="${tool} call"]`).nth(index);

describe.skipIf(!runUi)("a call that waits says what for", () => {
  it.each([
    {
      prompt: TWO_WRITES,
      tool: "write",
      // The second write waits in the queue behind the first, which waits for its answer.
      before: ["awaiting approval", "queued"],
      shot: "ui-waiting-queued.png",
    },
    {
      prompt: TWO_READS,
      tool: "read",
      // The same read twice asks once: the second waits on the first one's prompt.
      before: ["awaiting approval", "awaiting approval"],
      shot: "ui-waiting-same-prompt.png",
    },
  ])(
    "$prompt: $before",
    async ({ prompt, tool, before, shot }) => {
      const { page } = world();
      await page.getByRole("button", { name: "New chat" }).click();
      await chat.send(prompt);
      await chat.approval(tool).waitFor({ timeout: 15_000 });
      const cards = [cardAt(tool, 0), cardAt(tool, 1)];
      for (const [i, card] of cards.entries()) await expect.poll(() => statusOf(card)).toBe(before[i]);
      // No timer counts while nothing runs.
      for (const card of cards) expect(await card.locator('[aria-label="Elapsed"]').count()).toBe(0);
      await page.screenshot({ path: path.join(SHOTS, shot) });
      const allowOnce = chat.approval(tool).getByRole("button", { name: "Allow once" });
      await allowOnce.click();
      // The other asks for its own answer once the one allowed is done ("once" covers one call).
      // Which read asks first is the engine's race; the writes keep their order.
      const statuses = () => Promise.all(cards.map(statusOf));
      await expect
        .poll(async () => (await statuses()).sort(), { timeout: 10_000 })
        .toEqual(["awaiting approval", "ok"]);
      if (tool === "write") expect(await statuses()).toEqual(["ok", "awaiting approval"]);
      await allowOnce.click();
      await expect.poll(statuses, { timeout: 10_000 }).toEqual(["ok", "ok"]);
      expect(await cardAt(tool, 2).count()).toBe(0);
      await chat.conversation().getByText(`Done: ${prompt}`).waitFor({ timeout: 10_000 });
      await chat.turnEnded();
    },
    60_000,
  );

  it("a question waiting for the person's answer says so, with no timer, and ok once answered", async () => {
    const { page } = world();
    await page.getByRole("button", { name: "New chat" }).click();
    await chat.send(ASK);
    const dialog = page.getByRole("dialog", { name: "The agent asks" });
    await dialog.waitFor({ timeout: 15_000 });
    const card = cardAt("question", 0);
    await expect.poll(() => statusOf(card)).toBe("awaiting answer");
    expect(await card.locator('[aria-label="Elapsed"]').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-waiting-question.png") });
    await dialog.getByRole("radio", { name: "Blue" }).check();
    await dialog.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => statusOf(card), { timeout: 10_000 }).toBe("ok");
    await chat.conversation().getByText(`Done: ${ASK}`).waitFor({ timeout: 10_000 });
    await chat.turnEnded();
  });

  it("a write run from the Tools view waits for approval in its button and the activity list", async () => {
    const { page, root, problems } = world();
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "write", { path: "c.txt", content: "c\n" });
    const dialog = page.getByRole("dialog", { name: "Allow write to run?" });
    await dialog.waitFor({ timeout: 10_000 });
    const latest = page.locator('[aria-label="Tool activity"] > li').first();
    await expect.poll(() => statusOf(latest)).toBe("awaiting approval");
    const run = page.locator('form.runner button[type="submit"]');
    expect(await run.innerText()).toBe("Waiting for approval…");
    await page.screenshot({ path: path.join(SHOTS, "ui-waiting-activity.png") });
    await dialog.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => statusOf(latest), { timeout: 10_000 }).toBe("ok");
    expect(await readFile(path.join(root, "c.txt"), "utf8")).toBe("c\n");
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
