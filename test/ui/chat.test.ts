// The chat as a person meets it: `lathe serve` on a folder, the page in Debian's Chromium, and
// the real OpenAI-compatible provider client streaming from the loopback fixture server. The model
// streams text, writes a file (approval dialog), runs bash (its output in an xterm.js terminal),
// writes a todo list, asks a question, and gets stopped. Needs `npm run build` first.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply, FixtureServer } from "../fixtures/openai-compatible-server.ts";
import { REPO, fixtureProviders, pickModel, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOT = path.join(REPO, "test-results/ui-chat.png");
const MODEL = "openai-compatible:fixture-model";
const runUi = runsUi("chat");

const PROMPTS = {
  work: "Write a greeting, check the shell works, and plan the rest.",
  colour: "Pick a colour for the banner.",
  name: "Name the project.",
  delegate: "Delegate the greeting.",
  slow: "Take your time.",
};
const CHILD_PROMPT = "child job: greet the person";
const FIRST_TEXT = "Hello! I will write notes/hello.txt, run a command, and write down the plan.";
const FINAL_TEXT = "All done: notes/hello.txt is written and the shell printed its marker.";
const GREETING = "Hello from the chat\n";

/** The model's script: the turn is the last prompt, the step how many tool results follow it. */
function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === PROMPTS.work) {
    return [
      {
        text: FIRST_TEXT,
        toolCalls: [{ name: "write", arguments: { path: "notes/hello.txt", content: GREETING } }],
      },
      { toolCalls: [{ name: "bash", arguments: { command: "echo chat-bash-marker" } }] },
      {
        toolCalls: [
          { name: "edit", arguments: { path: "notes/hello.txt", old_string: "Hello", new_string: "Hi" } },
        ],
      },
      {
        toolCalls: [
          {
            name: "todo",
            arguments: {
              todos: [
                { content: "Write notes/hello.txt", status: "completed" },
                { content: "Check the shell", status: "completed" },
                { content: "Ask which colour", status: "in_progress" },
                { content: "Name the project", status: "pending" },
              ],
            },
          },
        ],
      },
      { text: FINAL_TEXT },
    ][step]!;
  }
  if (prompt === PROMPTS.colour) {
    if (step === 0) {
      return {
        toolCalls: [
          {
            name: "question",
            arguments: {
              questions: [
                {
                  question: "Which colour should the banner be?",
                  header: "Colour",
                  options: [{ label: "Red" }, { label: "Blue", description: "calm and readable" }],
                },
              ],
            },
          },
        ],
      };
    }
    return { text: "Blue it is." };
  }
  if (prompt === PROMPTS.name) {
    if (step === 0)
      return { toolCalls: [{ name: "question", arguments: { questions: [{ question: "Name?" }] } }] };
    return { text: "I will call it Lathe Demo." };
  }
  if (prompt === CHILD_PROMPT) return { text: "Hi from the subagent." };
  if (prompt === PROMPTS.delegate) {
    if (step === 0) {
      return { toolCalls: [{ name: "task", arguments: { description: "Greet", prompt: CHILD_PROMPT } }] };
    }
    return { text: "The subagent said hi." };
  }
  return { text: "Thinking it over", hang: true };
}

let fixture: FixtureServer;
let page: Page;
let root: string;
let problems: string[];
/** Every `run.event` the page received over the WebSocket, in order. */
const runEvents: Array<{ type: string; text?: string }> = [];

const { conversation, card, send, allowOnce: allow } = chatHelpers(() => page);

const world = useUiWorld(
  runUi,
  {
    prefix: "chat",
    replies: reply,
    prepare: async ({ root, home, fixture }) => {
      await writeFile(path.join(root, "README.md"), "# chat fixture\n");
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({ providers: await fixtureProviders(fixture!.baseURL) }),
      );
    },
    viewport: { width: 1280, height: 1000 },
    onPage: (page) =>
      page.on("websocket", (socket) => {
        socket.on("framereceived", ({ payload }) => {
          const frame = JSON.parse(String(payload)) as {
            event?: string;
            payload?: { event?: { type: string; text?: string } };
          };
          if (frame.event === "run.event" && frame.payload?.event) runEvents.push(frame.payload.event);
        });
      }),
  },
  (started) => {
    ({ page, root, problems } = started);
    fixture = started.fixture!;
  },
);

describe.skipIf(!runUi)("the chat through lathe serve", () => {
  it("streams the model's text, shows a card per tool call, and keeps the todo list live", async () => {
    // The picker lists the fixture server's model (settings point the provider at it); pick it.
    await pickModel(page, MODEL);
    expect(await page.getByRole("button", { name: /^Model: / }).getAttribute("aria-label")).toBe(
      `Model: ${MODEL}`,
    );
    await send(PROMPTS.work);

    // The write waits for the approval dialog; the text before it has streamed in meanwhile.
    await allow("write");
    await conversation().getByText(FIRST_TEXT).waitFor({ timeout: 10_000 });
    const write = card("write");
    await expect.poll(() => write.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("ok");
    expect(await write.innerText()).toMatch(/notes\/hello\.txt\s*·\s*20 bytes/);
    expect(await write.innerText()).toContain("builtin");
    expect(await readFile(path.join(root, "notes/hello.txt"), "utf8")).toBe(GREETING);

    await allow("bash");
    const bash = card("bash");
    await expect.poll(() => bash.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("ok");
    expect(await bash.getByLabel("Command").innerText()).toContain("echo chat-bash-marker");
    const terminal = bash.getByRole("region", { name: "Terminal output" });
    await expect
      .poll(() => terminal.locator(".xterm-rows").innerText(), { timeout: 10_000 })
      .toContain("chat-bash-marker");

    await allow("edit");
    const edit = card("edit");
    await expect.poll(() => edit.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("ok");
    const diff = edit.getByLabel("Diff");
    expect(await diff.locator(".diff-remove").allInnerTexts()).toEqual(["-Hello from the chat\n"]);
    expect(await diff.locator(".diff-add").allInnerTexts()).toEqual(["+Hi from the chat\n"]);
    expect(await readFile(path.join(root, "notes/hello.txt"), "utf8")).toBe("Hi from the chat\n");

    const todos = page.getByRole("list", { name: "Todo list" });
    await expect.poll(() => todos.getByRole("listitem").count(), { timeout: 10_000 }).toBe(4);
    expect(await todos.innerText()).toMatch(/completed\s*Write notes\/hello\.txt/);
    expect(await todos.innerText()).toMatch(/in progress\s*Ask which colour/);
    expect(await todos.innerText()).toMatch(/pending\s*Name the project/);
    expect(await card("todo").getByLabel("Status").innerText()).toBe("ok");

    await conversation().getByText(FINAL_TEXT).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Send" }).waitFor();
    // The text arrived as many deltas over the socket, not as one block at the end.
    const deltas = runEvents.filter((e) => e.type === "text");
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.map((e) => e.text).join("")).toBe(FIRST_TEXT + FINAL_TEXT);
    expect(runEvents.at(-1)).toMatchObject({ type: "finish", status: "completed" });

    await mkdir(path.dirname(SHOT), { recursive: true });
    await page.screenshot({ path: SHOT, fullPage: true });
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("asks the model's question in a dialog; a wrong submission is refused, the answer reaches the model", async () => {
    const before = fixture.requests.length;
    await send(PROMPTS.colour);
    const dialog = page.getByRole("dialog", { name: "The agent asks" });
    await dialog.waitFor({ timeout: 10_000 });
    expect(await dialog.innerText()).toContain("Which colour should the banner be?");
    expect(await dialog.getByRole("radio").count()).toBe(2);
    // Nothing chosen: the host refuses it and the dialog stays.
    await dialog.getByRole("button", { name: "Answer" }).click();
    await expect
      .poll(() => dialog.getByRole("alert").innerText())
      .toMatch(/allows one choice, but 0 were given/);
    await dialog.getByRole("radio", { name: /Blue/ }).check();
    expect(await dialog.getByRole("alert").count()).toBe(0);
    await page.screenshot({ path: SHOT.replace(".png", "-question.png"), fullPage: true });
    await dialog.getByRole("button", { name: "Answer" }).click();
    await dialog.waitFor({ state: "hidden" });
    await conversation().getByText("Blue it is.").waitFor({ timeout: 10_000 });
    const after = fixture.requests.slice(before);
    const toolMessage = after.at(-1)?.messages.findLast((m) => m.role === "tool");
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({
      type: "output",
      data: { answers: [["Blue"]] },
    });
    expect(await card("question").getByLabel("Status").innerText()).toBe("ok");
  });

  it("treats Esc as dismissing the question; the model is told no one answered", async () => {
    await send(PROMPTS.name);
    const dialog = page.getByRole("dialog", { name: "The agent asks" });
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.getByRole("textbox").fill("never sent");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await conversation().getByText("I will call it Lathe Demo.").waitFor({ timeout: 10_000 });
    const toolMessage = fixture.requests.at(-1)?.messages.findLast((m) => m.role === "tool");
    expect(String(toolMessage?.content)).toMatch(/dismissed the questions without answering/);
    expect(String(toolMessage?.content)).not.toContain("never sent");
  });

  it("nests a subagent's run under its task card, collapsible", async () => {
    await send(PROMPTS.delegate);
    await conversation().getByText("The subagent said hi.").waitFor({ timeout: 10_000 });
    const task = card("task");
    expect(await task.getByLabel("Status").innerText()).toBe("ok");
    const child = task.locator("details.task-run");
    await expect.poll(() => child.locator("summary").innerText()).toMatch(/Subagent default · completed/);
    expect(await child.innerText()).toContain("Hi from the subagent.");
    await page.screenshot({ path: SHOT.replace(".png", "-task.png"), fullPage: true });
    await child.locator("summary").click();
    expect(await child.getByText("Hi from the subagent.").isVisible()).toBe(false);
  });

  it("stops a run with the Stop button", async () => {
    await send(PROMPTS.slow);
    await conversation().getByText("Thinking it over").waitFor({ timeout: 10_000 });
    // A second prompt while it runs is refused, and says why.
    await send("And another thing");
    await page.getByRole("alert").filter({ hasText: "A run is going on" }).waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await conversation().getByText("Stopped.").waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(runEvents.at(-1)).toMatchObject({ type: "finish", status: "aborted" });
  });

  it("refuses a prompt while a run in another Lathe process holds the chat, naming that process", async () => {
    // A `lathe run --resume` of this chat elsewhere (this test's own process stands in for it).
    const db = new Database(path.join(world().home, "lathe.db"));
    const { sessionId } = db
      .prepare(
        "SELECT session_id AS sessionId FROM conversations WHERE parent_session_id IS NULL ORDER BY updated_at DESC LIMIT 1",
      )
      .get() as { sessionId: string };
    db.prepare(
      "INSERT INTO run_leases (session_id, token, pid, host, started_at, heartbeat_at) VALUES (?, 'cli', ?, ?, ?, ?)",
    ).run(sessionId, process.pid, os.hostname(), Date.now(), Date.now());
    try {
      await send("Is anyone there?");
      const alert = page.locator("form").getByRole("alert").filter({ hasText: "another Lathe process" });
      await alert.waitFor();
      expect(await alert.innerText()).toContain(
        `Session ${sessionId} is in use by another Lathe process (pid ${process.pid} on ${os.hostname()}`,
      );
      await page.screenshot({ path: SHOT.replace(".png", "-held-elsewhere.png"), fullPage: true });
    } finally {
      db.prepare("DELETE FROM run_leases WHERE session_id = ?").run(sessionId);
      db.close();
    }
  });

  it("says once why a send was refused, above the prompt that comes back", async () => {
    const settings = path.join(world().home, "settings.json");
    const saved = await readFile(settings, "utf8");
    await writeFile(settings, "{ not json");
    try {
      await send("Are the settings fine?");
      const alert = page.locator("form").getByRole("alert");
      await alert.waitFor({ timeout: 10_000 });
      const reason = await alert.innerText();
      expect(reason).toMatch(/settings\.json/);
      expect(await page.getByRole("textbox", { name: "Prompt" }).inputValue()).toBe("Are the settings fine?");
      // Not a second time in the conversation, which has no turn for a prompt that never ran.
      expect(await conversation().getByText("Are the settings fine?").count()).toBe(0);
      expect(await page.getByText(reason, { exact: true }).count()).toBe(1);
      await page.screenshot({ path: SHOT.replace(".png", "-send-refused.png"), fullPage: true });
    } finally {
      await writeFile(settings, saved);
      await page.getByRole("textbox", { name: "Prompt" }).fill("");
    }
  });

  it("redraws the session after a reload, from the record", async () => {
    await page.reload();
    await conversation().getByText(FINAL_TEXT).waitFor({ timeout: 10_000 });
    expect(await conversation().getByText(PROMPTS.work).count()).toBe(1);
    await expect.poll(() => card("write").getByLabel("Status").innerText()).toBe("ok");
    expect(await card("write").innerText()).toContain("notes/hello.txt");
    expect(await page.getByRole("list", { name: "Todo list" }).getByRole("listitem").count()).toBe(4);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
