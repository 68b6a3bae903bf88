// The chat-first app as a new user meets it: `lathe serve` on a folder, the page in Debian's
// Chromium, the real OpenAI-compatible client streaming from the loopback fixture. The app opens
// on the chat; tool calls come as cards by kind (read and search folded, edit and bash open, a
// failed fetch in red with its envelope's text); approvals are answered with y / a / n; Enter
// sends, Esc stops, Ctrl+K opens the palette; a running bash card is stopped alone and the run
// goes on. Needs `npm run build` first.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("app shell");

const PROMPTS = {
  kinds: "Show me every kind of tool card.",
  refuse: "Try to write a file.",
  sleep: "Run the slow command.",
  hang: "Think forever.",
};
const FINAL_MARKDOWN = [
  "## Summary",
  "",
  "I read **README.md**, searched it, and ran `echo`:",
  "",
  "- the edit is *done*",
  "- see [the docs](https://example.com/docs)",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "```",
].join("\n");

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === PROMPTS.kinds) {
    // By how many tool results the turn has so far (the first step makes two calls).
    const script: Record<number, FixtureReply> = {
      0: {
        text: "Let me look around.",
        toolCalls: [
          { name: "read", arguments: { path: "README.md" } },
          { name: "grep", arguments: { pattern: "fixture" } },
        ],
      },
      2: {
        toolCalls: [
          {
            name: "edit",
            arguments: { path: "README.md", old_string: "fixture", new_string: "shell fixture" },
          },
        ],
      },
      3: { toolCalls: [{ name: "bash", arguments: { command: "echo kinds-marker" } }] },
      4: { toolCalls: [{ name: "web_fetch", arguments: { url: "http://127.0.0.1:9/nothing" } }] },
      5: {
        toolCalls: [
          { name: "todo", arguments: { todos: [{ content: "Show the cards", status: "completed" }] } },
        ],
      },
    };
    return script[step] ?? { text: FINAL_MARKDOWN };
  }
  if (prompt === PROMPTS.refuse) {
    if (step === 0)
      return { toolCalls: [{ name: "write", arguments: { path: "refused.txt", content: "no\n" } }] };
    return { text: "The write was refused." };
  }
  if (prompt === PROMPTS.sleep) {
    if (step === 0) return { toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] };
    return { text: "Carried on after the stop." };
  }
  return { text: "Thinking", hang: true };
}

let root: string;
let page: Page;
let problems: string[];

const { conversation, lastCard: card, prompt, send, answerWithKey, status } = chatHelpers(() => page);

useChatWorld(
  runUi,
  {
    prefix: "shell",
    replies: reply,
    prepare: async ({ root }) => {
      await writeFile(path.join(root, "README.md"), "# a fixture project\n\nUsed by the shell test.\n");
    },
    viewport: { width: 1280, height: 900 },
    // Its first test is that the app opens on the chat: the set-up does not wait for the prompt.
    waitForPrompt: false,
  },
  (started) => {
    ({ root, page, problems } = started);
  },
);

describe.skipIf(!runUi)("the chat-first app through lathe serve", () => {
  it("opens on the chat, with the tool workbench under Tools", async () => {
    const nav = page.getByRole("navigation", { name: "Views" });
    await expect
      .poll(() => nav.getByRole("button", { name: "Chat" }).getAttribute("aria-current"))
      .toBe("page");
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    await prompt().waitFor();
    expect(await page.getByRole("list", { name: "Tools" }).count()).toBe(0);
    await expect
      .poll(() => page.getByRole("button", { name: /^Model: / }).getAttribute("aria-label"))
      .toBe("Model: openai-compatible:fixture-model");
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-chat-empty.png") });

    await goTo(page, "Tools");
    expect(await page.getByRole("tab", { name: "Run a tool" }).getAttribute("aria-selected")).toBe("true");
    await page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: /^glob\b/ })
      .waitFor();
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-tools.png") });
    await goTo(page, "Tools", "Catalog");
    await page.getByRole("table", { name: "All tools" }).waitFor();
    await goTo(page, "Extensions");
    await page.getByRole("tab", { name: "Plugins" }).waitFor();
    await goTo(page, "Settings");
    await page.getByRole("heading", { name: "Approvals" }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-settings.png") });
    await goTo(page, "Chat");
    await prompt().waitFor();
  });

  it("draws each call as a card of its kind, answered with y and a, folded or open by kind, errors in red", async () => {
    await send(PROMPTS.kinds);
    await conversation().getByText("Let me look around.").waitFor({ timeout: 10_000 });
    await expect.poll(() => status("read"), { timeout: 10_000 }).toBe("ok");
    await expect.poll(() => status("grep"), { timeout: 10_000 }).toBe("ok");
    // y allows this edit once.
    await answerWithKey("edit", "y");
    await expect.poll(() => status("edit"), { timeout: 10_000 }).toBe("ok");
    // a allows bash for the session.
    await answerWithKey("bash", "a");
    await expect.poll(() => status("bash"), { timeout: 10_000 }).toBe("ok");
    // web_fetch is gated too, but a loopback address settings do not allow is refused before
    // anyone is asked: approving it would not let it through.
    await expect.poll(() => status("web_fetch"), { timeout: 10_000 }).toBe("error");
    expect(await page.getByRole("dialog", { name: "Allow web_fetch to run?" }).count()).toBe(0);
    await conversation().getByRole("heading", { name: "Summary" }).waitFor({ timeout: 10_000 });

    const kinds = await conversation()
      .getByRole("article")
      .evaluateAll((cards) => cards.map((c) => [c.getAttribute("aria-label"), c.getAttribute("data-kind")]));
    expect(Object.fromEntries(kinds)).toEqual({
      "read call": "read",
      "grep call": "search",
      "edit call": "edit",
      "bash call": "execute",
      "web_fetch call": "fetch",
      "todo call": "think",
    });
    // Reads and searches are folded to a one-line summary; a click opens them.
    const toggle = (tool: string) => card(tool).locator(".tool-card-toggle");
    expect(await toggle("read").getAttribute("aria-expanded")).toBe("false");
    expect(await toggle("read").innerText()).toMatch(/README\.md · lines 1–3 of 3/);
    expect(await toggle("grep").innerText()).toMatch(/fixture · 1 file/);
    await toggle("read").click();
    expect(await card("read").getByLabel("File content").innerText()).toContain("a fixture project");
    // Edits show their diff and bash its terminal, open.
    expect(await toggle("edit").getAttribute("aria-expanded")).toBe("true");
    expect(await card("edit").getByLabel("Diff").locator(".diff-add").allInnerTexts()).toEqual([
      "+# a shell fixture project\n",
    ]);
    await expect
      .poll(() =>
        card("bash").getByRole("region", { name: "Terminal output" }).locator(".xterm-rows").innerText(),
      )
      .toContain("kinds-marker");
    // A failed call says why in red, with the envelope's own text.
    const error = card("web_fetch").getByLabel("Error text");
    expect(await error.innerText()).toMatch(/127\.0\.0\.1|private|loopback/i);
    expect(await error.evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color)).not.toBe(
      await conversation().evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color),
    );
    expect(await readFile(path.join(root, "README.md"), "utf8")).toContain("shell fixture");

    // The answer is markdown: a heading, emphasis, a list, a safe link and coloured code.
    const answer = conversation().locator(".assistant-text").last();
    expect(await answer.locator("strong").innerText()).toBe("README.md");
    expect(await answer.getByRole("listitem").count()).toBe(2);
    expect(await answer.getByRole("link", { name: "the docs" }).getAttribute("href")).toBe(
      "https://example.com/docs",
    );
    expect(await answer.locator(".hljs-keyword").allInnerTexts()).toContain("const");
    expect(await answer.locator(".hljs-comment").innerText()).toBe("// the answer");
    // Copy puts the code itself on the clipboard, not its coloured markup.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    const copy = answer.getByRole("button", { name: "Copy the ts code" });
    await copy.click();
    await expect.poll(() => copy.innerText()).toBe("Copied");
    expect(
      await page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      ),
    ).toBe("const answer: number = 42; // the answer");
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-tool-cards.png") });
  });

  it("rejects with n: the card says it was denied", async () => {
    await send(PROMPTS.refuse);
    await answerWithKey("write", "n");
    await expect.poll(() => status("write"), { timeout: 10_000 }).toBe("denied");
    await conversation().getByText("The write was refused.").waitFor({ timeout: 10_000 });
  });

  it("stops a running card alone: its time shows while it runs, the run goes on after", async () => {
    await send(PROMPTS.sleep);
    // "a" allowed `echo` for the session; `sleep` is another approval key.
    await answerWithKey("bash", "y");
    const bash = card("bash");
    await expect.poll(() => bash.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("running");
    await expect
      .poll(() => bash.getByLabel("Elapsed").innerText(), { timeout: 5_000 })
      .toMatch(/^[1-9]\d* s$/);
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-running-card.png") });
    await bash.getByRole("button", { name: "Stop bash" }).click();
    await expect.poll(() => bash.getByLabel("Status").innerText(), { timeout: 10_000 }).toBe("error");
    expect(await bash.getByLabel("Error text").innerText()).toMatch(/aborted: stopped by the person/);
    await conversation().getByText("Carried on after the stop.").waitFor({ timeout: 10_000 });
    expect(await conversation().getByText("Stopped.").count()).toBe(0);
  });

  it("Enter sends, Esc stops the run; Esc in another field is that field's", async () => {
    await prompt().fill(PROMPTS.hang);
    await prompt().press("Enter");
    await conversation().getByText("Thinking").last().waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Stop" }).waitFor();
    // Esc in the session search clears the search; the run goes on.
    const search = page.getByRole("searchbox", { name: "Search sessions" });
    await search.fill("no such session");
    await search.press("Escape");
    await expect.poll(() => search.inputValue()).toBe("");
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-esc-in-search.png") });
    expect(await conversation().getByText("Stopped.").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Stop" }).isEnabled()).toBe(true);
    // In the prompt box (or anywhere outside a field) Esc stops it.
    await prompt().press("Escape");
    await conversation().getByText("Stopped.").waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Send" }).waitFor();
  });

  it("Ctrl+K opens the palette: go to a view, start a new chat, switch back to a session", async () => {
    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: "Command palette" });
    await palette.waitFor();
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-palette.png") });
    await page.keyboard.type("tools catalog");
    await page.keyboard.press("Enter");
    await palette.waitFor({ state: "hidden" });
    expect(await page.getByRole("tab", { name: "Catalog" }).getAttribute("aria-selected")).toBe("true");

    await page.keyboard.press("Control+k");
    await page.keyboard.type("new chat");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();

    await page.keyboard.press("Control+k");
    await page.keyboard.type("every kind");
    const option = palette.getByRole("option", { name: /Show me every kind of tool card/ });
    await option.waitFor();
    await page.keyboard.press("Enter");
    await conversation().getByRole("heading", { name: "Summary" }).waitFor({ timeout: 10_000 });
    // Dark mode reads as well as light.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: path.join(SHOTS, "ui-shell-dark.png") });
    const background = await page
      .locator(".app-sidebar")
      .evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).backgroundColor);
    expect(background).toBe("rgb(25, 27, 32)");
    await page.emulateMedia({ colorScheme: "light" });
    // Esc closes the palette without doing anything.
    await page.keyboard.press("Control+k");
    await palette.waitFor();
    await page.keyboard.press("Escape");
    await palette.waitFor({ state: "hidden" });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
