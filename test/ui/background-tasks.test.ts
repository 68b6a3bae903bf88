// A background task in the chat: the run that started it is over, but the task goes on working.
// The chat lists it (its agent, label and running time) with a Stop that ends it, its command's
// process included; a second tab sees the same list and can stop it too; the chat stays usable.
// The page in Debian's Chromium, the loopback fixture model. Needs `npm run build` first.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, openWatchedPage, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("background tasks");
/** The task's sleep: a command line no other process has. */
const MARKER = `300.${process.pid}7`;

/** Whether a process whose command line holds MARKER runs (in the sandbox's PID namespace too). */
function alive(): boolean {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(MARKER)) return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}

let second: Page;
const tasks = (page: Page) => page.getByRole("list", { name: "Background tasks" });
const task = (page: Page) => tasks(page).getByRole("listitem", { name: /^Task index the docs:/ });

const world = useChatWorld(
  runUi,
  {
    prefix: "bg-tasks",
    replies: (request) => {
      const answered = request.messages.some((m) => m.role === "tool");
      // The task's run is told apart by its prompt (the parent only passes it on in a call).
      const prompt = JSON.stringify(request.messages.find((m) => m.role === "user")?.content ?? "");
      if (prompt.includes("BACKGROUND-BRIEF")) {
        return answered
          ? { text: "Indexed." }
          : {
              toolCalls: [
                {
                  name: "bash",
                  arguments: { command: `touch started.txt; sleep ${MARKER}; touch late.txt` },
                },
              ],
            };
      }
      return answered
        ? { text: "The indexing runs in the background; I will collect it later." }
        : {
            toolCalls: [
              {
                name: "task",
                arguments: {
                  description: "index the docs",
                  prompt: "BACKGROUND-BRIEF: index every file under docs/.",
                  background: true,
                },
              },
            ],
          };
    },
    settings: { approvals: { mode: "yolo" } },
    viewport: { width: 1200, height: 800 },
  },
  async (started) => {
    second = await openWatchedPage(started.browser, started.problems, { width: 1200, height: 800 });
  },
);
const first = world.chat;

describe.skipIf(!runUi)("background tasks in the chat", () => {
  it("lists a task that outlives its run, in both tabs, and stops it with its process", async () => {
    const page = world().page;
    await first.send("Index the docs in the background");
    await first.conversation().getByText("runs in the background").waitFor({ timeout: 15_000 });
    await first.turnEnded();
    await expect
      .poll(() => existsSync(path.join(world().root, "started.txt")), { timeout: 15_000 })
      .toBe(true);
    await expect.poll(() => alive(), { timeout: 10_000 }).toBe(true);

    // The run is over, the task is not: it is listed, running, with its agent, its time and a Stop.
    await task(page).waitFor({ timeout: 10_000 });
    await expect.poll(() => task(page).innerText()).toMatch(/running\s+default\s+\d+ s\s+index the docs/);
    const stop = task(page).getByRole("button", { name: "Stop task index the docs" });
    expect(await stop.isVisible()).toBe(true);
    // Its running time goes on.
    const shown = await task(page).getByLabel("Elapsed").innerText();
    await expect.poll(() => task(page).getByLabel("Elapsed").innerText(), { timeout: 5_000 }).not.toBe(shown);
    // The chat is free for the next prompt meanwhile.
    await first.prompt().fill("What else is there?");
    expect(await page.getByRole("button", { name: "Send" }).isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Stop", exact: true }).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, "ui-background-task-running.png") });

    // Another tab that opens the task's own session sees it working (not "interrupted"), listed.
    await second.goto(world().url);
    await second
      .getByRole("list", { name: "Session list" })
      .getByRole("button", { name: "index the docs", exact: true })
      .click();
    await task(second).waitFor({ timeout: 10_000 });
    await expect.poll(() => task(second).innerText()).toMatch(/running/);
    await second.getByRole("list", { name: "Conversation" }).getByText("touch started.txt").first().waitFor();
    expect(await second.getByText(/interrupted/i).count()).toBe(0);
    await second.screenshot({ path: path.join(SHOTS, "ui-background-task-own-session.png") });

    // It opens the chat too, which lists the same task, and stops it from there.
    await second
      .getByRole("list", { name: "Session list" })
      .getByRole("button", { name: "Index the docs in the background", exact: true })
      .click();
    await task(second).getByRole("button", { name: "Stop task index the docs" }).click();

    await expect.poll(() => task(page).innerText(), { timeout: 10_000 }).toMatch(/stopped/);
    await expect.poll(() => task(second).innerText(), { timeout: 10_000 }).toMatch(/stopped/);
    expect(await task(page).getByRole("button").count()).toBe(0);
    await expect.poll(() => alive(), { timeout: 10_000 }).toBe(false);
    expect(existsSync(path.join(world().root, "late.txt"))).toBe(false);
    // The card of the task call says how its run ended too.
    await expect
      .poll(() => first.lastCard("task").innerText(), { timeout: 10_000 })
      .toMatch(/stopped|aborted/i);
    await page.screenshot({ path: path.join(SHOTS, "ui-background-task-stopped.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  }, 60_000);
});
