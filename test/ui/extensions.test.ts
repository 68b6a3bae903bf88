// Plugins and MCP servers as a person manages them: `lathe serve` on a project with its own
// plugins (one named like a bundled plugin, one broken), the page in Debian's Chromium. Trust
// the folder, read the Tools panel (origins, shadowing, what is disabled and why), add
// server-everything through the form after seeing its exact command, watch it connect, read its
// log, restart it, and turn a plugin off. Needs `npm run build` first.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runLathe } from "../support/lathe-cli.ts";
import { REPO, goTo, runsUi } from "./serve-fixture.ts";
import { useUiWorld } from "./ui-suite.ts";

const TOOLS_SHOT = path.join(REPO, "test-results/ui-tools-panel.png");
const MCP_SHOT = path.join(REPO, "test-results/ui-mcp.png");
const CONFIRM_SHOT = path.join(REPO, "test-results/ui-mcp-confirm.png");
const PLUGINS_SHOT = path.join(REPO, "test-results/ui-plugins.png");
const EVERYTHING = path.join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const runUi = runsUi("extensions");

let root: string;
let home: string;
let page: Page;
let problems: string[];

async function writeProjectPlugins(): Promise<void> {
  const tools = path.join(root, ".lathe", "tools");
  // A project plugin with the name of a bundled one: once trusted it is bound to `word_count`.
  const mine = path.join(tools, "word_count");
  await mkdir(mine, { recursive: true });
  await writeFile(
    path.join(mine, "tool.yaml"),
    [
      "name: word_count",
      "version: 2.0.0",
      "description: The project's own word count, which always answers 42.",
      "input_schema:",
      "  type: object",
      "  properties: {}",
      "readOnly: true",
      "gated: false",
      "",
    ].join("\n"),
  );
  await writeFile(path.join(mine, "TOOL.md"), "Use it to count words the project's way.\n");
  await writeFile(
    path.join(mine, "index.js"),
    "export async function execute() {\n  return { words: 42 };\n}\n",
  );
  // A plugin whose tool.yaml does not parse.
  const broken = path.join(tools, "broken");
  await mkdir(broken, { recursive: true });
  await writeFile(path.join(broken, "tool.yaml"), "name: broken\n  version: [1\n");
  await writeFile(path.join(broken, "index.js"), "export async function execute() {}\n");
}

/** A plugin of the user's that logs on every call, to read in the Plugins panel's log view. */
async function writeGlobalPlugin(): Promise<void> {
  const dir = path.join(home, "tools", "chatter");
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "tool.yaml"),
    "name: chatter\nversion: 1.0.0\ndescription: Says hello in its log.\ninput_schema:\n  type: object\n  properties: { n: { type: integer } }\nreadOnly: true\ngated: false\ndefer: true\n",
  );
  await writeFile(
    path.join(dir, "index.js"),
    "export async function execute(args, runtime) {\n  runtime.log(`chatter call ${args.n}`);\n  return args.n;\n}\n",
  );
}

/** The views the extensions live in: Extensions → Plugins / MCP servers, Tools → Catalog / Run a tool. */
const PLACES: Record<string, [string, string]> = {
  Plugins: ["Extensions", "Plugins"],
  "MCP servers": ["Extensions", "MCP servers"],
  Tools: ["Tools", "Catalog"],
  Workbench: ["Tools", "Run a tool"],
};
const tab = (name: string) => ({ click: () => goTo(page, ...(PLACES[name] as [string, string])) });
const pluginRow = (name: string, layer: string) =>
  page.getByRole("table", { name: "Plugins" }).getByRole("row", { name: `${name} (${layer})`, exact: true });
const toolRow = (id: string) =>
  page.getByRole("table", { name: "All tools" }).getByRole("row", { name: id, exact: true });
const server = (name: string) =>
  page.getByRole("list", { name: "MCP servers" }).getByRole("listitem", { name, exact: true });

async function textOf(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, " ");
}

async function userSettings(): Promise<Record<string, unknown>> {
  const file = path.join(home, "settings.json");
  return existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>) : {};
}

useUiWorld(
  runUi,
  {
    prefix: "extensions",
    prepare: async (folders) => {
      if (!existsSync(EVERYTHING)) throw new Error(`${EVERYTHING} is missing: run npm install.`);
      ({ root, home } = folders);
      await writeFile(path.join(root, "README.md"), "# fixture\n");
      await writeProjectPlugins();
      await writeGlobalPlugin();
    },
    viewport: { width: 1280, height: 900 },
  },
  async (started) => {
    ({ page, problems } = started);
    await mkdir(path.dirname(TOOLS_SHOT), { recursive: true });
  },
);

describe.skipIf(!runUi)("plugins and MCP servers in the UI through lathe serve", () => {
  it("lists the project's plugins as waiting for trust, and loads them once the folder is trusted", async () => {
    // The folder brings plugins, so its first open asks about trust; not now.
    const trust = page.getByRole("dialog", { name: "Trust this folder?" });
    await trust.waitFor({ timeout: 10_000 });
    expect(await trust.getByRole("region", { name: "Plugins" }).innerText()).toMatch(
      /broken[\s\S]*word_count/,
    );
    await trust.getByRole("button", { name: "Not now" }).click();
    await trust.waitFor({ state: "hidden" });
    await tab("Plugins").click();
    const waiting = page.getByRole("note", { name: "Project plugins wait for trust" });
    await waiting.waitFor({ timeout: 10_000 });
    expect(await textOf(waiting)).toMatch(
      /not trusted, so its 2 plugins \(broken, word_count\) are not loaded/,
    );
    expect(await textOf(pluginRow("word_count", "project"))).toContain("folder not trusted");
    expect(await textOf(pluginRow("word_count", "bundled"))).toMatch(/1\.0\.0 loaded/);

    await waiting.getByRole("button", { name: "Trust this folder" }).click();
    await expect
      .poll(() => textOf(pluginRow("word_count", "project")), { timeout: 15_000 })
      .toMatch(/2\.0\.0 loaded/);
    await waiting.waitFor({ state: "detached" });
    expect(await textOf(pluginRow("broken", "project"))).toMatch(/disabled .*tool\.yaml/);
    expect(await page.getByRole("banner").innerText()).not.toContain("not trusted");
  });

  it("shows every tool's origin, what shadows what, and each disabled plugin with its reason and fix", async () => {
    await tab("Tools").click();
    const mine = toolRow("word_count");
    await mine.waitFor({ timeout: 10_000 });
    const text = await textOf(mine);
    expect(text).toContain("project · plugin · word_count");
    expect(text).toMatch(/project · plugin · word_count\s+shadows bundled plugin word_count/);
    for (const id of ["git_recent", "ollama_models"]) {
      expect(await textOf(toolRow(id))).toContain(`bundled · plugin · ${id}`);
    }
    expect(await textOf(toolRow("read"))).toMatch(/\bbuiltin\b(?! · builtin).*loaded read-only/);
    expect(await textOf(toolRow("write"))).toMatch(/mutating gated/);
    // A deferred tool says why: its settings ask for it (chatter's tool.yaml), or to keep the
    // definitions small.
    expect(await textOf(toolRow("chatter"))).toMatch(/deferred as its settings ask/);
    const deferredRows = page
      .getByRole("table", { name: "All tools" })
      .getByRole("row")
      .filter({ hasText: /\bdeferred\b/ });
    for (const row of await deferredRows.all()) {
      expect(await textOf(row)).toMatch(/deferred (as its settings ask|to save context)/);
    }

    const disabled = page.getByRole("list", { name: "Disabled tools, plugins and servers" });
    const broken = disabled.getByRole("listitem", { name: "broken" });
    const brokenText = await textOf(broken);
    expect(brokenText).toContain("project plugin broken");
    expect(brokenText).toMatch(/tool\.yaml.*line \d+, column \d+/);
    expect(brokenText).toMatch(/Fix: Fix the file named above/);
    await page.screenshot({ path: TOOLS_SHOT, fullPage: true });
  });

  it("adds server-everything through the form: the exact command first, then it connects and its tools appear", async () => {
    await tab("MCP servers").click();
    await page.getByText("No MCP servers are configured.").waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Add server" }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Name").fill("everything");
    await form.getByLabel("Command", { exact: true }).fill(process.execPath);
    await form.getByLabel("Arguments (one per line)").fill(`${EVERYTHING}\nstdio`);
    await form.getByRole("button", { name: "Review command" }).click();

    const shown = form.getByLabel("Command to run");
    await shown.waitFor({ timeout: 10_000 });
    expect(await shown.innerText()).toBe(`cd ${root} && ${process.execPath} ${EVERYTHING} stdio`);
    await page.screenshot({ path: CONFIRM_SHOT, fullPage: true });
    // Nothing is saved or started before the person confirms.
    expect(await userSettings()).not.toHaveProperty("mcpServers");
    expect(existsSync(path.join(home, "logs", "mcp-everything.log"))).toBe(false);

    await form.getByRole("button", { name: "Add and start" }).click();
    await form.waitFor({ state: "detached", timeout: 15_000 });
    const item = server("everything");
    await expect.poll(() => textOf(item), { timeout: 30_000 }).toMatch(/connected \d+ tools · pid \d+/);
    expect(await item.getByLabel("Command line").innerText()).toBe(
      `cd ${root} && ${process.execPath} ${EVERYTHING} stdio`,
    );
    expect(await userSettings()).toEqual({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
    });

    await tab("Tools").click();
    await expect
      .poll(async () => (await toolRow("echo").count()) > 0 && textOf(toolRow("echo")), { timeout: 15_000 })
      .toContain("global · mcp · everything");
  });

  it("shows the server's log, restarts it, and shows the restart in the log by itself", async () => {
    await tab("MCP servers").click();
    const item = server("everything");
    const pidOf = async () => /pid (\d+)/.exec(await textOf(item))?.[1];
    const before = await pidOf();
    expect(before).toBeDefined();

    await item.getByRole("button", { name: "Log" }).click();
    const log = page.getByRole("region", { name: "Log: everything" });
    const lines = log.getByLabel("Log lines");
    await expect.poll(() => lines.innerText(), { timeout: 10_000 }).toMatch(/\[lathe .*\]/);
    const firstLog = await lines.innerText();

    await item.getByRole("button", { name: "Restart" }).click();
    await expect
      .poll(async () => (await pidOf()) !== before && (await textOf(item)), { timeout: 30_000 })
      .toMatch(/connected/);
    // No click: the open log is read again while it is shown.
    await expect.poll(() => lines.innerText(), { timeout: 10_000 }).not.toBe(firstLog);
    expect((await lines.innerText()).split("\n").length).toBeGreaterThan(firstLog.split("\n").length);
    await page.screenshot({ path: MCP_SHOT, fullPage: true });
  });

  it("shows a broken plugin's fix on its row, and a plugin's log, following new lines while open", async () => {
    await tab("Plugins").click();
    expect(await textOf(pluginRow("broken", "project"))).toMatch(
      /Fix: .*; once the files are fixed, trust the project again \(`lathe trust`\) to approve them/,
    );
    // The same log file the CLI writes: a call from the shell shows up in the open view.
    expect((await runLathe(["call", "chatter", '{"n": 1}'], { home, cwd: root })).code).toBe(0);
    await pluginRow("chatter", "global").getByRole("button", { name: "Log of chatter (global)" }).click();
    const view = page.getByRole("region", { name: "Log: chatter (global)" });
    const lines = view.getByLabel("Plugin log lines");
    await expect.poll(() => lines.innerText(), { timeout: 10_000 }).toMatch(/\[global\] chatter call 1$/);
    expect(await view.innerText()).toContain(path.join(home, "logs", "plugins", "chatter.log"));
    expect((await runLathe(["call", "chatter", '{"n": 2}'], { home, cwd: root })).code).toBe(0);
    await expect
      .poll(() => lines.innerText(), { timeout: 10_000 })
      .toMatch(/chatter call 1\n.*chatter call 2$/);
    await view.getByRole("button", { name: "Close log" }).click();
    await view.waitFor({ state: "detached" });
  });

  it("turns a plugin off: it leaves the tools, shows as disabled by you with the fix, and is saved", async () => {
    await tab("Plugins").click();
    await pluginRow("git_recent", "bundled")
      .getByRole("button", { name: "Disable git_recent (bundled)" })
      .click();
    await expect
      .poll(() => textOf(pluginRow("git_recent", "bundled")), { timeout: 10_000 })
      .toContain("disabled by you");
    expect(await userSettings()).toMatchObject({ disabledPlugins: ["bundled:git_recent"] });
    await page.screenshot({ path: PLUGINS_SHOT, fullPage: true });

    await tab("Tools").click();
    await expect.poll(() => toolRow("git_recent").count(), { timeout: 10_000 }).toBe(0);
    const entry = page
      .getByRole("list", { name: "Disabled tools, plugins and servers" })
      .getByRole("listitem", { name: "git_recent" });
    expect(await textOf(entry)).toMatch(
      /You disabled the plugin git_recent \(bundled\).*Fix: Enable it under Plugins\./,
    );

    // The workbench's tool list follows as well.
    await tab("Workbench").click();
    const workbenchTools = page.getByRole("list", { name: "Tools" });
    await workbenchTools.getByRole("button", { name: /^word_count\b/ }).waitFor();
    expect(await workbenchTools.getByRole("button", { name: /^git_recent\b/ }).count()).toBe(0);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
