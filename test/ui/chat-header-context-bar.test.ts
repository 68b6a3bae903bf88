// The chat's header when the model's server says how large its context is (vLLM here; Ollama,
// LM Studio and llama.cpp do too), so the context meter has its bar and is twice as wide, beside
// a model name as long as Ollama's. At 1024 px the pickers' row broke in two and the agent went to
// a third row of the header; at every width from 480 to 1280 px it now keeps to two rows, nothing
// over another or outside the header, the meter whole, the session's name with the first row to
// itself where the pickers' row has room for the meter (800 and 960 px), and the model's name,
// where it is cut, cut with an ellipsis (its button's tooltip has it whole).
// `lathe serve` on a temp folder, the fixture model as a vLLM server, the page in Debian's
// Chromium. Needs `npm run build` first.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { box, overlap, rowsOf } from "./boxes.ts";

const runUi = runsUi("chat header with a context bar");
const MODEL = "qwen2.5-coder:14b-instruct-q4_K_M";
const PROMPT = "Summarise the release notes of the parser rewrite for the team";

let page: Page;

const world = useChatWorld(
  runUi,
  {
    prefix: "chat-header-context-bar",
    replies: () => ({ text: "Here is the summary.", usage: { prompt_tokens: 1200, completion_tokens: 40 } }),
    // vLLM lists each model's context in /v1/models.
    fixture: { models: [MODEL], modelFields: { [MODEL]: { max_model_len: 32_768 } } },
    viewport: { width: 1024, height: 700 },
    prepare: async ({ home, fixture }) => {
      const file = path.join(home, "settings.json");
      const settings = JSON.parse(await readFile(file, "utf8")) as { providers: Record<string, unknown> };
      settings.providers["vllm"] = { baseURL: fixture!.baseURL };
      await writeFile(file, JSON.stringify({ ...settings, defaultModel: `vllm:${MODEL}` }));
    },
  },
  (started) => {
    page = started.page;
  },
);
const chat = world.chat;

describe.skipIf(!runUi)("the chat header with the context meter's bar", () => {
  for (const width of [480, 800, 960, 1024, 1280])
    it(`keeps to two rows at ${width} px, nothing overlapping, the meter whole`, async () => {
      await page.setViewportSize({ width, height: 700 });
      if ((await chat.conversation().getByText("Here is the summary.").count()) === 0) {
        await chat.send(PROMPT);
        await chat.conversation().getByText("Here is the summary.").waitFor({ timeout: 15_000 });
      }
      const header = page.locator(".chat-header");
      const title = header.getByRole("heading", { name: PROMPT });
      const meter = header.getByRole("group", { name: "Context" });
      // The server's size has reached the picker: the meter has its bar.
      await meter.getByRole("meter", { name: "Context used" }).waitFor({ timeout: 10_000 });
      await page.screenshot({
        path: path.join(REPO, `test-results/ui-chat-header-context-bar-${width}.png`),
      });
      const parts = [
        title,
        header.getByRole("button", { name: `Model: vllm:${MODEL}` }),
        meter,
        header.getByRole("combobox", { name: "Agent" }),
      ];
      const boxes = await Promise.all(parts.map(box));
      const seen = `${width} px: ${JSON.stringify(boxes)}`;
      expect(rowsOf(boxes), seen).toBeLessThanOrEqual(2);
      const headerBox = await box(header);
      for (const [i, b] of boxes.entries()) {
        expect(b.x, seen).toBeGreaterThanOrEqual(headerBox.x - 0.5);
        expect(b.x + b.width, seen).toBeLessThanOrEqual(headerBox.x + headerBox.width + 0.5);
        expect(b.y + b.height, seen).toBeLessThanOrEqual(headerBox.y + headerBox.height + 0.5);
        for (const other of boxes.slice(i + 1)) expect(overlap(b, other), seen).toBe(false);
      }
      expect(await meter.evaluate((e) => e.scrollWidth <= e.clientWidth), seen).toBe(true);
      if (width === 800 || width === 960) {
        // The title's row is its own: nothing else in it.
        for (const b of boxes.slice(1))
          expect(b.y, seen).toBeGreaterThanOrEqual(boxes[0]!.y + boxes[0]!.height);
      }
      // The model's name: whole, or cut with an ellipsis inside its button.
      const name = header.locator(".model-button-name");
      const fit = await name.evaluate((e) => ({
        cut: e.scrollWidth > e.clientWidth,
        overflow: e.ownerDocument.defaultView!.getComputedStyle(e).textOverflow,
        right: e.getBoundingClientRect().right,
      }));
      if (fit.cut) expect(fit.overflow, seen).toBe("ellipsis");
      expect(fit.right, seen).toBeLessThanOrEqual(boxes[1]!.x + boxes[1]!.width + 0.5);
      expect(world().problems, world().problems.join("\n")).toEqual([]);
    });
});
