// Stopping a queued call from its card, as a person does in the app: the model runs a slow
// command and a write in one step, so the write is queued behind the command. Stop on the queued
// card ended it only once the command was done (its turn came); now it ends at once, while the
// command still runs, and the write never happens. `lathe serve` in yolo mode, the fixture model,
// Debian's Chromium. Needs `npm run build` first.
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scriptFor, useChatWorld } from "../support/ui-chat-world.ts";
import { runsUi } from "./serve-fixture.ts";

const runUi = runsUi("queued call stop");
const PROMPT = "Write two notes.";

const reply = scriptFor(PROMPT, [
  {
    toolCalls: [
      { name: "bash", arguments: { command: "sleep 8 && echo slept > slow.txt" } },
      { name: "write", arguments: { path: "second.txt", content: "two\n" } },
    ],
  },
  { text: "Done." },
]);

const world = useChatWorld(runUi, {
  prefix: "queued-stop",
  replies: reply,
  settings: { approvals: { mode: "yolo" } },
});
const { chat } = world;

describe.skipIf(!runUi)("a queued call stopped from its card", () => {
  it("ends at once while the call ahead of it still runs", async () => {
    const { root, problems } = world();
    await chat.send(PROMPT);
    const [bash, write] = [chat.lastCard("bash"), chat.lastCard("write")];
    await expect.poll(() => write.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("queued");
    expect(await bash.getByLabel("Status").innerText()).toBe("running");
    await write.getByRole("button", { name: "Stop write" }).click();
    await expect.poll(() => write.getByLabel("Status").innerText(), { timeout: 6_000 }).not.toBe("queued");
    // It did not wait for its turn: the command ahead of it still runs.
    expect(await bash.getByLabel("Status").innerText()).toBe("running");
    expect(await write.getByLabel("Status").innerText()).toMatch(/stopped|error/);
    await expect.poll(() => bash.getByLabel("Status").innerText(), { timeout: 20_000 }).toBe("ok");
    await chat.conversation().getByText("Done.", { exact: true }).waitFor({ timeout: 15_000 });
    expect(await readFile(path.join(root, "slow.txt"), "utf8")).toBe("slept\n");
    await expect(access(path.join(root, "second.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(problems, problems.join("\n")).toEqual([]);
  }, 60_000);
});
