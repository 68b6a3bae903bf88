// The opening most chat UI suites share: the fixture model scripted for one prompt, made the
// default model of the served home (with any other settings the suite needs), and the page
// opened on the chat's prompt. Each suite wrote these ~25 lines out again.
import type { ChatRequest, FixtureOptions, FixtureReply } from "../fixtures/openai-compatible-server.ts";
import { useFixtureModel } from "../ui/serve-fixture.ts";
import { useUiWorld } from "../ui/ui-suite.ts";
import {
  chatHelpers,
  scriptTurn,
  type ChatHelpers,
  type UiFolders,
  type UiWorld,
  type UiWorldOptions,
} from "../ui/ui-world.ts";

/**
 * The fixture model's answers to `prompt`: `steps[n]` at the turn's step n (counted as the
 * model's own answers since the prompt), told to `onStep` first; "Nothing to do." to any other
 * prompt. A step past the script fails the test with what the model was asked.
 */
export function scriptFor(
  prompt: string,
  steps: readonly FixtureReply[],
  onStep?: (step: number) => void,
): (request: ChatRequest) => FixtureReply {
  return (request) => {
    const turn = scriptTurn(request, "assistant");
    if (turn.prompt !== prompt) return { text: "Nothing to do." };
    onStep?.(turn.step);
    const reply = steps[turn.step];
    if (!reply) throw new Error(`The script for "${prompt}" has no step ${turn.step}.`);
    return reply;
  };
}

export interface ChatWorldOptions extends Omit<UiWorldOptions, "replies" | "waitForPrompt"> {
  /** The fixture model's script (see scriptFor). */
  replies: NonNullable<FixtureOptions["replies"]>;
  /** More of $LATHE_HOME's settings beside the fixture model, e.g. `{ approvals: { mode: "yolo" } }`. */
  settings?: Record<string, unknown>;
  /** More of the fixture model's provider settings beside its URL, e.g. `{ contextTokens: 8_000 }`. */
  provider?: Record<string, unknown>;
  /**
   * Wait for the chat's prompt box once the app is loaded (default true); false for a suite whose
   * first test is what the page opens on, so that test rather than the set-up says what is wrong.
   */
  waitForPrompt?: boolean;
}

/**
 * The options of a chat world, for a suite that starts its worlds itself (in a shared Chromium,
 * see useSharedChromium): the fixture model as the default model, written with `settings` before
 * `prepare` runs, and the page on the chat's prompt.
 */
export function chatWorldOptions({
  settings,
  provider,
  prepare,
  waitForPrompt = true,
  ...options
}: ChatWorldOptions): UiWorldOptions {
  return {
    ...options,
    prepare: async (folders: UiFolders) => {
      if (!folders.fixture) throw new Error("The fixture model server did not start.");
      await useFixtureModel(folders.home, folders.fixture.baseURL, settings, provider);
      await prepare?.(folders);
    },
    waitForPrompt,
  };
}

/**
 * A chat suite's world, read in a test as `world()` (its page, project folder, the page's
 * problems), with `chat`, the chat's helpers on its page, made before the world is started.
 */
export interface ChatWorld {
  (): UiWorld;
  readonly chat: ChatHelpers;
}

/**
 * A UI suite's world with the fixture model as the default model, its page on the chat's prompt
 * (see useUiWorld and chatWorldOptions): `prepare` runs after the settings are written, `ready`
 * once the prompt is there (or the app is loaded, with `waitForPrompt: false`).
 */
export function useChatWorld(
  run: boolean,
  options: ChatWorldOptions,
  ready?: (world: UiWorld) => void | Promise<void>,
): ChatWorld {
  const world = useUiWorld(run, chatWorldOptions(options), ready);
  return Object.assign(() => world(), { chat: chatHelpers(() => world().page) });
}
