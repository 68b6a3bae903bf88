// Stopping the whole run from the approval dialog, as a person asked to approve does: the dialog
// is modal, so the run's Stop and the Stop on queued cards behind it cannot be reached while it is
// open, and Reject only answers this one call (the model goes on, the next call asks again). The
// dialog's "Stop run" (reached with the keyboard) rejects the call and ends the run: no dialog
// for the queued call, no file written, the chat says "Stopped." and takes a new prompt.
// `lathe serve` on a temp folder, the fixture model, Debian's Chromium. Needs `npm run build` first.
import { access } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scriptFor, useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";

const SHOT = path.join(REPO, "test-results/ui-approval-stop-run.png");
const runUi = runsUi("approval stop run");
const PROMPT = "Write two notes.";

let modelSteps = 0;

const reply = scriptFor(
  PROMPT,
  [
    {
      toolCalls: [
        { name: "write", arguments: { path: "first.txt", content: "one\n" } },
        { name: "write", arguments: { path: "second.txt", content: "two\n" } },
      ],
    },
    { text: "Done." },
  ],
  (step) => (modelSteps = Math.max(modelSteps, step + 1)),
);

const world = useChatWorld(runUi, {
  prefix: "approval-stop-run",
  replies: reply,
  viewport: { width: 1280, height: 900 },
});
const { chat } = world;

describe.skipIf(!runUi)("the approval dialog's Stop run", () => {
  it("rejects the waiting call and ends the run, queued calls and all, from the keyboard", async () => {
    const { page, root, problems } = world();
    await chat.send(PROMPT);
    const dialog = chat.approval("write");
    await dialog.waitFor({ timeout: 15_000 });
    // The second write waits behind the first; the run's own Stop is behind the modal dialog.
    await expect.poll(() => chat.card("write").last().getByLabel("Status").innerText()).toBe("queued");
    await page.screenshot({ path: SHOT });
    const stopRun = dialog.getByRole("button", { name: "Stop run" });
    expect(await stopRun.count()).toBe(1);
    // Focus starts on Reject; Stop run is one Shift+Tab away.
    expect(await page.locator(":focus").textContent()).toBe("Reject");
    await page.keyboard.press("Shift+Tab");
    expect(await page.locator(":focus").textContent()).toBe("Stop run");
    await page.keyboard.press("Enter");

    await dialog.waitFor({ state: "hidden", timeout: 10_000 });
    await chat.turnEnded();
    await chat.conversation().getByText("Stopped.", { exact: true }).waitFor({ timeout: 10_000 });
    // The queued call never asked: no second dialog, and nothing was written.
    expect(await dialog.count()).toBe(0);
    for (const index of [0, 1]) {
      expect(await chat.card("write").nth(index).getByLabel("Status").innerText()).not.toMatch(
        /awaiting|queued|running|ok/,
      );
    }
    await expect(access(path.join(root, "first.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(access(path.join(root, "second.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    // The model was not asked again after the stop.
    expect(modelSteps).toBe(1);
    expect(await chat.conversation().getByText("Done.", { exact: true }).count()).toBe(0);
    expect(problems, problems.join("\n")).toEqual([]);
  }, 60_000);
});
