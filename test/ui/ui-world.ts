// The world a UI suite runs in: a temp folder holding the project and $LATHE_HOME, optionally the
// loopback OpenAI-compatible fixture server, `lathe serve` on the project, and a watched Chromium
// page on it. One `close()` takes all of it down again, in the reverse order.
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import {
  startOpenAICompatibleServer,
  type ChatRequest,
  type FixtureOptions,
  type FixtureServer,
} from "../fixtures/openai-compatible-server.ts";
import {
  launchChromium,
  missingPrerequisite,
  openWatchedPage,
  startLatheServe,
  stopLatheServe,
} from "./serve-fixture.ts";

/** What a suite's `prepare` may write into before `lathe serve` starts. */
export interface UiFolders {
  /** The temp folder holding everything below (removed by `close()`). */
  base: string;
  /** The project folder `lathe serve --root` opens. */
  root: string;
  /** $LATHE_HOME of the served process (created empty). */
  home: string;
  /** The fixture model server, when the suite gave `replies`. */
  fixture: FixtureServer | undefined;
}

export interface UiWorldOptions {
  /** Names the temp folder: `lathe-ui-<prefix>-XXXXXX`. */
  prefix: string;
  /** The project folder's name under the temp folder (default `project`). */
  rootName?: string;
  /** The fixture model's script: when given, the OpenAI-compatible fixture server is started. */
  replies?: FixtureOptions["replies"];
  /** More of that server's options: the models it lists (default `fixture-model`), their fields. */
  fixture?: Omit<FixtureOptions, "replies">;
  /** Writes the project's files and $LATHE_HOME's settings before `lathe serve` starts. */
  prepare?: (folders: UiFolders) => Promise<void>;
  /** Extra environment of `lathe serve`, or a function of the folders that returns it (to point HOME into them). */
  env?: NodeJS.ProcessEnv | ((folders: UiFolders) => NodeJS.ProcessEnv);
  /** The page's size (default: openWatchedPage's). */
  viewport?: { width: number; height: number };
  /** A browser to open the page in (the world then leaves it open); default: a Chromium of its own. */
  browser?: Browser;
  /** Called with the page before it first loads the app (to listen to its traffic). */
  onPage?: (page: Page) => void;
  /** Load the app in the page (default true); false leaves that to the suite, at `url`. */
  goto?: boolean;
  /** After loading the app, wait until the chat's prompt box is there (default false). */
  waitForPrompt?: boolean;
}

export interface UiWorld extends UiFolders {
  browser: Browser;
  page: Page;
  /** The app's URL, with its token, as `lathe serve` printed it. */
  url: string;
  child: ChildProcess;
  /** Script errors and console errors of the page, collected as they happen. */
  problems: string[];
  /** Close the page's browser (when the world launched it), stop `lathe serve` and the fixture, remove the temp folder. */
  close(): Promise<void>;
}

/** Build a UI suite's world (fails with what is missing when Chromium or the build is not there). */
export async function startUiWorld(options: UiWorldOptions): Promise<UiWorld> {
  const missing = missingPrerequisite();
  if (missing) throw new Error(missing);
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), `lathe-ui-${options.prefix}-`)));
  const root = path.join(base, options.rootName ?? "project");
  const home = path.join(base, "lathe-home");
  let fixture: FixtureServer | undefined;
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;
  const ownsBrowser = options.browser === undefined;
  const close = async (): Promise<void> => {
    if (ownsBrowser) await browser?.close();
    await stopLatheServe(child);
    await fixture?.close();
    await rm(base, { recursive: true, force: true });
  };
  try {
    await mkdir(root, { recursive: true });
    await mkdir(home, { recursive: true });
    if (options.replies !== undefined)
      fixture = await startOpenAICompatibleServer({
        models: ["fixture-model"],
        ...options.fixture,
        replies: options.replies,
      });
    await options.prepare?.({ base, root, home, fixture });
    const env = typeof options.env === "function" ? options.env({ base, root, home, fixture }) : options.env;
    const served = await startLatheServe(root, home, env);
    child = served.child;
    browser = options.browser ?? (await launchChromium());
    const problems: string[] = [];
    const page = await openWatchedPage(browser, problems, options.viewport);
    options.onPage?.(page);
    if (options.goto !== false) await page.goto(served.url);
    if (options.waitForPrompt) await prompt(page).waitFor({ timeout: 10_000 });
    return { base, root, home, fixture, browser, page, url: served.url, child, problems, close };
  } catch (error) {
    await close();
    throw error;
  }
}

const prompt = (page: Page): Locator => page.getByRole("textbox", { name: "Prompt" });

/**
 * The chat as a person drives it, on the page `page()` returns when called (so a suite can make
 * these before its world exists).
 */
export function chatHelpers(page: () => Page) {
  const conversation = () => page().getByRole("list", { name: "Conversation" });
  /** Every card of `tool`'s calls (a locator that must match one card to be read). */
  const card = (tool: string) => conversation().getByRole("article", { name: `${tool} call` });
  const approval = (tool: string) => page().getByRole("dialog", { name: `Allow ${tool} to run?` });
  return {
    conversation,
    card,
    /** The newest card of `tool`'s calls. */
    lastCard: (tool: string) => card(tool).last(),
    prompt: () => prompt(page()),
    approval,
    /** What the newest card of `tool` says in its status. */
    status: (tool: string) => card(tool).last().getByLabel("Status").innerText(),
    /** Type a prompt and press Enter. */
    async send(text: string): Promise<void> {
      await prompt(page()).fill(text);
      await prompt(page()).press("Enter");
    },
    /** Answer the approval dialog for `tool` with a key, as a person at the keyboard would. */
    async answerWithKey(tool: string, key: "y" | "a" | "n"): Promise<void> {
      await approval(tool).waitFor({ timeout: 10_000 });
      await page().keyboard.press(key);
      await approval(tool).waitFor({ state: "hidden" });
    },
    /** Wait for the approval dialog for `tool` and press its Allow once. */
    async allowOnce(tool: string): Promise<void> {
      await approval(tool).waitFor({ timeout: 10_000 });
      await approval(tool).getByRole("button", { name: "Allow once" }).click();
      await approval(tool).waitFor({ state: "hidden" });
    },
    /** Wait until the turn is over: the Send button is back. */
    async turnEnded(): Promise<void> {
      await page().getByRole("button", { name: "Send" }).waitFor();
    },
  };
}

/** The chat's helpers for one page (see chatHelpers). */
export type ChatHelpers = ReturnType<typeof chatHelpers>;

/**
 * Where a fixture model's script stands: the prompt of the turn (the last user message) and the
 * step, counted as the messages of `role` since it (tool results, or the model's own answers).
 */
export function scriptTurn(
  request: ChatRequest,
  role: "tool" | "assistant",
): { prompt: string; step: number } {
  const lastUser = request.messages.findLastIndex((m) => m.role === "user");
  return {
    prompt: String(request.messages[lastUser]?.content ?? ""),
    step: request.messages.slice(lastUser).filter((m) => m.role === role).length,
  };
}
