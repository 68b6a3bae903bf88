// The session list as a person uses it: `lathe serve` on a folder, the page in Debian's Chromium,
// the real OpenAI-compatible client streaming from the loopback fixture. Chats made in the page
// appear in the sidebar (titled by their first prompt, with time and model, a task nested under
// the chat that started it); one is resumed and continued, renamed, found by search, and deleted
// after a confirmation with its task. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("sessions");

const FIRST = "Fix the flaky login test";
const SECOND = "Delegate the release notes";
const THIRD = "Explain the build script";
const CHILD = "child: draft the notes";

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === SECOND) {
    if (step === 0)
      return {
        toolCalls: [{ name: "task", arguments: { description: "Draft the release notes", prompt: CHILD } }],
      };
    return { text: "The notes are drafted." };
  }
  if (prompt === CHILD) return { text: "Notes: everything got better." };
  // Follow-ups say how many turns the model saw: the history of a resumed session.
  const turns = request.messages.filter((m) => m.role === "user").length;
  return { text: `Answer ${turns} to: ${prompt}` };
}

let page: Page;
let problems: string[];

const sidebar = () => page.getByRole("list", { name: "Session list" });
const row = (title: string | RegExp) => sidebar().getByRole("listitem", { name: title });
const { conversation, send, turnEnded } = chatHelpers(() => page);

async function chat(text: string, answer: string | RegExp): Promise<void> {
  await send(text);
  await conversation().getByText(answer).waitFor({ timeout: 10_000 });
  await turnEnded();
}

async function newChat(): Promise<void> {
  await page.getByRole("button", { name: "New chat" }).click();
  await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
}

/** The titles of the sessions at the top of the list, in order. */
async function topTitles(): Promise<string[]> {
  return sidebar().locator(":scope > li > .session-row .session-title").allInnerTexts();
}

useChatWorld(
  runUi,
  {
    prefix: "sessions",
    replies: reply,
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "README.md"), "# sessions fixture\n");
    },
    viewport: { width: 1280, height: 860 },
  },
  (started) => {
    ({ page, problems } = started);
  },
);

describe.skipIf(!runUi)("sessions in the sidebar through lathe serve", () => {
  it("lists each chat, newest first, titled by its first prompt with its time and model; tasks nest under their chat", async () => {
    await expect.poll(() => page.getByText("No sessions yet.").count()).toBe(1);
    await chat(FIRST, `Answer 1 to: ${FIRST}`);
    await newChat();
    await chat(SECOND, "The notes are drafted.");
    await newChat();
    await chat(THIRD, `Answer 1 to: ${THIRD}`);

    await expect.poll(topTitles, { timeout: 10_000 }).toEqual([THIRD, SECOND, FIRST]);
    const first = row(FIRST);
    expect(await first.locator(".session-meta").innerText()).toMatch(/just now · fixture-model/);
    expect(await first.locator(".session-meta [title]").getAttribute("title")).toBe(
      "openai-compatible:fixture-model",
    );
    // The task the second chat started sits under it.
    const tasks = row(SECOND).getByRole("list", { name: `Tasks of ${SECOND}` });
    expect(await tasks.getByRole("listitem").allInnerTexts()).toEqual([
      expect.stringContaining("Draft the release notes"),
    ]);
    // The chat on screen is marked in the list.
    expect(
      await row(THIRD).getByRole("button", { name: THIRD, exact: true }).getAttribute("aria-current"),
    ).toBe("true");
    await page.screenshot({ path: path.join(SHOTS, "ui-sessions.png") });
  });

  it("resumes an older session: its conversation comes back, and a follow-up continues it", async () => {
    await row(FIRST).getByRole("button", { name: FIRST, exact: true }).click();
    await conversation().getByText(`Answer 1 to: ${FIRST}`).waitFor({ timeout: 10_000 });
    expect(await conversation().getByText(THIRD).count()).toBe(0);
    expect(await page.locator(".chat-title").innerText()).toBe(FIRST);
    // The model sees the earlier turn: this is its second user message.
    await chat("And the logout test?", "Answer 2 to: And the logout test?");
    await expect.poll(topTitles).toEqual([FIRST, THIRD, SECOND]);
    // A task session opens like any other.
    await row(SECOND).getByRole("button", { name: SECOND, exact: true }).waitFor();
    await row(SECOND).getByRole("button", { name: "Draft the release notes", exact: true }).click();
    await conversation().getByText("Notes: everything got better.").waitFor({ timeout: 10_000 });
  });

  it("renames a session in place; the name stays after a reload", async () => {
    await row(THIRD)
      .getByRole("button", { name: `Rename ${THIRD}` })
      .click();
    const field = page.getByRole("textbox", { name: "Session name" });
    await field.fill("Build script notes");
    await field.press("Enter");
    await row("Build script notes").waitFor();
    // Esc leaves a rename without changing anything.
    await row("Build script notes").getByRole("button", { name: "Rename Build script notes" }).click();
    await page.getByRole("textbox", { name: "Session name" }).fill("Something else");
    await page.getByRole("textbox", { name: "Session name" }).press("Escape");
    await row("Build script notes")
      .getByRole("button", { name: "Build script notes", exact: true })
      .waitFor();
    await page.reload();
    await row("Build script notes").waitFor({ timeout: 10_000 });
    expect(await topTitles()).toContain("Build script notes");
    expect(await topTitles()).not.toContain(THIRD);
  });

  it("searches titles and what was said", async () => {
    const search = page.getByRole("searchbox", { name: "Search sessions" });
    await search.fill("logout");
    await expect.poll(topTitles).toEqual([FIRST]);
    await search.fill("BUILD SCRIPT");
    await expect.poll(topTitles).toEqual(["Build script notes"]);
    await search.fill("nothing says this");
    await page.getByText("No session mentions “nothing says this”.").waitFor();
    await search.fill("");
    await expect.poll(async () => (await topTitles()).length).toBe(3);
  });

  it("deletes a session only after confirming, with the task it started", async () => {
    // A session that started no task is one session, with its own messages.
    await row(FIRST)
      .getByRole("button", { name: `Delete ${FIRST}` })
      .click();
    const single = page.getByRole("dialog", { name: "Delete this session?" });
    await single.waitFor();
    expect(await single.innerText()).toMatch(/will be deleted with all its messages\./);
    await single.getByRole("button", { name: "Cancel" }).click();
    await single.waitFor({ state: "hidden" });

    await row(SECOND)
      .getByRole("button", { name: `Delete ${SECOND}` })
      .click();
    const dialog = page.getByRole("dialog", { name: "Delete this session?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(
      /and the 1 task session it started will be deleted with all their messages\./,
    );
    await page.screenshot({ path: path.join(SHOTS, "ui-sessions-delete.png") });
    // Cancel (and Esc) keep it.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    await row(SECOND)
      .getByRole("button", { name: `Delete ${SECOND}` })
      .click();
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await topTitles()).toContain(SECOND);

    await row(SECOND)
      .getByRole("button", { name: `Delete ${SECOND}` })
      .click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(topTitles).toEqual([FIRST, "Build script notes"]);
    expect(await sidebar().getByText("Draft the release notes").count()).toBe(0);
    // Gone for good: a reload lists the same.
    await page.reload();
    await expect.poll(topTitles, { timeout: 10_000 }).toEqual([FIRST, "Build script notes"]);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
