// Plugin errors in the chat's tool cards when the chat is narrow (a window 960 px wide at 200 %
// zoom shows 480 CSS pixels, the chat about 280 of them): `lathe serve` with the loopback fixture
// model calling the user's plugins — one uses runtime.shell without declaring it, one throws null
// — the page in Debian's Chromium. Each card's head shows the tool's name, where it comes from,
// its status and time side by side or on a second line, never drawn over one another or past the
// card's edge, and the long error wraps inside the card. Needs `npm run build` first.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("tool card narrow");
const PLUGINS: Record<string, string> = {
  shell_probe: "return await runtime.shell.run('git', ['log']);",
  null_thrower: "throw null;",
};

/** Each prompt names a plugin: the model calls it, then says it is done. */
function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  return step === 0 ? { toolCalls: [{ name: prompt, arguments: {} }] } : { text: `Called ${prompt}.` };
}

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "card-narrow",
    replies: reply,
    settings: { approvals: { mode: "yolo" } },
    prepare: async ({ home }) => {
      for (const [name, body] of Object.entries(PLUGINS)) {
        const dir = path.join(home, "tools", name);
        await mkdir(dir, { recursive: true });
        await writeFile(
          path.join(dir, "tool.yaml"),
          `name: ${name}\nversion: 1.0.0\ndescription: A plugin with a bug.\ninput_schema:\n  type: object\n  properties: {}\nreadOnly: true\ngated: false\n`,
        );
        await writeFile(
          path.join(dir, "index.js"),
          `export async function execute(args, runtime) {\n  ${body}\n}\n`,
        );
      }
    },
    viewport: { width: 480, height: 900 },
  },
  (started) => {
    page = started.page;
  },
);

/**
 * What is wrong with how a card's head is drawn: parts (the toggle with the tool's name, the
 * origin, the status badge, the time) that overlap one another, or that reach past the card.
 */
function headProblems(card: Locator): Promise<string[]> {
  return card.evaluate((article) => {
    const found: string[] = [];
    const edge = article.getBoundingClientRect();
    const parts = [
      ".tool-card-name",
      ".tool-card-origin",
      '[aria-label="Status"]',
      ".tool-card-time",
      ".kind-tag",
    ].flatMap((selector) => {
      const element = article.querySelector(`.tool-card-head ${selector}`);
      return element ? [{ selector, box: element.getBoundingClientRect() }] : [];
    });
    for (const { selector, box } of parts) {
      if (box.left < edge.left - 1 || box.right > edge.right + 1)
        found.push(`${selector} reaches past the card (${Math.round(box.left)}–${Math.round(box.right)})`);
    }
    for (const [i, a] of parts.entries())
      for (const b of parts.slice(i + 1)) {
        const apart =
          a.box.right <= b.box.left + 1 ||
          b.box.right <= a.box.left + 1 ||
          a.box.bottom <= b.box.top + 1 ||
          b.box.bottom <= a.box.top + 1;
        if (!apart) found.push(`${a.selector} is drawn over ${b.selector}`);
      }
    return found;
  });
}

describe.skipIf(!runUi)("plugin errors in a narrow chat", () => {
  it("shows each card's name, origin, status and error readably", async () => {
    for (const name of Object.keys(PLUGINS)) {
      await chat.send(name);
      await chat.conversation().getByText(`Called ${name}.`).waitFor({ timeout: 15_000 });
      await chat.turnEnded();
    }
    await chat.card("shell_probe").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-tool-card-narrow.png") });
    for (const name of Object.keys(PLUGINS)) {
      const card = chat.lastCard(name);
      expect(await chat.status(name)).toBe("error");
      expect(await headProblems(card), name).toEqual([]);
      // The whole error is there, wrapped inside the card: nothing scrolls or is cut sideways.
      const error = card.getByLabel("Error text", { exact: true });
      expect(await error.innerText()).toMatch(/This is a bug in the plugin/);
      expect(await error.evaluate((e) => e.scrollWidth <= e.clientWidth + 1), name).toBe(true);
    }
    expect(world().problems).toEqual([]);
  }, 60_000);
});
