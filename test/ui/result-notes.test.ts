// What the model reads about a result, the person reads too: a cut result's `metadata.left_out`
// (what it does not show and where all of it is), folded into the "N lines shown" line where the
// page draws one; and glob's and grep's note on the hidden folders (~/.ssh…) their walk left out,
// and on the files a permission rule denies reading (how many, never which).
// In the chat's tool cards and in Tools → Run a tool. `lathe serve` opens a fake home folder
// ($HOME points at it, so ~/.ssh is in it) in yolo mode; the loopback fixture model globs it
// (1,201 files: cut at 1,000), runs a command with a huge output, then greps it. Needs
// `npm run build` first.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChatRequest, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runTool, runsUi } from "./serve-fixture.ts";
import { chatHelpers, scriptTurn } from "./ui-world.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("result notes");

const PROMPT = "Look around my home folder.";
const DONE = "Looked around.";
const SEARCH = "Search my home folder for SAFE.";
const SEARCHED = "Searched.";
/**
 * What glob and grep say they left out of a walk of the home folder: ~/.ssh, hidden, and ~/.env,
 * which a permission rule denies reading (counted, not named).
 */
const HIDDEN_NOTE =
  "Left out 1 hidden path, which no tool or command may read: ~/.ssh (sandbox.denyRead); " +
  "left out 1 file that your permission rules deny reading (not named; reading it is refused).";
/** Files outside any hidden folder: more than glob's 1,000, so its result is cut. */
const VISIBLE_FILES = 1_201;

function reply(request: ChatRequest): FixtureReply {
  const { prompt, step } = scriptTurn(request, "tool");
  if (prompt === SEARCH)
    return step === 0
      ? { toolCalls: [{ name: "grep", arguments: { pattern: "SAFE", output_mode: "content" } }] }
      : { text: SEARCHED };
  if (prompt !== PROMPT) return { text: `You said: ${prompt}` };
  return [
    { toolCalls: [{ name: "glob", arguments: { pattern: "**/*" } }] },
    { toolCalls: [{ name: "bash", arguments: { command: "seq 1 100000" } }] },
    { text: DONE },
  ][step]!;
}

let page: Page;
const chat = chatHelpers(() => page);

const world = useChatWorld(
  runUi,
  {
    prefix: "notes",
    rootName: "person",
    replies: reply,
    // denyRead's defaults (~/.ssh and the like) are under the home folder: the one served.
    env: ({ root }) => ({ HOME: root }),
    settings: {
      approvals: { mode: "yolo" },
      permissions: [{ permission: "fs.read", pattern: "**/.env", action: "deny" }],
    },
    prepare: async ({ root }) => {
      await mkdir(path.join(root, ".ssh"));
      await writeFile(path.join(root, ".ssh/id_ed25519"), "SAFE-looking secret key\n");
      await writeFile(path.join(root, "notes.txt"), "SAFE notes\n");
      await writeFile(path.join(root, ".env"), "SAFE_TOKEN=denied\n");
      await mkdir(path.join(root, "many"));
      for (let i = 1; i < VISIBLE_FILES; i++)
        await writeFile(path.join(root, `many/f${String(i).padStart(4, "0")}.txt`), "");
    },
    viewport: { width: 1280, height: 1000 },
  },
  (started) => {
    page = started.page;
  },
);

describe.skipIf(!runUi)("a cut result's note in the chat and the workbench", () => {
  it("says under a cut glob what it left out and where all of it is, in the model's words", async () => {
    await chat.send(PROMPT);
    await chat.conversation().getByText(DONE).waitFor({ timeout: 30_000 });
    const glob = chat.lastCard("glob");
    expect(await glob.getByLabel("Status").innerText()).toBe("ok");
    const leftOut = glob.getByRole("note", { name: "Left out" });
    await leftOut.waitFor({ timeout: 5_000 });
    // The model's note up to the file that holds all of it (how to read that file is for the model).
    const whole = await leftOut.locator("code").innerText();
    expect(await leftOut.innerText()).toBe(
      `Only the first 1000 of ${VISIBLE_FILES} entries are shown; ${VISIBLE_FILES - 1000} are left out. All of it is in ${whole}.`,
    );
    // The file it names holds every path, hidden ones aside.
    expect(whole.startsWith(world().home)).toBe(true);
    const listed = (await readFile(whole, "utf8")).trimEnd().split("\n");
    expect(listed).toHaveLength(VISIBLE_FILES);
    expect(listed.filter((p) => p.startsWith(".ssh"))).toEqual([]);
    // Said once, in a quiet note: not as well in the old "Output truncated" line.
    expect(await glob.innerText()).not.toContain("Output truncated");
    expect(await leftOut.getAttribute("class")).toContain("muted");
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("folds a cut bash output's note into the terminal's one 'lines shown' line", async () => {
    const bash = chat.lastCard("bash");
    expect(await bash.getByLabel("Status").innerText()).toBe("ok");
    const rest = bash.getByRole("note", { name: "Terminal output: not shown" });
    const whole = await rest.locator("code").innerText();
    // What the page does not draw, then what the tool cut and where all of it is: one line.
    expect(await rest.innerText()).toMatch(
      new RegExp(
        "^1,000 of the result's [\\d,]+ lines shown; [\\d,]+ more \\([\\d,.]+ K characters\\) not drawn here\\. " +
          "The output was cut: \\d+ lines \\([\\d.]+ [KM]B\\) in its middle are left out; its head and its last lines are shown\\. " +
          `All of it is in ${whole.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\. Show 1,000 more lines$`,
      ),
    );
    expect((await readFile(whole, "utf8")).endsWith("\n100000\n")).toBe(true);
    // No second note says it again.
    expect(await bash.getByRole("note", { name: "Left out" }).count()).toBe(0);
    expect((await bash.innerText()).split(whole)).toHaveLength(2);
    expect(await bash.innerText()).not.toContain("Output truncated");
    await chat.lastCard("glob").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-result-notes-chat.png") });
    await rest.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-result-notes-chat-bash.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("shows the same note under the workbench's result", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "glob", { pattern: "**/*" });
    const result = page.getByRole("region", { name: "Result" });
    const leftOut = result.getByRole("note", { name: "Left out" });
    await leftOut.waitFor({ timeout: 10_000 });
    expect(await leftOut.innerText()).toMatch(
      new RegExp(
        `^Only the first 1000 of ${VISIBLE_FILES} entries are shown; \\d+ are left out\\. All of it is in /\\S+\\.txt\\.$`,
      ),
    );
    // The file holding all of it is named once: in the note, not again in the metadata.
    const whole = await leftOut.locator("code").innerText();
    expect((await result.innerText()).split(whole)).toHaveLength(2);
    expect(await result.getByLabel("Metadata").innerText()).not.toContain("full output");
    await result.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-result-notes-workbench.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});

describe.skipIf(!runUi)("the hidden folders a search left out, in the chat and the workbench", () => {
  it("says under the glob and the grep card which hidden folder their walk left out, folded or open", async () => {
    await goTo(page, "Chat");
    // The glob of the first prompt: folded, it says both what was cut and what was hidden.
    const glob = chat.lastCard("glob");
    expect(await glob.getByRole("button", { expanded: false }).count()).toBe(1);
    const hidden = glob.getByRole("note", { name: "Hidden paths" });
    await hidden.waitFor({ timeout: 5_000 });
    expect(await hidden.innerText()).toBe(HIDDEN_NOTE);
    expect(await hidden.getAttribute("class")).toContain("muted");
    expect(await glob.getByRole("note", { name: "Left out" }).count()).toBe(1);
    await glob.screenshot({ path: path.join(SHOTS, "ui-result-notes-hidden-glob-card.png") });

    await chat.send(SEARCH);
    await chat.conversation().getByText(SEARCHED).waitFor({ timeout: 20_000 });
    const grep = chat.lastCard("grep");
    expect(await grep.getByLabel("Status").innerText()).toBe("ok");
    expect(await grep.getByRole("note", { name: "Hidden paths" }).innerText()).toBe(HIDDEN_NOTE);
    // Opened, its matches are the visible file's only, and the note is said once.
    await grep.getByRole("button", { expanded: false }).click();
    expect(await grep.getByRole("list", { name: "Matches" }).innerText()).toBe("notes.txt:1: SAFE notes");
    expect((await grep.innerText()).split("hidden path")).toHaveLength(2);
    await grep.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-result-notes-hidden-chat.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });

  it("says it in the workbench as a note, not as a field of the data", async () => {
    await goTo(page, "Tools", "Run a tool");
    await runTool(page, "grep", { pattern: "SAFE" });
    const result = page.getByRole("region", { name: "Result" });
    const hidden = result.getByRole("note", { name: "Hidden paths" });
    await hidden.waitFor({ timeout: 10_000 });
    expect(await hidden.innerText()).toBe(HIDDEN_NOTE);
    expect(await result.getByText(/^files$/).count()).toBe(1);
    expect(await result.getByLabel("Fields", { exact: true }).count()).toBe(0);
    expect((await result.innerText()).split("hidden path")).toHaveLength(2);
    await result.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "ui-result-notes-hidden-workbench.png") });
    expect(world().problems, world().problems.join("\n")).toEqual([]);
  });
});
