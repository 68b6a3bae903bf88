// The chat's layout once a conversation is longer than the window: the prompt box stays on screen
// and the conversation scrolls inside its own pane, following the newest answer. Checked in a
// narrow (800 px) and a wide window. Needs `npm run build` first.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { chatWorldOptions } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { useSharedChromium } from "./ui-suite.ts";
import { chatHelpers, scriptTurn, type UiWorld } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("chat layout");

const LAST_PARAGRAPH = "The last paragraph of a long answer.";
const LONG_ANSWER = [
  "# A long answer",
  ...Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1}: ${"words that fill the line ".repeat(12)}`),
  LAST_PARAGRAPH,
].join("\n\n");

/** A command whose one line of output is far wider than the card. */
const LONG_LINE = `first words ${"0123456789".repeat(40)} last words`;

/**
 * A command whose output passes the bash tool's 200 KB (so the tool keeps the whole of it in a
 * file): 30,000 green lines of about 20 bytes each.
 */
const HUGE_OUTPUT = `for i in $(seq 1 30000); do printf '\\033[32mline %d\\033[0m\\n' "$i"; done`;

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === "Print a long line.") {
    return step === 0
      ? { toolCalls: [{ name: "bash", arguments: { command: `echo '${LONG_LINE}'` } }] }
      : { text: "Printed." };
  }
  if (prompt === "Print a huge output.") {
    return step === 0
      ? { toolCalls: [{ name: "bash", arguments: { command: HUGE_OUTPUT } }] }
      : { text: "Printed a lot." };
  }
  return { text: prompt === "Tell me everything." ? LONG_ANSWER : `You said: ${prompt}` };
}

const startWorld = useSharedChromium(runUi);
/** The worlds the tests started, in order (the suite closes them). */
const worlds: UiWorld[] = [];

/** A world with the fixture model answering `reply`, in a window of `viewport`'s size. */
async function startLayoutWorld(viewport: { width: number; height: number }): Promise<UiWorld> {
  const world = await startWorld(chatWorldOptions({ prefix: "layout", replies: reply, viewport }));
  worlds.push(world);
  return world;
}

/** The 800 px world of the first test, or a new one when that test did not run (`vitest -t`). */
async function narrowWorld(): Promise<UiWorld> {
  return worlds[0] ?? (await startLayoutWorld({ width: 800, height: 700 }));
}

/** The box's top and bottom edges on the page. */
async function edges(page: Page, selector: string): Promise<{ top: number; bottom: number }> {
  return page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return { top: box.top, bottom: box.bottom };
  });
}

describe.skipIf(!runUi)("the chat when the conversation is longer than the window", () => {
  for (const viewport of [
    { width: 800, height: 700 },
    { width: 1280, height: 860 },
  ]) {
    it(`keeps the prompt box on screen and scrolls the conversation at ${viewport.width} px`, async () => {
      const world = await startLayoutWorld(viewport);
      const { page, problems } = world;
      const chat = chatHelpers(() => page);
      await chat.send("Tell me everything.");
      // A long streamed answer: on a loaded machine it takes more than the usual 10 s.
      await chat.conversation().getByText(LAST_PARAGRAPH).waitFor({ timeout: 30_000 });
      await chat.turnEnded();

      // The prompt box is whole and inside the window, not pushed below it by the answer.
      const prompt = await edges(page, "form:has(textarea[aria-label='Prompt'])");
      expect(prompt.bottom).toBeLessThanOrEqual(viewport.height);
      expect(prompt.top).toBeGreaterThan(0);
      // The conversation scrolls in its own pane, which followed the answer to its end.
      const pane = await page.locator(".transcript-scroll").evaluate((element) => ({
        scrollable: element.scrollHeight > element.clientHeight,
        atEnd: element.scrollHeight - element.scrollTop - element.clientHeight < 2,
      }));
      expect(pane).toEqual({ scrollable: true, atEnd: true });
      const last = await edges(page, `p:text("${LAST_PARAGRAPH}")`);
      expect(last.bottom).toBeLessThanOrEqual(prompt.top);
      // The page itself does not scroll: the header and the prompt both stay put.
      const header = await edges(page, "header.topbar");
      expect(header.top).toBe(0);

      // And the person can go on typing without scrolling anything.
      await chat.send("One more thing.");
      await chat.conversation().getByText("You said: One more thing.").waitFor({ timeout: 10_000 });
      await expect.poll(() => edges(page, "form:has(textarea[aria-label='Prompt'])")).toEqual(prompt);

      await mkdir(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `ui-chat-long-${viewport.width}.png`) });
      expect(problems, problems.join("\n")).toEqual([]);
    }, 60_000);
  }

  it("shows the whole of a long output line in a bash card, wrapped, not just its last row", async () => {
    // The 800 px world: the line wraps over several rows of the terminal.
    const world = await narrowWorld();
    const { page, problems } = world;
    const chat = chatHelpers(() => page);
    await chat.send("Print a long line.");
    await chat.allowOnce("bash");
    await chat.conversation().getByText("Printed.").waitFor({ timeout: 10_000 });
    const terminal = chat.lastCard("bash").getByRole("region", { name: "Terminal output" });
    const shown = (await terminal.locator(".xterm-rows").innerText()).replace(/\s+/g, "");
    expect(shown).toContain(LONG_LINE.replace(/\s+/g, ""));
    await page.screenshot({ path: path.join(SHOTS, "ui-chat-long-output-line.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("draws the head of a huge coloured bash output as the model reads it, says what is left out and where all of it is", async () => {
    const { page, problems } = await narrowWorld();
    const chat = chatHelpers(() => page);
    await chat.send("Print a huge output.");
    await chat.allowOnce("bash");
    await chat.conversation().getByText("Printed a lot.").waitFor({ timeout: 20_000 });
    const card = chat.lastCard("bash");
    const terminal = card.getByRole("region", { name: "Terminal output" });
    // The terminal holds the first 1,000 lines only: scrolled to its end, its last row is line 1000.
    const rows = (await terminal.locator(".xterm-rows > div").allInnerTexts()).map((r) => r.trim());
    expect(rows.filter((r) => r !== "").at(-1)).toBe("line 1000");
    // What is drawn is the output as the model reads it: the command's colour codes went with the
    // other escape sequences (docs/cli.md, "How bash runs a command"), none shows as text either.
    expect(await terminal.locator(".xterm-rows span.xterm-fg-2").count()).toBe(0);
    expect(rows.some((r) => r.includes("[32m") || r.includes("[0m"))).toBe(false);
    // Under it, in one line: how much is not drawn, what the tool cut, and the file holding all of it.
    const rest = card.getByRole("note", { name: "Terminal output: not shown" });
    const outputPath = await rest.locator("code").innerText();
    expect(await rest.innerText()).toMatch(
      /^1,000 of the result's 19,\d{3} lines shown; 18,\d{3} more \(\d+ K characters\) not drawn here\. The output was cut: /,
    );
    expect(await rest.innerText()).toContain(`All of it is in ${outputPath}.`);
    expect(outputPath.endsWith(".txt")).toBe(true);
    // "Show 1,000 more lines" draws the next thousand.
    await rest.getByRole("button", { name: "Show 1,000 more lines" }).click();
    await expect
      .poll(async () =>
        (await terminal.locator(".xterm-rows > div").allInnerTexts())
          .map((r) => r.trim())
          .filter((r) => r !== "")
          .at(-1),
      )
      .toBe("line 2000");
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-chat-huge-bash-output.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
