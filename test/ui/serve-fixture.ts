// Shared by the UI suites: `lathe serve` started the way a person starts it, and Debian's
// Chromium launched headless with the switches that keep it off the network.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

export const REPO = path.resolve(import.meta.dirname, "../..");
export const CHROMIUM = "/usr/bin/chromium";
export const RENDERER_INDEX = path.join(REPO, "out/renderer/index.html");
export const haveChromium = existsSync(CHROMIUM);

/** Why the UI suites cannot run here, or undefined when they can. */
export function missingPrerequisite(): string | undefined {
  if (!haveChromium) return `${CHROMIUM} is missing; CI must install it (apt-get install -y chromium).`;
  if (!existsSync(RENDERER_INDEX))
    return `${RENDERER_INDEX} is missing: run \`npm run build\` before the UI test.`;
  return undefined;
}

/** Start `lathe serve` on a folder (with extra environment variables) and resolve with the URL it prints. */
export function startLatheServe(
  root: string,
  latheHome: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO, "bin/lathe.mjs"), "serve", "--root", root, "--port", "0"],
      {
        cwd: REPO,
        env: { ...process.env, ...env, LATHE_HOME: latheHome },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(
      () => reject(new Error(`lathe serve printed no URL within 15 s.\n${stdout}${stderr}`)),
      15_000,
    );
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /^lathe serve: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)$/m.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`lathe serve exited with ${code} before printing its URL.\n${stdout}${stderr}`));
    });
  });
}

export function stopLatheServe(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** A page of the browser whose script errors and console errors are collected into `problems`. */
export async function openWatchedPage(
  browser: Browser,
  problems: string[],
  viewport: { width: number; height: number } = { width: 1280, height: 860 },
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  return page;
}

/** Another tab on the served app, opened on its empty session list (for suites about several tabs). */
export async function openSecondTab(
  started: { browser: Browser; problems: string[]; url: string },
  viewport: { width: number; height: number } = { width: 1100, height: 800 },
): Promise<Page> {
  const page = await openWatchedPage(started.browser, started.problems, viewport);
  await page.goto(started.url);
  await page.getByText("No sessions yet.").waitFor({ timeout: 10_000 });
  return page;
}

/**
 * Whether a UI suite runs: with Chromium installed, or always in CI (where a missing browser must
 * fail, not skip). When it is skipped the reason is printed.
 */
export function runsUi(suite: string): boolean {
  const run = haveChromium || Boolean(process.env["CI"]);
  if (!run)
    console.warn(
      `UI ${suite} test skipped: ${CHROMIUM} is missing. Install it with \`apt-get install -y chromium\`.`,
    );
  return run;
}

/** Show a view from the sidebar's nav, and one of its sections (a tab) when given. */
export async function goTo(page: Page, view: string, section?: string): Promise<void> {
  // In a narrow window the sidebar is a drawer behind the menu button.
  const menu = page.getByRole("button", { name: "Menu" });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
  await page
    .getByRole("navigation", { name: "Views" })
    .getByRole("button", { name: view, exact: true })
    .click();
  if (section !== undefined) await page.getByRole("tab", { name: section, exact: true }).click();
}

/**
 * Run a tool from Tools → Run a tool as a person does: pick it in the list, type its arguments
 * (as indented JSON) and press Run; the call may then wait for the approval dialog.
 */
export async function runTool(page: Page, toolId: string, args: unknown): Promise<void> {
  await page
    .getByRole("list", { name: "Tools" })
    .getByRole("button", { name: new RegExp(`^${toolId}\\b`) })
    .click();
  await page.getByLabel("Arguments (JSON)").fill(JSON.stringify(args, null, 2));
  await page.getByRole("button", { name: `Run ${toolId}` }).click();
}

/**
 * `providers` settings for a suite: the openai-compatible provider at a fixture server, and every
 * local server preset moved to a closed loopback port, so the model picker never asks whatever
 * listens on Ollama's, LM Studio's, llama.cpp's or vLLM's usual port.
 */
export async function fixtureProviders(baseURL?: string): Promise<Record<string, unknown>> {
  const { closedPort, localProvidersAt } = await import("../support/closed-port.ts");
  return {
    ...localProvidersAt(await closedPort()),
    ...(baseURL !== undefined ? { "openai-compatible": { baseURL } } : {}),
  };
}

/**
 * Point the openai-compatible provider at a fixture server (with more of its settings from
 * `provider`, e.g. `{ contextTokens: 8_000 }`) and make its model the default; `extra` is more of
 * the settings beside them.
 */
export async function useFixtureModel(
  latheHome: string,
  baseURL: string,
  extra: Record<string, unknown> = {},
  provider: Record<string, unknown> = {},
): Promise<void> {
  const { writeFile, mkdir } = await import("node:fs/promises");
  await mkdir(latheHome, { recursive: true });
  await writeFile(
    path.join(latheHome, "settings.json"),
    JSON.stringify({
      providers: { ...(await fixtureProviders(baseURL)), "openai-compatible": { baseURL, ...provider } },
      defaultModel: "openai-compatible:fixture-model",
      ...extra,
    }),
  );
}

/** Pick a model in the chat's model picker, as a person does: open it, click the model. */
export async function pickModel(page: Page, id: string): Promise<void> {
  await page.getByRole("button", { name: /^Model: / }).click();
  const panel = page.getByRole("dialog", { name: "Choose a model" });
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  await panel.getByRole("button", { name: new RegExp(`^${escaped}(,|$)`) }).click();
  await panel.waitFor({ state: "hidden" });
}
