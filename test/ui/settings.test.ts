// Settings → Permissions as a person uses it: `lathe serve` with a temp $LATHE_HOME, the page in
// Debian's Chromium. Rules are edited, checked while typed (an invalid row, which scope wins, which
// rule decides a call), saved into settings.json and read back after a reload; the approval mode
// is saved and applies; a chat session's "always" answer is listed and revoked. Needs
// `npm run build` first.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { machineSandbox } from "../../src/main/engine/sandbox/sandbox-availability.ts";
import { scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("settings");
const PROMPT = "Write the changelog.";

function reply(request: ChatRequest): FixtureReply {
  const { step } = scriptTurn(request, "assistant");
  if (step === 0)
    return { toolCalls: [{ name: "write", arguments: { path: "CHANGELOG.md", content: "# 1.0\n" } }] };
  return { text: "The changelog is written." };
}

const GH_TOKEN_VALUE = "ui-gh-value-4d1b";
let home: string;
let root: string;
let page: Page;
let problems: string[];

const settingsFile = async () =>
  JSON.parse(await readFile(path.join(home, "settings.json"), "utf8")) as Record<string, unknown>;
const yours = () => page.getByRole("region", { name: "Your rules" });
const folder = () => page.getByRole("region", { name: "This folder's rules" });
const row = (scope: () => ReturnType<typeof yours>, n: number, label: string) =>
  scope().getByRole("row", { name: `${label} ${n}` });

useChatWorld(
  runUi,
  {
    prefix: "settings",
    replies: reply,
    prepare: async ({ root }) => {
      await mkdir(path.join(root, ".lathe"), { recursive: true });
      await writeFile(
        path.join(root, ".lathe", "settings.json"),
        JSON.stringify({ permissions: [{ permission: "bash", pattern: "git push*", action: "deny" }] }),
      );
    },
    viewport: { width: 1280, height: 1100 },
    // A credential in the environment Lathe runs in: Settings → Sandbox names it, never its value.
    env: { GH_TOKEN: GH_TOKEN_VALUE, TOKENIZERS_PARALLELISM: "false" },
  },
  (started) => {
    ({ home, root, page, problems } = started);
  },
);

// Registered after the world, so it runs before the world closes.
afterAll(async () => {
  await page?.screenshot({ path: path.join(SHOTS, "ui-settings-last.png") }).catch(() => undefined);
});

describe.skipIf(!runUi)("Settings → Permissions through lathe serve", () => {
  it("edits rules with live checks and saves them into settings.json, keeping the file's other keys", async () => {
    await goTo(page, "Settings", "Permissions");
    await folder().getByRole("row", { name: "This folder's rules 1" }).waitFor({ timeout: 10_000 });
    expect(await folder().innerText()).toMatch(/only deny rules apply \(not trusted\)/);

    await yours().getByRole("button", { name: "Add rule" }).click();
    const first = row(yours, 1, "Your rules");
    await first.getByRole("combobox", { name: "Permission" }).fill("");
    await first.getByRole("textbox", { name: "Pattern" }).fill("git *");
    // An empty permission is not a rule: said on the row, and nothing can be saved.
    await expect.poll(() => first.innerText()).toMatch(/name a tool, a capability or \*/);
    // Said under the Permission field, which is the one marked wrong; not under the Pattern.
    const cells = first.getByRole("cell");
    expect(await cells.nth(1).innerText()).toMatch(/name a tool, a capability or \*/);
    expect(await cells.nth(2).innerText()).not.toMatch(/name a tool/);
    expect(await first.getByRole("combobox", { name: "Permission" }).getAttribute("aria-invalid")).toBe(
      "true",
    );
    expect(await first.getByRole("textbox", { name: "Pattern" }).getAttribute("aria-invalid")).toBe("false");
    await page.screenshot({ path: path.join(SHOTS, "ui-settings-rule-problem.png") });
    expect(await yours().getByRole("button", { name: "Save your rules" }).isDisabled()).toBe(true);
    await first.getByRole("combobox", { name: "Permission" }).fill("bash");
    await first.getByRole("combobox", { name: "Action" }).selectOption("allow");
    await expect.poll(() => first.innerText()).not.toMatch(/name a tool/);

    // The same permission and pattern in both scopes: which one wins, and why.
    await yours().getByRole("button", { name: "Add rule" }).click();
    const second = row(yours, 2, "Your rules");
    await second.getByRole("combobox", { name: "Permission" }).fill("bash");
    await second.getByRole("textbox", { name: "Pattern" }).fill("git push*");
    await second.getByRole("combobox", { name: "Action" }).selectOption("allow");
    await expect
      .poll(() => second.innerText())
      .toMatch(/overridden by folder rule 1: same pattern: the stricter action \(deny\) wins/);

    // Which rule decides a call, before saving.
    const probe = page.getByRole("region", { name: "Which rule decides" });
    await probe.getByRole("textbox", { name: "Path, command or host" }).fill("git push origin main");
    const verdict = probe.getByRole("status", { name: "Verdict" });
    await expect.poll(() => verdict.innerText()).toMatch(/^deny — this folder's rule 1 decides/i);
    await probe.getByRole("textbox", { name: "Path, command or host" }).fill("git status");
    await expect.poll(() => verdict.innerText()).toMatch(/^allow — your rule 1 decides/i);
    expect(await first.getAttribute("class")).toContain("rule-decides");
    await page.screenshot({ path: path.join(SHOTS, "ui-settings-rules.png") });

    await yours().getByRole("button", { name: "Save your rules" }).click();
    await yours().getByRole("status").waitFor({ timeout: 10_000 });
    const saved = await settingsFile();
    expect(saved["permissions"]).toEqual([
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "bash", pattern: "git push*", action: "allow" },
    ]);
    expect(saved["defaultModel"]).toBe("openai-compatible:fixture-model");

    // Read back from the file after a reload.
    await page.reload();
    await goTo(page, "Settings", "Permissions");
    await expect
      .poll(() => row(yours, 2, "Your rules").getByRole("textbox", { name: "Pattern" }).inputValue(), {
        timeout: 10_000,
      })
      .toBe("git push*");
  });

  it("removes a rule and saves the approval mode; yolo then runs a chat's write without asking", async () => {
    await row(yours, 2, "Your rules").getByRole("button", { name: "Remove rule 2" }).click();
    await yours().getByRole("button", { name: "Save your rules" }).click();
    await expect
      .poll(async () => (await settingsFile())["permissions"])
      .toEqual([{ permission: "bash", pattern: "git *", action: "allow" }]);

    const approvals = page.getByRole("region", { name: "Approvals" });
    await approvals.getByRole("radio", { name: /^Yolo/ }).check();
    await approvals.getByRole("textbox", { name: "Allowlist" }).fill("bash:git log*\n\nedit:docs/*");
    await approvals.getByRole("button", { name: "Save approvals" }).click();
    await expect.poll(() => approvals.innerText()).toMatch(/New sessions use yolo \(your settings\)/);
    expect((await settingsFile())["approvals"]).toEqual({
      mode: "yolo",
      allowlist: ["bash:git log*", "edit:docs/*"],
    });

    await goTo(page, "Chat");
    await page.getByRole("textbox", { name: "Prompt" }).fill(PROMPT);
    await page.getByRole("textbox", { name: "Prompt" }).press("Enter");
    await page.getByText("The changelog is written.").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("dialog", { name: "Allow write to run?" }).count()).toBe(0);
    expect(await readFile(path.join(root, "CHANGELOG.md"), "utf8")).toBe("# 1.0\n");
  });

  it("lists a session's “always” answer and revokes it", async () => {
    // Back to asking; the person answers "for this session".
    await goTo(page, "Settings", "Permissions");
    const approvals = page.getByRole("region", { name: "Approvals" });
    await approvals.getByRole("radio", { name: /^Default/ }).check();
    await approvals.getByRole("button", { name: "Save approvals" }).click();
    await expect.poll(() => approvals.innerText()).toMatch(/New sessions use ask$/m);
    await goTo(page, "Chat");
    await page.getByRole("button", { name: "New chat" }).click();
    await page.getByRole("textbox", { name: "Prompt" }).fill(PROMPT);
    await page.getByRole("textbox", { name: "Prompt" }).press("Enter");
    const dialog = page.getByRole("dialog", { name: "Allow write to run?" });
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole("button", { name: "Allow for this session" }).click();
    await page.getByText("The changelog is written.").last().waitFor({ timeout: 15_000 });

    await goTo(page, "Settings", "Permissions");
    const answers = page.getByRole("region", { name: "Sessions' “always” answers" });
    const session = answers.getByRole("listitem", { name: `Session ${PROMPT}` });
    await session.waitFor({ timeout: 10_000 });
    expect(await session.innerText()).toContain("write:CHANGELOG.md");
    await page.screenshot({ path: path.join(SHOTS, "ui-settings-answers.png") });
    await session.getByRole("button", { name: "Revoke write:CHANGELOG.md" }).click();
    await session.waitFor({ state: "detached", timeout: 10_000 });
    expect(await answers.innerText()).toMatch(/No session keeps an “always” answer/);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("says in Settings → Sandbox what confined processes cannot read, reach or inherit", async (context) => {
    const machine = await machineSandbox();
    if (!machine.active) {
      console.log(`the active sandbox's panel is not shown here: ${machine.reason}`);
      context.skip();
    }
    await goTo(page, "Settings", "Sandbox");
    const wall = page.getByRole("list", { name: "Walls" }).getByRole("listitem", { name: "OS sandbox" });
    await wall.waitFor({ timeout: 15_000 });
    expect(await wall.innerText()).toMatch(/no network \(sandbox\.allowNetwork names none\)/);
    const hidden = wall.getByLabel("Hidden from confined processes");
    // Which places are on this machine varies; that they are named, and by which setting, does not.
    expect(await hidden.innerText()).toMatch(
      /^They cannot read (?=.*sandbox\.denyRead)(?=.*Lathe's own data)/s,
    );
    const withheld = wall.getByLabel("Withheld from their environment");
    expect(await withheld.innerText()).toMatch(
      /^bash, plugin commands and MCP servers start without (?=.*\bGH_TOKEN\b).*\(sandbox\.denyEnv, and Lathe's own keys\)/s,
    );
    expect(await wall.innerText()).not.toContain(GH_TOKEN_VALUE);
    expect(await wall.innerText()).not.toContain("TOKENIZERS_PARALLELISM");
    await page.screenshot({ path: path.join(SHOTS, "ui-settings-sandbox-active.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
