// A chat tool call that waits for the person's approval, as its card shows it: it says it waits
// for approval (no ticking timer, which would read as work going on), and says "running" only
// once the person allowed it. The card said "running" with its timer counting the whole time the
// dialog was open. `lathe serve` on a temp folder, the fixture model, the page in Debian's
// Chromium. Needs `npm run build` first.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scriptFor, useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("approval waiting card");
const PROMPT = "Write notes.txt, then run a slow command.";

const reply = scriptFor(PROMPT, [
  { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "hello\n" } }] },
  { toolCalls: [{ name: "bash", arguments: { command: "sleep 2 && echo slept" } }] },
  { text: "Both done." },
]);

const world = useChatWorld(runUi, {
  prefix: "approval-waiting",
  replies: reply,
  viewport: { width: 1280, height: 900 },
});
const { chat } = world;

describe.skipIf(!runUi)("a tool card while its call waits for approval", () => {
  it("says it waits for approval, with no timer, and running only once allowed", async () => {
    const { page, root, problems } = world();
    await chat.send(PROMPT);
    await chat.approval("write").waitFor({ timeout: 15_000 });
    const write = chat.lastCard("write");
    await expect.poll(() => write.getByLabel("Status").innerText()).toBe("awaiting approval");
    // No timer counts while nothing runs.
    expect(await write.getByLabel("Elapsed").count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-approval-waiting-card.png") });
    await chat.allowOnce("write");
    await expect.poll(() => write.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("ok");
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("hello\n");

    // A slow call, once allowed, is "running" while it runs.
    await chat.approval("bash").waitFor({ timeout: 15_000 });
    const bash = chat.lastCard("bash");
    await expect.poll(() => bash.getByLabel("Status").innerText()).toBe("awaiting approval");
    await chat.allowOnce("bash");
    await expect.poll(() => bash.getByLabel("Status").innerText(), { timeout: 5_000 }).toBe("running");
    await page.screenshot({ path: path.join(SHOTS, "ui-approval-waiting-card-running.png") });
    await expect.poll(() => bash.getByLabel("Status").innerText(), { timeout: 15_000 }).toBe("ok");
    await chat.conversation().getByText("Both done.").waitFor({ timeout: 10_000 });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
