// The chat's header in a window 800 px wide with a session open: the session's name, the model
// picker, the context meter and the agent select fit in two rows at most, and the name stays
// readable. The agent select's minimum width pushed it onto a third row. The name has the first row
// to itself, the context meter beside the pickers under it: beside the meter it was cut ~140 px
// sooner than it needed to be. Then the same header once
// the agent keeps a todo list, so the side panel is open, at 800, 1024 and 1280 px: still two rows,
// nothing overlapping, nothing drawn under the panel, and the model's name (as long as Ollama's
// are) whole where there is room for it. With the panel at 1024 px the pickers wrapped to a third
// row; at 1280 px the server's name beside the model's cut it by a pixel (an ellipsis). Between
// 900 and 1000 px the panel's fixed 280 px left the model's name two thirds shown at 960 px; now
// it gives way, and its own content (todos, a running background task and its Stop) stays whole
// inside it: a todo naming a path ran past the panel's edge at every width, and a narrower panel
// must not squeeze each todo's text to a word or two a line beside its badge.
// `lathe serve` on a temp folder, the fixture model, the page in Debian's Chromium. Needs
// `npm run build` first.
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";
import { box, overlap, rowsOf } from "./boxes.ts";

const SHOT = path.join(REPO, "test-results/ui-chat-header-narrow.png");
const shotWithPanel = (width: number) =>
  path.join(REPO, `test-results/ui-chat-header-side-panel-${width}.png`);
const runUi = runsUi("chat header, narrow");
const PROMPT = "Summarise the release notes of the parser rewrite for the team";
const PLAN = "Plan the release";
// A model's name as Ollama lists it: long enough that the pickers no longer fit beside each other.
const MODEL = "qwen2.5-coder:14b-instruct-q4_K_M";
// A path is one long word: it must wrap inside the panel rather than run past its edge.
const TODOS = [
  { content: "Collect the notes", status: "completed" },
  { content: "Write the summary for the team", status: "in_progress" },
  { content: "Update src/parser/ParserRewriteReleaseNotes.md", status: "pending" },
];
const TASK = "index the parser's test fixtures";
/** The background task's own run: its model never finishes, so the task stays running (with its Stop). */
const TASK_BRIEF = "BACKGROUND-BRIEF: index every fixture under test/fixtures/parser.";

let page: Page;
const chat = chatHelpers(() => page);

function replies(request: ChatRequest): FixtureReply {
  const usage = { prompt_tokens: 1200, completion_tokens: 40 };
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === TASK_BRIEF) return { hang: true };
  if (prompt === PLAN && step === 0)
    return {
      toolCalls: [
        { name: "todo", arguments: { todos: TODOS } },
        { name: "task", arguments: { description: TASK, prompt: TASK_BRIEF, background: true } },
      ],
      usage,
    };
  return { text: prompt === PLAN ? "The plan is in the todo list." : "Here is the summary.", usage };
}

const world = useChatWorld(
  runUi,
  {
    prefix: "chat-header-narrow",
    replies,
    // yolo: the background task starts without an approval dialog in the way.
    settings: { defaultModel: `openai-compatible:${MODEL}`, approvals: { mode: "yolo" } },
    viewport: { width: 800, height: 700 },
  },
  (started) => {
    page = started.page;
  },
);

/** The header's parts a person reads or uses, in order: the name, the model, the context, the agent. */
function headerParts(): Locator[] {
  const header = page.locator(".chat-header");
  return [
    header.getByRole("heading", { name: PROMPT }),
    header.getByRole("button", { name: /^Model: / }),
    header.getByRole("group", { name: "Context" }),
    header.getByRole("combobox", { name: "Agent" }),
  ];
}

describe.skipIf(!runUi)("the chat header at 800 px", () => {
  it("fits the session's name and every picker in two rows, the name readable", async () => {
    await chat.send(PROMPT);
    await chat.conversation().getByText("Here is the summary.").waitFor({ timeout: 15_000 });
    const header = page.locator(".chat-header");
    const title = header.getByRole("heading", { name: PROMPT });
    await title.waitFor();
    await page.getByRole("group", { name: "Context" }).waitFor();
    await page.screenshot({ path: SHOT });

    const boxes = await Promise.all(headerParts().map(box));
    expect(rowsOf(boxes), JSON.stringify(boxes)).toBeLessThanOrEqual(2);
    const headerBox = await box(header);
    // The name keeps most of its row: no ellipsis after a word or two.
    expect(boxes[0]!.width, JSON.stringify(boxes)).toBeGreaterThanOrEqual(headerBox.width * 0.5);
    // Every part stays inside the header.
    for (const b of boxes) expect(b.x + b.width).toBeLessThanOrEqual(headerBox.x + headerBox.width + 0.5);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("gives the session's name the whole first row, the context meter beside the pickers", async () => {
    // The session of the test above (or one of its own under `vitest -t`).
    if ((await chat.conversation().getByText("Here is the summary.").count()) === 0) {
      await chat.send(PROMPT);
      await chat.conversation().getByText("Here is the summary.").waitFor({ timeout: 15_000 });
    }
    const header = page.locator(".chat-header");
    const title = header.getByRole("heading", { name: PROMPT });
    await title.waitFor();
    await page.screenshot({ path: path.join(REPO, "test-results/ui-chat-header-title-row.png") });
    const parts = headerParts();
    const boxes = await Promise.all(parts.map(box));
    const seen = JSON.stringify(boxes);
    // Still as compact as it was: two rows.
    expect(rowsOf(boxes), seen).toBeLessThanOrEqual(2);
    // The title's row is its own, from the header's left padding to its right: beside the meter
    // the name was cut ~140 px sooner than it needed to be.
    const content = await header.evaluate((e) => {
      const style = e.ownerDocument.defaultView!.getComputedStyle(e);
      const r = e.getBoundingClientRect();
      return {
        left: r.left + Number.parseFloat(style.paddingLeft),
        right: r.right - Number.parseFloat(style.paddingRight),
      };
    });
    expect(boxes[0]!.x, seen).toBeLessThanOrEqual(content.left + 0.5);
    expect(boxes[0]!.x + boxes[0]!.width, seen).toBeGreaterThanOrEqual(content.right - 0.5);
    for (const b of boxes.slice(1)) expect(b.y, seen).toBeGreaterThanOrEqual(boxes[0]!.y + boxes[0]!.height);
    // So this name, which fits that row, reads whole.
    const shown = await title.evaluate((e) => {
      const text = e.ownerDocument.createRange();
      text.selectNodeContents(e);
      return (e.getBoundingClientRect().width + 0.01) / text.getBoundingClientRect().width;
    });
    expect(shown, seen).toBeGreaterThanOrEqual(1);
    // The meter, the model's name and the agent share the second row, each whole, none over another.
    expect(await parts[2]!.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    const name = header.locator(".model-button-name");
    expect(await name.evaluate((e) => e.scrollWidth <= e.clientWidth), seen).toBe(true);
    for (const [i, b] of boxes.entries())
      for (const other of boxes.slice(i + 1)) expect(overlap(b, other), seen).toBe(false);
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  // How much of the model's name a person reads, by window width: whole where the header has the
  // room (at 900 px and under the panel sits below the chat), at 960 and 1000 px most of it (the
  // rest behind an ellipsis, whole in the button's tooltip); with the panel a fixed 280 px, two
  // thirds of it at 960 px and cut at 1024.
  const widths = [
    { width: 800, nameShown: 1 },
    { width: 900, nameShown: 1 },
    { width: 960, nameShown: 0.85 },
    { width: 1000, nameShown: 0.9 },
    { width: 1024, nameShown: 1 },
    { width: 1280, nameShown: 1 },
  ];
  for (const { width, nameShown } of widths) {
    it(`holds at two rows with the todo panel open at ${width} px, nothing overlapping or cut`, async () => {
      await page.setViewportSize({ width, height: 700 });
      if ((await page.getByRole("list", { name: "Todo list" }).count()) === 0) {
        await chat.send(PLAN);
        await chat.conversation().getByText("The plan is in the todo list.").waitFor({ timeout: 15_000 });
      }
      await page.getByRole("list", { name: "Todo list" }).waitFor();
      await page.getByRole("button", { name: `Stop task ${TASK}` }).waitFor();
      const header = page.locator(".chat-header");
      await header.getByRole("heading", { name: PROMPT }).waitFor();
      await page.screenshot({ path: shotWithPanel(width) });

      const parts = headerParts();
      const boxes = await Promise.all(parts.map(box));
      const seen = JSON.stringify(boxes);
      expect(rowsOf(boxes), seen).toBeLessThanOrEqual(2);
      const headerBox = await box(header);
      // The name keeps a readable share of the header.
      expect(boxes[0]!.width, seen).toBeGreaterThanOrEqual(Math.min(240, headerBox.width * 0.5));
      for (const [i, b] of boxes.entries()) {
        // Inside the header (so not under the side panel), and clear of each other.
        expect(b.x, seen).toBeGreaterThanOrEqual(headerBox.x - 0.5);
        expect(b.x + b.width, seen).toBeLessThanOrEqual(headerBox.x + headerBox.width + 0.5);
        expect(b.y + b.height, seen).toBeLessThanOrEqual(headerBox.y + headerBox.height + 0.5);
        for (const other of boxes.slice(i + 1)) expect(overlap(b, other), seen).toBe(false);
      }
      // The model's name stays inside its button and shows as much as the width allows.
      const name = header.locator(".model-button-name");
      const nameBox = await box(name);
      expect(nameBox.x + nameBox.width, seen).toBeLessThanOrEqual(boxes[1]!.x + boxes[1]!.width + 0.5);
      // (Measured in fractions of a pixel: text a fraction wider than its box already ends in "…".)
      const shown = await name.evaluate((e) => {
        const text = e.ownerDocument.createRange();
        text.selectNodeContents(e);
        return Math.min(1, (e.getBoundingClientRect().width + 0.01) / text.getBoundingClientRect().width);
      });
      expect(shown, `${MODEL} shown at ${width} px`).toBeGreaterThanOrEqual(nameShown);
      // The context meter reads in full.
      expect(await parts[2]!.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
      // The side panel sits beside or under the header, never over it.
      const side = await box(page.locator(".chat-side"));
      expect(overlap(side, headerBox), `${JSON.stringify(side)} ${JSON.stringify(headerBox)}`).toBe(false);
      // The panel's own content reads whole inside it: no sideways scroll, every badge, todo, task
      // line and the task's Stop inside its edges and not cut, and each todo's text given a line
      // a person reads (not a word or two to a line beside its badge).
      const cut = await page.locator(".chat-side").evaluate((panel) => {
        const edge = panel.getBoundingClientRect();
        const right = edge.left + panel.clientWidth;
        const found: string[] = [];
        if (panel.scrollWidth > panel.clientWidth)
          found.push(`the panel scrolls sideways: ${panel.scrollWidth} > ${panel.clientWidth}`);
        const parts = panel.querySelectorAll(".todo-item > *, .task-head > *, .task-description, .task-stop");
        for (const part of parts) {
          const r = part.getBoundingClientRect();
          const what = `"${part.textContent}"`;
          if (r.left < edge.left - 0.5 || r.right > right + 0.5)
            found.push(`${what} at ${r.left}..${r.right}, the panel ${edge.left}..${right}`);
          if (part.scrollWidth > part.clientWidth)
            found.push(`${what} cut: ${part.scrollWidth} > ${part.clientWidth}`);
          const line = (part.parentElement?.getBoundingClientRect().right ?? r.right) - r.left;
          if (part.matches(".todo-content") && line < 110) found.push(`${what} has ${line} px a line`);
        }
        return found;
      });
      expect(cut, `the side panel at ${width} px`).toEqual([]);
      expect(world().problems, world().problems.join("\n")).toEqual([]);
    });
  }
});
