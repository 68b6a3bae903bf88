// Provider keys through `lathe serve`, which has no OS keychain: the Settings tab's Providers
// section says so and why, offers no field to type a key into, shows the key the environment of
// lathe serve provides without showing its value, and every request to store a key is refused
// with what to do instead. Needs `npm run build` first.
import { mkdir, readFile, readdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ApiResult, LatheApi } from "../../src/shared/api-contract.ts";
import type { SecretsStatus } from "../../src/shared/secret-schemas.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-providers.png");
const ENV_KEY = "sk-openai-from-the-environment-0123";
const TYPED_KEY = "sk-ant-typed-into-lathe-serve-4567";
const runUi = runsUi("providers");

/** The page's own API (`window.lathe`), as the UI's code would call it. */
type PageGlobals = { lathe: LatheApi };

describe.skipIf(!runUi)("provider keys in the UI through lathe serve", () => {
  let base: string;
  let url: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  useUiWorld(
    runUi,
    {
      prefix: "providers",
      env: { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: ENV_KEY, BRAVE_API_KEY: "" },
      goto: false,
    },
    (started) => {
      ({ base, url, browser, page, problems } = started);
    },
  );

  it("shows that keys cannot be stored here, why, and where each key comes from", async () => {
    await page.goto(url);
    await goTo(page, "Settings", "Providers");
    const section = page.getByRole("region", { name: "Providers" });
    const note = section.getByRole("note", { name: "Keychain not available" });
    await note.waitFor({ timeout: 10_000 });
    expect(await note.innerText()).toBe(
      "Storing keys is not available here. lathe serve has no access to the OS keychain: set ANTHROPIC_API_KEY, OPENAI_API_KEY or BRAVE_API_KEY in the environment of lathe serve instead.",
    );
    // Its words sit in the middle of the box: as much room under them as above (there was a blank
    // line's worth under them).
    const room = await note.evaluate((box) => {
      const text = box.querySelector("p")!.getBoundingClientRect();
      const frame = box.getBoundingClientRect();
      return { above: text.top - frame.top, below: frame.bottom - text.bottom };
    });
    expect(room.below).toBeCloseTo(room.above, 0);

    const keys = section.getByRole("list", { name: "Provider keys" });
    const row = (label: string) => keys.getByRole("listitem", { name: label, exact: true });
    expect(await row("Anthropic").innerText()).toMatch(/ANTHROPIC_API_KEY\s+not set/);
    expect(await row("OpenAI").innerText()).toMatch(/OPENAI_API_KEY\s+from environment/);
    expect(await row("Brave Search").innerText()).toMatch(/BRAVE_API_KEY\s+not set/);

    // No field to type a key into, nothing to save or remove, and no value on the page.
    expect(await page.locator("input[type=password]").count()).toBe(0);
    expect(await section.getByRole("textbox").count()).toBe(0);
    expect(await section.getByRole("button").count()).toBe(0);
    expect(await page.content()).not.toContain(ENV_KEY);

    await mkdir(path.dirname(SHOT), { recursive: true });
    await page.screenshot({ path: SHOT, fullPage: true });
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("refuses every request to store or remove a key, and says what to do instead", async () => {
    const call = (method: "set" | "remove", request: { name: string; value?: string }) =>
      page.evaluate(
        ([m, r]) => {
          const { secrets } = (globalThis as unknown as PageGlobals).lathe;
          return m === "set"
            ? secrets.set(r as Parameters<typeof secrets.set>[0])
            : secrets.remove(r as Parameters<typeof secrets.remove>[0]);
        },
        [method, request] as const,
      ) as Promise<ApiResult<SecretsStatus>>;
    for (const [name, variable] of [
      ["anthropic", "ANTHROPIC_API_KEY"],
      ["openai", "OPENAI_API_KEY"],
      ["brave", "BRAVE_API_KEY"],
    ] as const) {
      expect(await call("set", { name, value: TYPED_KEY })).toEqual({
        ok: false,
        error: {
          message: `lathe serve has no access to the OS keychain: set ${variable} in the environment of lathe serve instead.`,
        },
      });
      const removed = await call("remove", { name });
      expect(removed.ok).toBe(false);
    }

    const status = await page.evaluate(() => (globalThis as unknown as PageGlobals).lathe.secrets.status());
    expect(status).toEqual({
      ok: true,
      data: {
        available: false,
        explanation:
          "lathe serve has no access to the OS keychain: set ANTHROPIC_API_KEY, OPENAI_API_KEY or BRAVE_API_KEY in the environment of lathe serve instead.",
        stored: [],
        fromEnvironment: ["openai"],
      },
    });

    // Nothing under the project or the Lathe folder holds the typed key.
    const files = await readdir(base, { recursive: true, withFileTypes: true });
    for (const entry of files.filter((e) => e.isFile())) {
      const bytes = await readFile(path.join(entry.parentPath, entry.name));
      expect(bytes.includes(TYPED_KEY), path.join(entry.parentPath, entry.name)).toBe(false);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("with a keychain, takes a key in a password field, sends it once, and never shows it", async () => {
    // The same page, with a stand-in host that has a keychain in place of the WebSocket API.
    const keychainPage = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    try {
      await keychainPage.addInitScript(() => {
        const calls: unknown[] = [];
        const status = { available: true, stored: [] as string[], fromEnvironment: ["openai"] };
        const refuse = () => Promise.resolve({ ok: false, error: { message: "not in this test" } });
        const answer = () => Promise.resolve({ ok: true, data: { ...status, stored: [...status.stored] } });
        const page = globalThis as unknown as Record<string, unknown>;
        page["__secretCalls"] = calls;
        page["lathe"] = new Proxy(
          {
            tools: { list: () => Promise.resolve({ ok: true, data: [] }), call: refuse },
            secrets: {
              status: answer,
              set: (request: { name: string }) => {
                calls.push(["set", request]);
                status.stored.push(request.name);
                return answer();
              },
              remove: (request: { name: string }) => {
                calls.push(["remove", request]);
                status.stored = status.stored.filter((name) => name !== request.name);
                return answer();
              },
            },
            on: () => () => undefined,
          } as Record<string, unknown>,
          { get: (target, key: string) => target[key] ?? new Proxy({}, { get: () => refuse }) },
        );
      });
      await keychainPage.goto(url);
      await goTo(keychainPage, "Settings", "Providers");
      const row = keychainPage.getByRole("listitem", { name: "Anthropic", exact: true });
      const field = row.getByLabel("Anthropic API key", { exact: true });
      await field.waitFor({ timeout: 10_000 });
      expect(await field.getAttribute("type")).toBe("password");
      expect(await keychainPage.getByRole("note", { name: "Keychain not available" }).count()).toBe(0);
      expect(await keychainPage.getByRole("listitem", { name: "OpenAI" }).innerText()).toMatch(
        /from environment/,
      );

      await field.fill(TYPED_KEY);
      await row.getByRole("button", { name: "Save" }).click();
      await row.getByText("stored in keychain").waitFor({ timeout: 10_000 });
      expect(await row.getByRole("status").innerText()).toBe("Stored in the keychain; the next run uses it.");
      expect(await field.inputValue()).toBe("");
      expect(await keychainPage.content()).not.toContain(TYPED_KEY);

      await row.getByRole("button", { name: "Remove the Anthropic key" }).click();
      await row.getByText("not set").waitFor({ timeout: 10_000 });
      const calls = await keychainPage.evaluate(
        () => (globalThis as unknown as Record<string, unknown>)["__secretCalls"],
      );
      expect(calls).toEqual([
        ["set", { name: "anthropic", value: TYPED_KEY }],
        ["remove", { name: "anthropic" }],
      ]);
      await keychainPage.screenshot({ path: SHOT.replace(".png", "-keychain.png"), fullPage: true });
    } finally {
      await keychainPage.close();
    }
  });
});
