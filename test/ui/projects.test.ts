// Switching projects as a person does it: `lathe serve` on one folder, the page in Debian's
// Chromium; another folder opened by typing its path (a missing path and a file are refused with
// the reason), the trust dialog on its first open showing what it asks for (rules, hooks, a
// command, an MCP server's command line, a plugin with its requirements), the recent projects to
// come back, each folder with its own sessions. Needs `npm run build` first.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useChatWorld } from "../support/ui-chat-world.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";

const SHOTS = path.join(REPO, "test-results");
const runUi = runsUi("projects");

let base: string;
let first: string;
let second: string;
let home: string;
let page: Page;
let problems: string[];

/** A folder whose settings and plugin ask for things a person must agree to. */
async function writeAskingProject(root: string): Promise<void> {
  await mkdir(path.join(root, ".lathe", "tools", "line_count"), { recursive: true });
  await writeFile(path.join(root, "NOTES.md"), "# second project\n");
  await writeFile(
    path.join(root, ".lathe", "settings.json"),
    JSON.stringify({
      permissions: [
        { permission: "write", pattern: "src/**", action: "allow" },
        { permission: "fs.read", pattern: "**/.env", action: "deny" },
      ],
      hooks: [{ command: "./scripts/guard.sh", tools: ["bash"] }],
      shell: [{ cmd: "cargo" }],
      // A server that exits at once: trusting tries to list its tools, offline, and fails quickly.
      mcpServers: { notes: { command: process.execPath, args: ["-e", "process.exit(3)"] } },
      approvals: { mode: "allowlist" },
    }),
  );
  const plugin = path.join(root, ".lathe", "tools", "line_count");
  await writeFile(
    path.join(plugin, "tool.yaml"),
    [
      "name: line_count",
      "version: 1.0.0",
      "description: Count the lines of a file.",
      "input_schema:",
      "  type: object",
      "  properties: { path: { type: string } }",
      "requires:",
      "  fs: { read: ['{workspace}/**'] }",
      "  net: { hosts: [stats.example.com] }",
      "readOnly: true",
      "",
    ].join("\n"),
  );
  await writeFile(path.join(plugin, "TOOL.md"), "Counts lines.\n");
  await writeFile(
    path.join(plugin, "index.js"),
    "export async function execute() { return { lines: 1 }; }\n",
  );
}

const header = () => page.getByRole("banner");
/** The folder the header shows: its name, beside it the folder it sits in (the whole path is the tooltip). */
async function shownFolder(): Promise<string> {
  const button = header().getByRole("button", { name: /^Project / });
  const [name, parent, tooltip] = await Promise.all([
    button.locator(".project-name").innerText(),
    button.locator(".project-path").innerText(),
    button.getAttribute("title"),
  ]);
  const shown = path.join(parent, name);
  return tooltip === shown ? shown : `${shown} (tooltip: ${tooltip})`;
}
const dialog = () => page.getByRole("dialog", { name: "Open a folder" });
const trustDialog = () => page.getByRole("dialog", { name: "Trust this folder?" });
const pathField = () => dialog().getByRole("textbox", { name: "Folder path" });
const sessions = () => page.getByRole("list", { name: "Session list" });

async function openDialog(): Promise<void> {
  await header()
    .getByRole("button", { name: /^Project / })
    .click();
  await dialog().waitFor();
}

useChatWorld(
  runUi,
  {
    prefix: "projects",
    rootName: "first",
    replies: [{ text: "Noted." }],
    prepare: async ({ base, root }) => {
      await writeFile(path.join(root, "README.md"), "# first project\n");
      await writeAskingProject(path.join(base, "second"));
    },
    viewport: { width: 1280, height: 900 },
  },
  (started) => {
    ({ base, root: first, home, page, problems } = started);
    second = path.join(base, "second");
  },
);

describe.skipIf(!runUi)("opening projects through lathe serve", () => {
  it("shows the folder in the header; a chat there is one of its sessions", async () => {
    await expect.poll(shownFolder, { timeout: 10_000 }).toBe(first);
    const prompt = page.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("Remember the first project");
    await prompt.press("Enter");
    await sessions()
      .getByRole("listitem", { name: "Remember the first project" })
      .waitFor({ timeout: 10_000 });
  });

  it.each([
    [
      "a folder that does not exist",
      () => path.join(base, "missing"),
      /There is no folder .*missing\. Check the path/,
    ],
    [
      "a file",
      () => path.join(first, "README.md"),
      /README\.md is a file, not a folder\. Open the folder that holds it/,
    ],
    ["a relative path", () => "first", /is not an absolute path/],
  ])("refuses to open %s, says why, and stays", async (_what, typed, message) => {
    await openDialog();
    await pathField().fill(typed());
    await dialog().getByRole("button", { name: "Open", exact: true }).click();
    await expect.poll(() => dialog().getByRole("alert").innerText()).toMatch(message);
    expect(await pathField().getAttribute("aria-invalid")).toBe("true");
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "hidden" });
    expect(await shownFolder()).toBe(first);
  });

  it("opens another folder by path; the trust dialog shows what it asks for on first open", async () => {
    await openDialog();
    await pathField().fill(second);
    await page.screenshot({ path: path.join(SHOTS, "ui-projects-open.png") });
    await pathField().press("Enter");
    await dialog().waitFor({ state: "hidden" });
    await expect.poll(shownFolder).toBe(second);
    expect(await header().innerText()).toContain("not trusted");

    const trust = trustDialog();
    await trust.waitFor({ timeout: 10_000 });
    const text = await trust.innerText();
    expect(text).toContain(second);
    expect(text).toMatch(/allow write "src\/\*\*"/);
    expect(text).toMatch(/Its deny rule applies either\s+way/);
    expect(text).toContain("./scripts/guard.sh");
    expect(text).toContain("cargo");
    const server = trust.getByRole("listitem", { name: "MCP server notes" });
    expect(await server.getByLabel("Command line").innerText()).toMatch(
      /^cd .*second && .* -e 'process\.exit\(3\)'$/,
    );
    expect(await server.innerText()).toMatch(
      /it starts a program on this machine once the folder is trusted/,
    );
    expect(text).toContain("allowlist");
    const plugin = trust.getByRole("listitem", { name: "Plugin line_count" });
    expect(await plugin.innerText()).toMatch(/new/);
    expect(await plugin.getByRole("list", { name: "Requires" }).innerText()).toMatch(
      /reads \{workspace\}\/\*\*[\s\S]*reaches stats\.example\.com/,
    );
    await page.screenshot({ path: path.join(SHOTS, "ui-projects-trust.png") });

    // Not now: the folder stays untrusted and the dialog does not come back on its own.
    await trust.getByRole("button", { name: "Not now" }).click();
    await trust.waitFor({ state: "hidden" });
    // This folder has its own sessions: none yet; the chat starts afresh.
    await page.getByText("No sessions yet.").waitFor();
    await page.getByRole("heading", { name: "What should the agent do?" }).waitFor();
    // The tools follow the folder (its plugin waits for trust, so it is not there).
    await goTo(page, "Tools", "Catalog");
    expect(await page.getByRole("table", { name: "All tools" }).innerText()).not.toContain("line_count");
    await goTo(page, "Chat");
  });

  it("lists recent projects and switches back; each folder keeps its own sessions", async () => {
    await openDialog();
    const recent = dialog().getByRole("list", { name: "Recent projects" });
    const items = await recent.getByRole("button").allInnerTexts();
    expect(items[0]).toContain(second);
    expect(items[0]).toContain("open now");
    expect(items[1]).toContain(first);
    await page.screenshot({ path: path.join(SHOTS, "ui-projects-recent.png") });
    await recent
      .getByRole("button", { name: new RegExp(`first\\s*${first.replaceAll("/", "\\/")}`) })
      .click();
    await dialog().waitFor({ state: "hidden" });
    await expect.poll(shownFolder).toBe(first);
    await sessions()
      .getByRole("listitem", { name: "Remember the first project" })
      .waitFor({ timeout: 10_000 });
    const saved = JSON.parse(await readFile(path.join(home, "recent-projects.json"), "utf8")) as {
      projects: Array<{ root: string }>;
    };
    expect(saved.projects.map((p) => p.root)).toEqual([first, second]);
  });

  it("trusts a folder from its dialog: its plugin loads and the header says trusted", async () => {
    await openDialog();
    await dialog()
      .getByRole("list", { name: "Recent projects" })
      .getByRole("button", { name: /second/ })
      .click();
    await expect.poll(shownFolder).toBe(second);
    // Closed with Not now before, so it waits for the header's badge.
    await header().getByRole("button", { name: "not trusted" }).click();
    const trust = trustDialog();
    await trust.waitFor();
    await trust.getByRole("button", { name: "Trust this folder" }).click();
    await trust.waitFor({ state: "hidden", timeout: 20_000 });
    await expect.poll(() => header().innerText(), { timeout: 10_000 }).toMatch(/\btrusted\b/);
    expect(await header().innerText()).not.toContain("not trusted");
    await goTo(page, "Tools", "Catalog");
    await expect
      .poll(() => page.getByRole("table", { name: "All tools" }).innerText(), { timeout: 10_000 })
      .toContain("line_count");
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
