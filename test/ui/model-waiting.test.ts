// A silent model as a person meets it in the app: `lathe serve`, Chromium, and a loopback model
// server that accepts the request and says nothing. The running turn counts the wait ("waiting
// for the model — N s"), Stop ends it at once, and with a short firstByteMs the step fails with a
// message naming the setting. Needs `npm run build` first.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { fixtureProviders, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";
import { chatHelpers } from "./ui-world.ts";

const MODEL = "openai-compatible:fixture-model";
const runUi = runsUi("model-waiting");

let page: Page;
let problems: string[];

/** Every prompt gets silence; "Answer late." gets its answer after 2.5 s. */
function reply(request: ChatRequest): FixtureReply {
  const prompt = String(request.messages.findLast((m) => m.role === "user")?.content ?? "");
  return prompt === "Answer late." ? { text: "Here I am.", firstByteDelayMs: 2_500 } : { silent: true };
}

const { conversation, send } = chatHelpers(() => page);
const waiting = () =>
  conversation()
    .getByRole("status")
    .filter({ hasText: /waiting for the model/ });

useUiWorld(
  runUi,
  {
    prefix: "waiting",
    replies: reply,
    prepare: async ({ home, fixture }) => {
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          defaultModel: MODEL,
          providers: {
            ...(await fixtureProviders()),
            "openai-compatible": { baseURL: fixture!.baseURL, timeouts: { firstByteMs: 5_000 } },
          },
        }),
      );
    },
  },
  async (started) => {
    ({ page, problems } = started);
    await goTo(page, "Chat");
  },
);

describe.skipIf(!runUi)("a silent model in the app", () => {
  it("counts the wait on the running turn, and Stop ends it at once", async () => {
    await send("Say something.");
    await waiting().waitFor({ timeout: 10_000 });
    // The count goes on each second while nothing arrives.
    await expect
      .poll(async () => Number(/— (\d+) s/.exec(await waiting().innerText())?.[1]), { timeout: 6_000 })
      .toBeGreaterThanOrEqual(3);
    await page.getByRole("button", { name: "Stop" }).click();
    await conversation().getByText("Stopped.").waitFor({ timeout: 3_000 });
    expect(await waiting().count()).toBe(0);
  });

  it("clears the count once the model answers", async () => {
    await send("Answer late.");
    await waiting().waitFor({ timeout: 10_000 });
    await conversation().getByText("Here I am.").waitFor({ timeout: 10_000 });
    expect(await waiting().count()).toBe(0);
  });

  it("fails the step after firstByteMs with a message naming the setting", async () => {
    // Generous: the model is silent for 5 s by design, and a loaded machine adds its own delays.
    await send("Say something else.");
    const alert = conversation().getByRole("alert").filter({ hasText: "firstByteMs" });
    await alert.waitFor({ timeout: 40_000 });
    expect(await alert.innerText()).toMatch(
      /sent nothing for 5 s after the request for fixture-model: it never started answering\. .*providers\["openai-compatible"\]\.timeouts\.firstByteMs in settings \(now 5000\)/,
    );
    // Nothing is wrong with the conversation: as after a dropped connection, it can go on.
    const goOn = conversation().getByRole("group", { name: "Continue the conversation" });
    expect(await goOn.innerText()).toMatch(/before it went silent is kept/);
    expect(await goOn.getByRole("button", { name: "Continue" }).isEnabled()).toBe(true);
    expect(problems, problems.join("\n")).toEqual([]);
  }, 60_000);
});
