// What a person sees in Tools → Run a tool under `lathe serve` when their pre-tool hook refuses
// a bash call: the refusal comes back at once, whole, whether the hook explains itself at length
// (30 KB of stderr) or leaves a process running that still holds its output. The latter kept the
// call "Running…" until the hook's timeout, then answered with "stopped after …" instead of the
// hook's own reason.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { sleepers, sleepMarker } from "../../../test/support/sleep-markers.ts";
import { WsResponseSchema } from "../../shared/ws-protocol.ts";
import { Engine } from "../engine/index.ts";
import { startServe, type ServeHandle } from "./serve-server.ts";

const LINUX = process.platform === "linux";
const REASON_LINE = "bash is not allowed here: ask the platform team\n";
const LONG_REASON = REASON_LINE.repeat(Math.ceil(30_000 / REASON_LINE.length));
const marker = sleepMarker();

let base: string;
let engine: Engine;
let serve: ServeHandle;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-serve-hook-")));
  const workspace = path.join(base, "workspace");
  const home = path.join(base, "lathe-home");
  const rendererDir = path.join(base, "renderer");
  await mkdir(workspace);
  await mkdir(home);
  await mkdir(rendererDir);
  await writeFile(path.join(rendererDir, "index.html"), "<!doctype html><title>test page</title>");
  await writeFile(path.join(base, "long-reason.txt"), LONG_REASON);
  // The hook reads the call and picks its refusal by the command it is asked about.
  const hook = [
    `input=$(cat)`,
    `case "$input" in`,
    `  *long*) cat '${path.join(base, "long-reason.txt")}' >&2 ;;`,
    `  *background*) sleep ${marker} & echo 'refused, and a note is on its way' >&2 ;;`,
    `esac`,
    `exit 2`,
  ].join("\n");
  await writeFile(path.join(base, "hook.sh"), hook);
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      hooks: [{ command: `sh '${path.join(base, "hook.sh")}'`, tools: ["bash"], timeoutMs: 20_000 }],
    }),
  );
  engine = await Engine.create({ root: workspace, latheHome: home });
  serve = await startServe({ engine, port: 0, rendererDir });
});

afterAll(async () => {
  for (const pid of sleepers(marker)) process.kill(pid, "SIGKILL");
  await serve?.close();
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

/** Run a tool over the page's socket, as Tools → Run a tool does; its answer and how long it took. */
async function callOverSocket(toolId: string, args: unknown): Promise<{ answer: unknown; ms: number }> {
  const origin = `http://127.0.0.1:${serve.port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${serve.port}/api?token=${serve.token}`, { origin });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  try {
    const started = Date.now();
    const answer = new Promise<unknown>((resolve) =>
      ws.on("message", (data: Buffer) => {
        const frame = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
        if (frame["id"] === 1) resolve(frame);
      }),
    );
    ws.send(JSON.stringify({ id: 1, channel: "tools.call", payload: { toolId, args } }));
    const frame = await answer;
    return { answer: WsResponseSchema.parse(frame).result, ms: Date.now() - started };
  } finally {
    ws.close();
  }
}

describe.skipIf(!LINUX)("a bash call refused by the person's hook, run from the page", () => {
  it("answers at once with all of a 30 KB refusal", async () => {
    const { answer, ms } = await callOverSocket("bash", { command: "echo long" });
    expect(answer).toMatchObject({ ok: true, data: { type: "error" } });
    const text = (answer as { data: { error_text: string } }).data.error_text;
    expect(text).toContain(LONG_REASON.trim());
    expect(ms).toBeLessThan(5_000);
  });

  it("answers at once with the hook's reason when it leaves a process holding its output", async () => {
    const { answer, ms } = await callOverSocket("bash", { command: "echo background" });
    expect(answer).toMatchObject({
      ok: true,
      data: { type: "error", error_text: expect.stringContaining("refused, and a note is on its way") },
    });
    expect(ms).toBeLessThan(5_000);
    // Positive control: what the hook left running was still there, holding its output.
    expect(sleepers(marker)).toHaveLength(1);
  });
});
