// Checkpoints in the chat as a person meets them: `lathe serve` on a folder with real files, the
// page in Debian's Chromium, the real provider client streaming from the loopback fixture server.
// The agent edits files over two prompts; the person changes one by hand, then restores a call
// (asked before their change is overwritten) and rewinds the session to before the second prompt
// (files and conversation); a later call is restored over a chmod the person made since (asked
// first, the preview saying which modes). Needs `npm run build` first.
import { existsSync } from "node:fs";
import { chmod, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("checkpoints");
const PROMPTS = {
  first: "Rewrite a.txt for me.",
  second: "Add b.txt and change c.txt.",
  third: "Overwrite d.txt without looking.",
  fourth: "Rewrite e.txt.",
  fifth: "Rewrite run.sh.",
};

function reply(request: ChatRequest): FixtureReply {
  // One step per answer the model already gave to this prompt.
  const { prompt, step } = scriptTurn(request, "assistant");
  if (prompt === PROMPTS.first) {
    return [
      // A file that exists is read before it is overwritten (the write tool insists).
      { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "agent a\n" } }] },
      { text: "I rewrote a.txt." },
    ][step]!;
  }
  if (prompt === PROMPTS.second) {
    return [
      { toolCalls: [{ name: "read", arguments: { path: "c.txt" } }] },
      {
        toolCalls: [
          { name: "write", arguments: { path: "b.txt", content: "new b\n" } },
          { name: "write", arguments: { path: "c.txt", content: "agent c\n" } },
        ],
      },
      { text: "b.txt is new and c.txt is changed." },
    ][step]!;
  }
  if (prompt === PROMPTS.third) {
    return [
      // d.txt exists and was never read: the write is refused and writes nothing.
      { toolCalls: [{ name: "write", arguments: { path: "d.txt", content: "blind d\n" } }] },
      { text: "The write was refused." },
    ][step]!;
  }
  if (prompt === PROMPTS.fourth) {
    return [
      { toolCalls: [{ name: "read", arguments: { path: "e.txt" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "e.txt", content: "agent e\n" } }] },
      { text: "I rewrote e.txt." },
    ][step]!;
  }
  if (prompt === PROMPTS.fifth) {
    return [
      { toolCalls: [{ name: "read", arguments: { path: "run.sh" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "run.sh", content: "echo agent\n" } }] },
      { text: "I rewrote run.sh." },
    ][step]!;
  }
  return { text: "Nothing to do." };
}

let root: string;
let page: Page;
let problems: string[];

const chat = chatHelpers(() => page);
const { conversation, prompt } = chat;
const turns = () => conversation().locator(":scope > li");
const file = (name: string) => readFile(path.join(root, name), "utf8");

async function send(text: string, done: string): Promise<void> {
  await chat.send(text);
  await conversation()
    .getByText(done)
    .waitFor({ timeout: 15_000 })
    .catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-failed.png") });
      throw error;
    });
  await chat.turnEnded();
}

useChatWorld(
  runUi,
  {
    prefix: "checkpoints",
    replies: reply,
    // The agent's writes need no approval here: this suite is about undoing them.
    settings: { approvals: { mode: "yolo" } },
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "a.txt"), "original a\n");
      await writeFile(path.join(root, "c.txt"), "original c\n");
      await writeFile(path.join(root, "d.txt"), "original d\n");
      await writeFile(path.join(root, "e.txt"), "original e\n");
      await writeFile(path.join(root, "run.sh"), "echo original\n");
      await chmod(path.join(root, "run.sh"), 0o644);
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    ({ root, page, problems } = started);
  },
);

describe.skipIf(!runUi)("checkpoints in the chat through lathe serve", () => {
  it("restores one call's file, asking first because the person changed it since", async () => {
    await send(PROMPTS.first, "I rewrote a.txt.");
    await send(PROMPTS.second, "b.txt is new and c.txt is changed.");
    expect(await file("a.txt")).toBe("agent a\n");
    expect(await file("b.txt")).toBe("new b\n");
    // A write that replaced a file says so and shows what it wrote, not a diff from nothing;
    // a write that created one shows its lines added.
    const replaced = turns().nth(0).getByRole("article", { name: "write call" });
    await replaced.getByText("Replaced the whole file").waitFor({ timeout: 10_000 });
    expect(await replaced.getByLabel("New content").innerText()).toBe("agent a");
    expect(await replaced.getByLabel("Diff").count()).toBe(0);
    const created = turns().nth(1).getByRole("article", { name: "write call" }).first();
    expect(await created.getByLabel("Diff").innerText()).toMatch(/@@ -0,0 \+1,1 @@\s+\+new b/);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-write-cards.png") });
    // The person edits a.txt by hand after the agent did.
    await writeFile(path.join(root, "a.txt"), "person a\n");

    const card = turns().nth(0).getByRole("article", { name: "write call" });
    const restore = card.getByRole("button", { name: "Restore the files write changed" });
    await restore.waitFor({ timeout: 10_000 });
    await restore.click();
    const dialog = page.getByRole("dialog", { name: "Undo what write changed?" });
    await dialog.waitFor();
    const row = dialog.getByRole("listitem", { name: "a.txt" });
    await row.waitFor({ timeout: 10_000 });
    // Its content changed: plain "changed since" (a chmod alone says "mode changed since").
    expect(await row.locator(".restore-path-head").innerText()).toMatch(/will be restored\s*changed since$/);
    expect(await row.locator(".restore-path-head").innerText()).not.toMatch(/mode/);
    const apply = dialog.getByRole("button", { name: "Restore", exact: true });
    // Nothing is overwritten until the person says what to do with their change.
    expect(await apply.isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-restore.png") });
    await row.getByRole("radio", { name: /Overwrite it/ }).check();
    await apply.click();
    const done = page.getByRole("dialog", { name: "Restored" });
    await done.waitFor({ timeout: 10_000 });
    expect(await done.getByRole("status").innerText()).toMatch(/What was replaced is kept/);
    expect(await file("a.txt")).toBe("original a\n");
    await card.getByText("restored", { exact: true }).waitFor({ timeout: 10_000 });
    expect(await card.getByRole("button", { name: "Restore the files write changed" }).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-restored.png") });

    // The person's version it replaced comes back from the same dialog, after a preview.
    await done.getByRole("button", { name: "Undo this restore" }).click();
    const undo = page.getByRole("dialog", { name: "Undo the restore?" });
    await undo.getByRole("listitem", { name: "a.txt" }).waitFor({ timeout: 10_000 });
    expect(await undo.innerText()).toMatch(/before the restore/);
    // Focus follows the dialog to the new question (for the keyboard), rather than being lost.
    expect(await undo.locator(":focus").innerText()).toBe("Cancel");
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-undo-restore.png") });
    await undo.getByRole("button", { name: "Restore", exact: true }).click();
    await done.getByRole("button", { name: "Done" }).click();
    await done.waitFor({ state: "hidden" });
    expect(await file("a.txt")).toBe("person a\n");
    // Undone, the call's changes are back, and so is its Restore.
    await restore.waitFor({ timeout: 10_000 });
    expect(await card.getByText("restored", { exact: true }).count()).toBe(0);

    // Restored again, for the rest of the suite.
    await restore.click();
    await dialog
      .getByRole("listitem", { name: "a.txt" })
      .getByRole("radio", { name: /Overwrite it/ })
      .check();
    await apply.click();
    await done.getByRole("button", { name: "Done" }).click();
    expect(await file("a.txt")).toBe("original a\n");
  });

  it("keeps the person's change when they say so", async () => {
    const card = turns().nth(1).getByRole("article", { name: "write call" }).last();
    await writeFile(path.join(root, "c.txt"), "person c\n");
    await card.getByRole("button", { name: "Restore the files write changed" }).click();
    const dialog = page.getByRole("dialog", { name: "Undo what write changed?" });
    const row = dialog.getByRole("listitem", { name: "c.txt" });
    await row.getByRole("radio", { name: "Keep my version" }).check();
    await dialog.getByRole("button", { name: "Restore", exact: true }).click();
    await page.getByRole("dialog", { name: "Restored" }).getByRole("button", { name: "Done" }).click();
    expect(await file("c.txt")).toBe("person c\n");
  });

  it("rewinds the session to before the second prompt: its files and its conversation", async () => {
    await writeFile(path.join(root, "c.txt"), "agent c\n");
    const second = turns().nth(1);
    await second.hover();
    await second.getByRole("button", { name: "Rewind to before this prompt" }).click();
    const dialog = page.getByRole("dialog", { name: "Rewind to before this prompt?" });
    await dialog.waitFor();
    await dialog.getByRole("listitem", { name: "b.txt" }).waitFor({ timeout: 10_000 });
    // A preview says what will happen, not what has happened: nothing has been done yet.
    expect(await dialog.innerText()).toMatch(/messages? in 1 turn will be removed/);
    expect(await dialog.getByRole("listitem", { name: "b.txt" }).innerText()).toMatch(/will be removed$/);
    expect(await dialog.getByRole("listitem", { name: "c.txt" }).innerText()).toMatch(/will be restored$/);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-rewind.png") });
    await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
    const rewound = page.getByRole("dialog", { name: "Rewound" });
    // The files it replaced can come back from here (the conversation stays rewound).
    await rewound.getByRole("button", { name: "Put the files back" }).waitFor({ timeout: 10_000 });
    expect(await rewound.getByRole("status").innerText()).toMatch(/the conversation stays rewound/);
    // Once done, it says what was done, in the past tense.
    expect(await rewound.getByRole("listitem", { name: "b.txt" }).innerText()).toMatch(/removed$/);
    expect(await rewound.getByRole("listitem", { name: "b.txt" }).innerText()).not.toMatch(/will be/);
    expect(await rewound.getByRole("listitem", { name: "c.txt" }).innerText()).toMatch(/restored$/);
    await rewound.getByRole("button", { name: "Done" }).click();
    await rewound.waitFor({ state: "hidden" });

    expect(existsSync(path.join(root, "b.txt"))).toBe(false);
    expect(await file("c.txt")).toBe("original c\n");
    // The first prompt's restore stays as it was.
    expect(await file("a.txt")).toBe("original a\n");
    await expect.poll(() => turns().count(), { timeout: 10_000 }).toBe(1);
    expect(await conversation().innerText()).not.toContain(PROMPTS.second);
    // The prompt it went back to is in the box, to edit and send again.
    expect(await prompt().inputValue()).toBe(PROMPTS.second);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-after-rewind.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("shows a write that wrote nothing as content not written, not as a file it created", async () => {
    await send(PROMPTS.third, "The write was refused.");
    expect(await file("d.txt")).toBe("original d\n");
    const card = turns().last().getByRole("article", { name: "write call" });
    await card.getByText("Nothing was written").waitFor({ timeout: 10_000 });
    expect(await card.getByLabel("Content not written").innerText()).toBe("blind d");
    // Not "@@ -0,0 +1,1 @@": d.txt was there all along.
    expect(await card.getByLabel("Diff").count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-write-not-written.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("offers no Restore when nothing would change, and asks about a deleted file in its own words", async () => {
    await send(PROMPTS.fourth, "I rewrote e.txt.");
    const card = turns().last().getByRole("article", { name: "write call" });
    const restore = card.getByRole("button", { name: "Restore the files write changed" });
    const dialog = page.getByRole("dialog", { name: "Undo what write changed?" });
    const apply = dialog.getByRole("button", { name: "Restore", exact: true });

    // The person put the old text back by hand: restoring would change nothing.
    await writeFile(path.join(root, "e.txt"), "original e\n");
    await restore.click();
    await dialog.getByText("No file needs to change").waitFor({ timeout: 10_000 });
    expect(await apply.isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });

    // The person deleted it: there is no "version" of theirs to keep; it stays gone or comes back.
    await rm(path.join(root, "e.txt"));
    await restore.click();
    const row = dialog.getByRole("listitem", { name: "e.txt" });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getByRole("radio").count()).toBe(2);
    await row.getByRole("radio", { name: "Leave it deleted" }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-restore-deleted.png") });
    await row.getByRole("radio", { name: "Bring it back" }).check();
    await apply.click();
    await page.getByRole("dialog", { name: "Restored" }).getByRole("button", { name: "Done" }).click();
    expect(await file("e.txt")).toBe("original e\n");
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("asks before putting the old mode back over the person's chmod, saying which modes", async () => {
    await send(PROMPTS.fifth, "I rewrote run.sh.");
    const card = turns().last().getByRole("article", { name: "write call" });
    const restore = card.getByRole("button", { name: "Restore the files write changed" });
    const dialog = page.getByRole("dialog", { name: "Undo what write changed?" });
    const apply = dialog.getByRole("button", { name: "Restore", exact: true });
    const row = dialog.getByRole("listitem", { name: "run.sh" });
    const mode = async () => (await stat(path.join(root, "run.sh"))).mode & 0o7777;

    // Positive control: untouched since, the preview asks nothing.
    await restore.click();
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getByRole("radio").count()).toBe(0);
    expect(await apply.isDisabled()).toBe(false);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });

    // The person makes it executable; the content stays what the agent wrote.
    await chmod(path.join(root, "run.sh"), 0o755);
    await restore.click();
    await row.waitFor({ timeout: 10_000 });
    // A chmod alone: the badge says it was the mode, not the content, that changed.
    expect(await row.locator(".restore-path-head").innerText()).toMatch(
      /will be restored\s*mode changed since$/,
    );
    expect(await row.getByRole("radiogroup").locator(".conflict-why").innerText()).toBe(
      "its mode was changed since (755 now, 644 when write left it), outside this session's tools (by you or another program)",
    );
    expect(await apply.isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, "ui-checkpoints-restore-mode.png") });
    expect(await mode()).toBe(0o755);

    await row.getByRole("radio", { name: /Overwrite it/ }).check();
    await apply.click();
    await page.getByRole("dialog", { name: "Restored" }).getByRole("button", { name: "Done" }).click();
    expect(await file("run.sh")).toBe("echo original\n");
    expect(await mode()).toBe(0o644);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
