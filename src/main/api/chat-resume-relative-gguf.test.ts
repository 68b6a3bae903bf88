// The app's chat path continuing a session an older Lathe recorded with a relative gguf: path
// (`lathe run --model gguf:models/tiny.gguf` in the project folder). The app starts in a folder
// of its own, never the session's: the path is read in the session's folder, and the run says so
// in its events (the CLI prints the same notice; see test/resume-relative-gguf.test.ts).
import { copyFile, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import type { RunEvent } from "../../shared/run-event-schema.ts";
import type { ApiResult } from "../../shared/api-contract.ts";
import { Engine } from "../engine/index.ts";
import { writeOldSession } from "../../../test/support/old-gguf-session.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const MODEL = path.join(REPO, "..", "shared", "models", "llama-2-tiny-random.gguf");
const present = existsSync(MODEL);
if (!present) console.log(`skipping the app's resume of a relative gguf: session: ${MODEL} is not there`);

const SESSION = "s-old-app-1";

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
let connection: UiConnection | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-app-old-gguf-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "home");
  await mkdir(path.join(root, "models"), { recursive: true });
  await mkdir(latheHome, { recursive: true });
  engine = await Engine.create({ root, latheHome, extensions: false });
  host = new EngineHost({ engine, watchIntervalMs: 0, runGraceMs: 300 });
});
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  await host.close();
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** A session row as a Lathe from before gguf: paths were kept absolute wrote it. */
function oldSession(model: string): void {
  writeOldSession(latheHome, SESSION, root, model);
}

function connect() {
  const frames: PushFrame[] = [];
  connection = new UiConnection({
    host,
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
  const router = connection.router;
  const events = (): RunEvent[] =>
    frames.flatMap((f) => (f.event === "run.event" ? [(f.payload as { event: RunEvent }).event] : []));
  return {
    dispatch: (channel: "chat.send" | "chat.abort", request: unknown) => router.dispatch(channel, request),
    events,
  };
}

function data<T>(answer: ApiResult<unknown>): T {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data as T;
}

describe.skipIf(!present)("the app continuing a session that recorded a relative gguf: path", () => {
  it("reads it in the session's folder, from the app's own folder, and the run says so", async () => {
    await copyFile(MODEL, path.join(root, "models", "tiny.gguf"));
    oldSession("gguf:models/tiny.gguf");
    expect(process.cwd()).not.toBe(root); // the app's folder is not the session's
    const ui = connect();
    const started = data<{ runId: string }>(
      await ui.dispatch("chat.send", { prompt: "Go on", sessionId: SESSION }),
    );
    const file = path.join(root, "models", "tiny.gguf");
    const notice = `Session ${SESSION} recorded its model as gguf:models/tiny.gguf, a path relative to the folder it ran in: it is read in the session's folder, as gguf:${file}. To run another file, pick it in the model picker.`;
    await expect.poll(() => ui.events().some((e) => e.type === "notice"), { timeout: 20_000 }).toBe(true);
    expect(ui.events().find((e) => e.type === "start")).toMatchObject({
      model: `gguf:${file}`,
      resumed: true,
    });
    expect(ui.events().filter((e) => e.type === "notice")[0]).toEqual({ type: "notice", message: notice });
    data(await ui.dispatch("chat.abort", { runId: started.runId }));
    await expect.poll(() => ui.events().some((e) => e.type === "finish"), { timeout: 20_000 }).toBe(true);
  }, 40_000);

  it("refuses the send, saying how to name the model, when the session's folder has no such file", async () => {
    oldSession("gguf:models/tiny.gguf");
    const ui = connect();
    const answer = await ui.dispatch("chat.send", { prompt: "Go on", sessionId: SESSION });
    expect(answer).toMatchObject({
      ok: false,
      error: {
        message: expect.stringContaining(
          `Session ${SESSION} recorded its model as gguf:models/tiny.gguf, a path relative to the folder it ran in, which was not recorded, and there is no models/tiny.gguf in the session's folder ${root}.`,
        ),
      },
    });
  });
});
