// Two (then three) browser tabs on one `lathe serve`, one chat: an approval prompt or a question
// the run asks shows in every tab that has the session open (also one that opens it after it was
// asked), can be answered from any of them, and leaves all of them once answered; closing the tab
// that started the run stops it, and the other tabs show it stopped, with no dialog left behind.
// The page in Debian's Chromium, the loopback fixture model. Needs `npm run build` first.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, openSecondTab, openWatchedPage, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("prompts in two tabs");

const PROMPTS = {
  write: "Write the note.",
  colour: "Pick a colour.",
  again: "Write another note.",
};

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === PROMPTS.write) {
    if (step === 0)
      return { toolCalls: [{ name: "write", arguments: { path: "notes/one.txt", content: "one\n" } }] };
    return { text: "The note is written." };
  }
  if (prompt === PROMPTS.colour) {
    if (step === 0) {
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
    return { text: "Blue it is." };
  }
  if (prompt === PROMPTS.again) {
    if (step === 0)
      return { toolCalls: [{ name: "write", arguments: { path: "notes/two.txt", content: "two\n" } }] };
    return { text: "Never reached." };
  }
  return { text: "Nothing to do." };
}

let second: Page;
const other = chatHelpers(() => second);
const list = (page: Page) => page.getByRole("list", { name: "Session list" });
const question = (page: Page) => page.getByRole("dialog", { name: "The agent asks" });

const world = useChatWorld(
  runUi,
  {
    prefix: "prompts-tabs",
    replies: reply,
    viewport: { width: 1100, height: 800 },
  },
  async (started) => {
    second = await openSecondTab(started);
  },
);
const first = world.chat;

describe.skipIf(!runUi)("approvals and questions in two tabs", () => {
  it("shows a pending approval in a tab that opens the session later; answered there, it leaves both", async () => {
    await first.send(PROMPTS.write);
    await first.approval("write").waitFor({ timeout: 10_000 });

    // Before it is opened here, the session list says it waits for an answer.
    const row = list(second).getByRole("listitem", { name: PROMPTS.write });
    await row.getByText("waits for you").waitFor({ timeout: 10_000 });
    await row.click();
    await other.approval("write").waitFor({ timeout: 10_000 });
    expect(await other.approval("write").innerText()).toContain("notes/one.txt");
    await second.screenshot({ path: path.join(SHOTS, "ui-prompts-two-tabs-approval.png") });

    await other.approval("write").getByRole("button", { name: "Allow once" }).click();
    await other.approval("write").waitFor({ state: "hidden" });
    await first.approval("write").waitFor({ state: "hidden", timeout: 10_000 });
    await first.conversation().getByText("The note is written.").waitFor({ timeout: 10_000 });
    await other.conversation().getByText("The note is written.").waitFor({ timeout: 10_000 });
    expect(await readFile(path.join(world().root, "notes/one.txt"), "utf8")).toBe("one\n");
    // The session list hears of the answer by its own push, which may come just after the chat's.
    await expect.poll(() => list(second).getByText("waits for you").count(), { timeout: 10_000 }).toBe(0);
    // No refusal said anywhere: the tab that asked saw its prompt answered, not failed.
    expect(
      await world()
        .page.getByText(/did not reach Lathe/)
        .count(),
    ).toBe(0);
    await world().page.screenshot({ path: path.join(SHOTS, "ui-prompts-two-tabs-answered.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("shows a question in both tabs on the session; answered in one, it leaves the other", async () => {
    await first.send(PROMPTS.colour);
    await question(world().page).waitFor({ timeout: 10_000 });
    await question(second).waitFor({ timeout: 10_000 });
    await second.screenshot({ path: path.join(SHOTS, "ui-prompts-two-tabs-question.png") });

    await question(world().page).getByRole("radio", { name: "Blue" }).check();
    await question(world().page).getByRole("button", { name: "Answer" }).click();
    await question(world().page).waitFor({ state: "hidden" });
    await question(second).waitFor({ state: "hidden", timeout: 10_000 });
    await other.conversation().getByText("Blue it is.").waitFor({ timeout: 10_000 });
    await first.turnEnded();
    await other.turnEnded();
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("stops the run when the tab that started it closes: the other tab shows it stopped, no dialog", async () => {
    const third = await openWatchedPage(world().browser, world().problems, { width: 1100, height: 800 });
    await third.goto(world().url);
    const starter = chatHelpers(() => third);
    await starter.prompt().waitFor({ timeout: 10_000 });
    // Start from the same session the others show.
    await list(third).getByRole("listitem", { name: PROMPTS.write }).click();
    await starter.conversation().getByText("Blue it is.").waitFor({ timeout: 10_000 });
    await starter.send(PROMPTS.again);
    await starter.approval("write").waitFor({ timeout: 10_000 });
    await other.approval("write").waitFor({ timeout: 10_000 });

    await third.close();
    await other.approval("write").waitFor({ state: "hidden", timeout: 10_000 });
    await first.approval("write").waitFor({ state: "hidden", timeout: 10_000 });
    await other.turnEnded();
    await first.turnEnded();
    await expect.poll(() => other.conversation().innerText()).toMatch(/stopped/i);
    expect(existsSync(path.join(world().root, "notes/two.txt"))).toBe(false);
    await second.screenshot({ path: path.join(SHOTS, "ui-prompts-two-tabs-closed.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
