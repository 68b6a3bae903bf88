// The Audit view as a person uses it: `lathe serve` on a folder, the page in Debian's Chromium, a
// few calls made from the tool workbench (one runs, one is rejected in the approval dialog, one
// fails), then the trail: newest first, each call's decision chain, and the filters by outcome,
// tool and session; a call a failing hook refused is "denied"; a question reads as its text; and
// after opening another folder, the view shows that folder's calls only. Needs `npm run build` first.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPO, fixtureProviders, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const SHOT = path.join(REPO, "test-results/ui-audit.png");
const QUESTION = "Which database should the service use?";
const runUi = runsUi("audit");

let page: Page;
let problems: string[];
let first: string;
let second: string;

const calls = () => page.getByRole("list", { name: "Calls" }).getByRole("listitem");
const outcomes = () => calls().getByLabel("Outcome").allInnerTexts();

useUiWorld(
  runUi,
  {
    prefix: "audit",
    prepare: async ({ base, root, home }) => {
      await writeFile(path.join(root, "README.md"), "# audited\n");
      await mkdir(path.join(base, "second"));
      await writeFile(path.join(base, "second", "NOTES.md"), "# second\n");
      await writeFile(
        path.join(home, "settings.json"),
        JSON.stringify({
          providers: await fixtureProviders(),
          // A hook that fails (exit 3, no answer): the README says it denies the call.
          hooks: [
            { command: "echo broken hook >&2; exit 3", tools: ["grep"] },
            // A hook that refuses with a 3 KB explanation (see the last test).
            {
              command: "yes xxxxxxxxx | head -c 3000 | tr '\\n' ' ' >&2; echo END >&2; exit 2",
              tools: ["bash"],
            },
          ],
        }),
      );
    },
    viewport: { width: 1280, height: 900 },
  },
  async (started) => {
    ({ page, problems, root: first } = started);
    second = path.join(started.base, "second");
    await goTo(page, "Tools", "Run a tool");
    await page
      .getByRole("list", { name: "Tools" })
      .getByRole("button", { name: /^read\b/ })
      .waitFor({ timeout: 10_000 });
  },
);

describe.skipIf(!runUi)("the Audit view through lathe serve", () => {
  it("shows every call newest first, with its outcome and the stage that refused it", async () => {
    await runTool(page, "read", { path: "README.md" });
    await page.getByLabel("Envelope", { exact: true }).waitFor({ timeout: 10_000 });
    await runTool(page, "write", { path: "secret.txt", content: "no" });
    const dialog = page.getByRole("dialog", { name: "Allow write to run?" });
    await dialog.getByRole("button", { name: "Reject" }).click();
    await dialog.waitFor({ state: "hidden" });
    await runTool(page, "read", { path: "missing.md" });
    await expect
      .poll(() => page.getByLabel("Error text", { exact: true }).innerText())
      .toMatch(/missing\.md/);

    await goTo(page, "Audit");
    await expect.poll(outcomes, { timeout: 10_000 }).toEqual(["error", "denied", "ok"]);
    expect(await calls().nth(1).innerText()).toMatch(
      /write[\s\S]*secret\.txt[\s\S]*Refused at Approval: the user rejected the call/,
    );
  });

  it("opens a call on its whole decision chain, arguments and envelope", async () => {
    const write = calls().nth(1);
    await write.getByRole("button", { expanded: false }).click();
    const chain = write.getByRole("list", { name: "Decisions" });
    expect(
      (await chain.getByRole("listitem").allInnerTexts()).map((t) =>
        t.split(/\s+/).slice(0, 2).join(" ").toLowerCase(),
      ),
    ).toEqual(["capability allow", "rules ask", "watchdog allow", "approval deny"]);
    expect(await write.innerText()).toContain('"path": "secret.txt"');
    await page.screenshot({ path: SHOT });
  });

  it("filters by outcome, tool and session", async () => {
    const outcome = page.getByRole("radiogroup", { name: "Outcome" });
    await outcome.getByRole("radio", { name: "denied" }).click();
    await expect.poll(outcomes).toEqual(["denied"]);
    await outcome.getByRole("radio", { name: "error" }).click();
    await expect.poll(outcomes).toEqual(["error"]);
    await outcome.getByRole("radio", { name: "all" }).click();
    await page.getByRole("combobox", { name: "Tool" }).selectOption("read");
    await expect.poll(outcomes).toEqual(["error", "ok"]);
    const sessions = page.getByRole("combobox", { name: "Session" });
    const options = await sessions.locator("option").allInnerTexts();
    expect(options).toHaveLength(2);
    await sessions.selectOption({ index: 1 });
    await expect.poll(outcomes).toEqual(["error", "ok"]);
    // Back to every call, for the tests below.
    await sessions.selectOption("");
    await page.getByRole("combobox", { name: "Tool" }).selectOption("");
    await expect.poll(outcomes).toEqual(["error", "denied", "ok"]);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("counts a call a failing hook refused as denied, with the hook's reason", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "grep", { pattern: "audited" });
    await expect
      .poll(() => page.getByLabel("Error text", { exact: true }).innerText(), { timeout: 10_000 })
      .toMatch(/refused by the watchdog/);
    await goTo(page, "Audit");
    const grep = page.getByRole("list", { name: "Calls" }).getByRole("listitem", { name: "grep call" });
    await expect.poll(() => grep.getByLabel("Outcome").innerText(), { timeout: 10_000 }).toBe("denied");
    expect(await grep.innerText()).toMatch(
      /Refused at Watchdog: hook .*failed with exit code 3: broken hook/,
    );
    await page.getByRole("radiogroup", { name: "Outcome" }).getByRole("radio", { name: "denied" }).click();
    await expect.poll(outcomes).toEqual(["denied", "denied"]);
    await page.getByRole("radiogroup", { name: "Outcome" }).getByRole("radio", { name: "all" }).click();
  });

  it("shows a question call as the question it asked, not as JSON", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "question", { questions: [{ question: QUESTION }, { question: "What port?" }] });
    await page
      .getByLabel(/Error text|Envelope/)
      .first()
      .waitFor({ timeout: 10_000 });
    await goTo(page, "Audit");
    const question = page
      .getByRole("list", { name: "Calls" })
      .getByRole("listitem", { name: "question call" });
    await question.waitFor({ timeout: 10_000 });
    const head = await question.getByRole("button").first().innerText();
    expect(head).toContain(`${QUESTION} · 1 more question`);
    expect(head).not.toContain("{");
  });

  it("shows the open folder's calls: another folder starts empty, says so, and has its own", async () => {
    expect(await page.getByLabel("Folder", { exact: true }).innerText()).toContain(first);
    await page
      .getByRole("banner")
      .getByRole("button", { name: /^Project / })
      .click();
    const open = page.getByRole("dialog", { name: "Open a folder" });
    await open.getByRole("textbox", { name: "Folder path" }).fill(second);
    await open.getByRole("textbox", { name: "Folder path" }).press("Enter");
    await open.waitFor({ state: "hidden" });
    await page
      .getByRole("banner")
      .getByRole("button", { name: `Project ${second}: open another folder` })
      .waitFor();

    await goTo(page, "Audit");
    const empty = page.locator(".audit-empty");
    await expect
      .poll(() => empty.innerText(), { timeout: 10_000 })
      .toContain(`No tool calls in ${second} yet.`);
    expect(await empty.innerText()).toContain("lathe audit --all");
    expect(await calls().count()).toBe(0);
    expect(await page.getByRole("combobox", { name: "Session" }).locator("option").count()).toBe(1);
    await page.screenshot({ path: SHOT.replace(".png", "-empty-folder.png") });

    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "glob", { pattern: "*.md" });
    await page.getByLabel("Envelope", { exact: true }).waitFor({ timeout: 10_000 });
    await goTo(page, "Audit");
    await expect.poll(outcomes, { timeout: 10_000 }).toEqual(["ok"]);
    expect(await calls().first().innerText()).toMatch(/glob[\s\S]*\*\.md/);
    expect(await page.getByRole("combobox", { name: "Tool" }).locator("option").allInnerTexts()).toEqual([
      "All tools",
      "glob",
    ]);
    await page.screenshot({ path: SHOT.replace(".png", "-second-folder.png") });

    // Back in the first folder: its own calls again, none of the second's.
    await page
      .getByRole("banner")
      .getByRole("button", { name: /^Project / })
      .click();
    await open.getByRole("textbox", { name: "Folder path" }).fill(first);
    await open.getByRole("textbox", { name: "Folder path" }).press("Enter");
    await open.waitFor({ state: "hidden" });
    await goTo(page, "Audit");
    await expect.poll(() => calls().count(), { timeout: 10_000 }).toBe(5);
    expect(await page.getByRole("list", { name: "Calls" }).innerText()).not.toContain("*.md");
    await page.screenshot({ path: SHOT.replace(".png", "-first-folder.png") });
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("keeps a refusal with a huge reason to a few lines, and scrolls all of it when opened", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "bash", { command: "echo hi" });
    await expect
      .poll(() => page.getByLabel("Error text", { exact: true }).innerText(), { timeout: 10_000 })
      .toMatch(/refused by the watchdog/);
    await goTo(page, "Audit");
    const bash = page.getByRole("list", { name: "Calls" }).getByRole("listitem", { name: "bash call" });
    await bash.waitFor({ timeout: 10_000 });
    expect(await bash.locator(".audit-refusal").innerText()).toMatch(
      /^Refused at Watchdog: hook .*: (xxxxxxxxx ){10}/,
    );
    // Collapsed: a row of a few lines, and nothing wider than the window.
    expect((await bash.boundingBox())?.height).toBeLessThan(160);
    // The list is as wide as its panel: the reason wraps instead of widening it.
    const list = page.getByRole("list", { name: "Calls" });
    expect(await list.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.screenshot({ path: SHOT.replace(".png", "-huge-reason.png") });

    // Opened: the whole reason, in a box of its own that scrolls.
    await bash.getByRole("button", { expanded: false }).click();
    const watchdog = bash.getByRole("list", { name: "Decisions" }).getByRole("listitem").nth(2);
    expect(await watchdog.innerText()).toMatch(/^Watchdog\s+deny\s+hook .*: (xxxxxxxxx\s+)+END$/i);
    expect((await watchdog.boundingBox())?.height).toBeLessThan(260);
    await bash.getByRole("button", { expanded: true }).click();
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
