import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { channels, type ApiResult, type Channel } from "../../shared/api-contract.ts";
import { Engine, type Session } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

// The checkpoint channels through a UI connection's router over a real engine and real files:
// answers in the shapes the contract declares, conflicts reported for the UI to ask about, the
// person's choices applied, and bad requests refused with messages that say what was wrong.

let base: string;
let root: string;
let engine: Engine;
let host: EngineHost;
let connection: UiConnection;
let session: Session;
const failures: unknown[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-checkpoint-api-")));
  root = path.join(base, "workspace");
  await mkdir(root);
  engine = await Engine.create({ root, latheHome: path.join(base, "home"), extensions: false });
  host = new EngineHost({ engine });
  connection = new UiConnection({ host, send: () => undefined, onHandlerError: (_c, e) => failures.push(e) });
  session = await engine.openSession({ id: "chat-1", mode: "yolo" });
  failures.length = 0;
});

afterEach(async () => {
  await connection.close();
  await host.close();
  await engine.close();
  await rm(base, { recursive: true, force: true });
  expect(failures).toEqual([]);
});

/** Dispatch, fail on a refusal, and check the answer against the channel's response schema. */
async function ok<C extends Channel>(channel: C, request: unknown) {
  const answer = (await connection.router.dispatch(channel, request)) as ApiResult<unknown>;
  if (!answer.ok) throw new Error(`${channel} refused: ${answer.error.message}`);
  return channels[channel].response.parse(answer.data) as ReturnType<
    (typeof channels)[C]["response"]["parse"]
  >;
}

async function refusal(channel: Channel, request: unknown): Promise<string> {
  const answer = (await connection.router.dispatch(channel, request)) as ApiResult<unknown>;
  if (answer.ok) throw new Error(`${channel} answered ${JSON.stringify(answer.data)}`);
  return answer.error.message;
}

const text = (relative: string): Promise<string> => readFile(path.join(root, relative), "utf8");

/** A prompt as a chat run stores it, so checkpoints made after it belong to its run. */
function prompt(seq: number, runId: string, words: string): void {
  const store = engine.conversations();
  store.begin("chat-1", { agent: "default", model: "scripted:m" });
  store.write("chat-1", {
    messages: [{ seq, runId, role: "user", parts: [{ type: "text", text: words }] }],
    events: [],
  });
}

describe("checkpoint channels", () => {
  it("list, preview and restore a write, in the contract's shapes", async () => {
    await writeFile(path.join(root, "a.txt"), "one\n");
    await session.call("read", { path: "a.txt" });
    await session.call("write", { path: "a.txt", content: "two\n" }, { correlationId: "call-7" });
    const [listed] = await ok("checkpoints.list", { sessionId: "chat-1" });
    expect(listed).toMatchObject({
      kind: "tool",
      tool: "write",
      toolCallId: "call-7",
      restoredBy: null,
      files: [{ path: "a.txt", type: "file", change: "modified" }],
    });
    const id = listed!.id;
    expect(await ok("checkpoints.preview", { sessionId: "chat-1", checkpointId: id })).toEqual({
      checkpoints: [id],
      paths: [{ path: "a.txt", type: "file", action: "restore" }],
    });
    const outcome = await ok("checkpoints.restore", { sessionId: "chat-1", checkpointId: id });
    expect(outcome).toMatchObject({ applied: true, blocked: [], failed: [] });
    expect(await text("a.txt")).toBe("one\n");
  });

  it("lists a file a command turned into a folder as having become one", async () => {
    await writeFile(path.join(root, "f"), "notes\n");
    await session.call("bash", { command: "rm f && mkdir f && echo x > f/inner" });
    const [listed] = await ok("checkpoints.list", { sessionId: "chat-1" });
    expect(listed?.files).toEqual([
      { path: "f", type: "file", change: "modified", became: "folder" },
      { path: "f/inner", type: "file", change: "created" },
    ]);
  });

  it("reports a file the person changed as a conflict, and applies their per-file choice", async () => {
    await writeFile(path.join(root, "a.txt"), "a1\n");
    await writeFile(path.join(root, "b.txt"), "b1\n");
    await session.call("bash", { command: "echo a2 > a.txt && echo b2 > b.txt" });
    await writeFile(path.join(root, "a.txt"), "typed by the person\n");
    const id = (await ok("checkpoints.list", { sessionId: "chat-1" }))[0]!.id;
    const refused = await ok("checkpoints.restore", { sessionId: "chat-1", checkpointId: id });
    expect(refused).toMatchObject({ applied: false, undoCheckpoint: null });
    expect(refused.blocked).toEqual([
      expect.objectContaining({
        path: "a.txt",
        action: "restore",
        conflict: expect.stringContaining("by you"),
      }),
    ]);
    expect(await text("b.txt")).toBe("b2\n");
    const chosen = await ok("checkpoints.restore", {
      sessionId: "chat-1",
      checkpointId: id,
      choices: { "a.txt": "keep" },
    });
    expect(chosen).toMatchObject({ applied: true, skipped: [{ path: "a.txt" }] });
    expect(await text("a.txt")).toBe("typed by the person\n");
    expect(await text("b.txt")).toBe("b1\n");
  });

  it("previews and rewinds a session to before a turn, files and conversation", async () => {
    prompt(0, "r1", "make a");
    await session.call("write", { path: "a.txt", content: "v1\n" });
    prompt(1, "r2", "change a");
    await session.call("edit", { path: "a.txt", old_string: "v1", new_string: "v2" });
    await session.call("write", { path: "new.txt", content: "n\n" });
    session.release(); // the run has ended: the session is no longer in use here
    const plan = await ok("checkpoints.previewRewind", { sessionId: "chat-1", before: { runId: "r2" } });
    expect(plan).toMatchObject({ beforeMessage: 1, runId: "r2", messages: 1, runs: ["r2"] });
    expect(plan.paths.map((p) => [p.path, p.action])).toEqual([
      ["a.txt", "restore"],
      ["new.txt", "delete"],
    ]);
    const outcome = await ok("checkpoints.rewind", { sessionId: "chat-1", before: { message: 1 } });
    expect(outcome).toMatchObject({ applied: true, conversationCut: true });
    expect(await text("a.txt")).toBe("v1\n");
    expect(
      engine
        .conversations()
        .prompts("chat-1")
        .map((p) => p.runId),
    ).toEqual(["r1"]);
  });

  it("refuses to rewind a session with a run going on", async () => {
    prompt(0, "r1", "go");
    session.release();
    host.chatSessions.add("chat-1");
    expect(await refusal("checkpoints.rewind", { sessionId: "chat-1", before: { message: 0 } })).toBe(
      "Session chat-1 has a run going on: stop it, then rewind.",
    );
    host.chatSessions.delete("chat-1");
    const again = await engine.openSession({ id: "chat-1", mode: "yolo" });
    expect(await refusal("checkpoints.rewind", { sessionId: "chat-1", before: { message: 0 } })).toContain(
      "is in use here",
    );
    again.release();
  });

  it.each([
    ["checkpoints.list", { sessionId: "../etc" }, "Invalid request for checkpoints.list"],
    [
      "checkpoints.preview",
      { sessionId: "chat-1", checkpointId: 0 },
      "Invalid request for checkpoints.preview",
    ],
    [
      "checkpoints.preview",
      { sessionId: "chat-1", checkpointId: "1" },
      "Invalid request for checkpoints.preview",
    ],
    [
      "checkpoints.restore",
      { sessionId: "chat-1", checkpointId: 1, choices: { "a.txt": "maybe" } },
      "Invalid request for checkpoints.restore",
    ],
    [
      "checkpoints.rewind",
      { sessionId: "chat-1", before: { seq: 1 } },
      "Invalid request for checkpoints.rewind",
    ],
    [
      "checkpoints.preview",
      { sessionId: "chat-1", checkpointId: 42 },
      "Session chat-1 has no checkpoint 42.",
    ],
    ["checkpoints.list", { sessionId: "nobody" }, 'There is no session "nobody"'],
    [
      "checkpoints.previewRewind",
      { sessionId: "chat-1", before: { message: 3 } },
      "Cannot rewind: message 3 is not a prompt of session chat-1",
    ],
  ] as const)("%s %j is refused: %s", async (channel, request, says) => {
    expect(await refusal(channel, request)).toContain(says);
  });
});
