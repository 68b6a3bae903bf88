// The model picker as a person meets it: `lathe serve` whose settings point Ollama and LM Studio at
// loopback stand-ins on random ports (llama.cpp and vLLM at a closed port), the page in Debian's
// Chromium. It lists each running server's models with their context sizes, says which servers
// are not running and how to start them, adds a GGUF file by path, and remembers the pick for the
// folder across a reload. Needs `npm run build` first.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../fixtures/local-model-servers.ts";
import { closedPort } from "../support/closed-port.ts";
import { REPO, goTo, openWatchedPage, pickModel, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOTS = path.join(REPO, "test-results");
const TINY_GGUF = path.resolve(REPO, "../shared/models/llama-2-tiny-random.gguf");
const runUi = runsUi("models");

let home: string;
let root: string;
let closed: number;
let browser: Browser;
let url: string;
let page: Page;
const fakes: FakeModelServer[] = [];
let problems: string[];

const modelButton = () => page.getByRole("button", { name: /^Model: / });
const panel = () => page.getByRole("dialog", { name: "Choose a model" });

// Registered before the world, so they run after it closed.
afterAll(async () => {
  for (const fake of fakes) await fake.close();
});

useUiWorld(
  runUi,
  {
    prefix: "models",
    prepare: async ({ home }) => {
      fakes.push(
        await startFakeModelServer("ollama", [
          { name: "qwen2.5-coder:7b", context: 32_768 },
          { name: "llama3.2:latest", context: 131_072 },
        ]),
        await startFakeModelServer("lmstudio", [{ name: "mistral-small-3.1", context: 16_384 }]),
      );
      closed = await closedPort();
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          providers: {
            ollama: { baseURL: fakes[0]?.baseURL },
            lmstudio: { baseURL: fakes[1]?.baseURL },
            llamacpp: { baseURL: `http://127.0.0.1:${closed}/v1` },
            vllm: { baseURL: `http://127.0.0.1:${closed}/v1` },
          },
        }),
      );
    },
    env: { ANTHROPIC_API_KEY: "sk-ui-test", OPENAI_API_KEY: "" },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    ({ home, root, browser, url, page, problems } = started);
  },
);

describe.skipIf(!runUi)("the model picker through lathe serve", () => {
  it("lists the running servers' models with context sizes, and how to start the ones not running", async () => {
    // With nothing picked or configured, a new chat starts with the first running server's model.
    await expect
      .poll(() => modelButton().getAttribute("aria-label"), { timeout: 10_000 })
      .toBe("Model: ollama:qwen2.5-coder:7b");
    await modelButton().click();
    await panel().waitFor();
    const ollama = panel().getByRole("listitem", { name: "Ollama" });
    await ollama
      .getByRole("button", { name: "ollama:llama3.2:latest, 131k context" })
      .waitFor({ timeout: 10_000 });
    expect(await ollama.innerText()).toMatch(/running/);
    expect(await ollama.innerText()).toContain(`127.0.0.1:${fakes[0]?.port}`);
    const lmstudio = panel().getByRole("listitem", { name: "LM Studio" });
    expect(await lmstudio.getByRole("button").allInnerTexts()).toEqual([
      expect.stringMatching(/mistral-small-3\.1\s+16\.4k ctx/),
    ]);
    const vllm = panel().getByRole("listitem", { name: "vLLM" });
    expect(await vllm.innerText()).toMatch(/not running/);
    expect(await vllm.innerText()).toContain(
      `vLLM is not running on http://127.0.0.1:${closed} (ECONNREFUSED): start it with vllm serve <model>.`,
    );
    expect(await vllm.locator("code").innerText()).toBe("vllm serve <model>");
    // A cloud provider with a key offers its models; one without says where the key goes.
    const cloud = panel().getByRole("region", { name: "Cloud" });
    await cloud.getByRole("button", { name: /^anthropic:claude-sonnet-4-5/ }).waitFor();
    expect(await cloud.getByRole("listitem", { name: "OpenAI" }).innerText()).toMatch(
      /no key[\s\S]*OPENAI_API_KEY/,
    );
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, "ui-models-picker.png") });
    // The filter narrows every group.
    await panel().getByRole("searchbox", { name: "Filter models" }).fill("mistral");
    expect(
      await panel()
        .getByRole("button", { name: /context$|^[a-z-]+:[^,]+$/ })
        .count(),
    ).toBe(1);
    await page.keyboard.press("Escape");
    await panel().waitFor({ state: "hidden" });
  });

  it("adds a GGUF file by its path and offers it with the context length of its header", async () => {
    await modelButton().click();
    const gguf = panel().getByRole("region", { name: "GGUF files" });
    await gguf.getByRole("textbox", { name: "Path of a GGUF file" }).fill(path.join(root, "nope.gguf"));
    await gguf.getByRole("button", { name: "Add" }).click();
    await expect
      .poll(() => gguf.getByRole("alert").innerText())
      .toMatch(/cannot be added: it does not exist/);
    await gguf.getByRole("textbox", { name: "Path of a GGUF file" }).fill(TINY_GGUF);
    await gguf.getByRole("button", { name: "Add" }).click();
    const added = path.join(home, "models", "llama-2-tiny-random.gguf");
    await gguf.getByRole("button", { name: `gguf:${added}, 4.1k context` }).waitFor({ timeout: 10_000 });
    expect(await gguf.getByRole("alert").count()).toBe(0);
    await page.keyboard.press("Escape");
    await panel().waitFor({ state: "hidden" });
  });

  it("remembers the model picked for this folder, and shows its context size in the chat header", async () => {
    await pickModel(page, "lmstudio:mistral-small-3.1");
    expect(await modelButton().innerText()).toMatch(/mistral-small-3\.1\s*LM Studio/);
    const meter = page.getByRole("group", { name: "Context" });
    expect(await meter.innerText()).toMatch(/–\s*\/\s*16\.4k ctx/);
    const remembered = async () =>
      (
        JSON.parse(
          await readFile(path.join(home, "project-models.json"), "utf8").catch(() => '{"models":{}}'),
        ) as { models: Record<string, string> }
      ).models[root];
    await expect.poll(remembered).toBe("lmstudio:mistral-small-3.1");
    // A new tab on the same folder starts with it.
    const again = await openWatchedPage(browser, problems);
    await again.goto(url);
    await expect
      .poll(() => again.getByRole("button", { name: /^Model: / }).getAttribute("aria-label"), {
        timeout: 10_000,
      })
      .toBe("Model: lmstudio:mistral-small-3.1");
    await again.close();
    // Settings → Models shows the same detection and the remembered model.
    await goTo(page, "Settings", "Models");
    const servers = page.getByRole("list", { name: "Local servers" });
    await expect
      .poll(() => servers.getByRole("listitem", { name: "Ollama" }).innerText())
      .toMatch(/2 models/);
    expect(await servers.getByRole("listitem", { name: "The llama.cpp server" }).innerText()).toMatch(
      /not running/,
    );
    expect(await page.getByRole("region", { name: "This folder's model" }).innerText()).toMatch(
      /New chats here start with lmstudio:mistral-small-3\.1/,
    );
    await page.screenshot({ path: path.join(SHOTS, "ui-models-settings.png") });
    // Only the stand-ins on their own ports were asked.
    expect(fakes[0]?.requests).toContain("GET /v1/models");
    expect(fakes[0]?.requests).toContain("POST /api/show");
    expect(fakes[1]?.requests).toContain("GET /api/v0/models");
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
