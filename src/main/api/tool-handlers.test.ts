import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channels } from "../../shared/api-contract.ts";
import type { PushFrame } from "../../shared/push-events.ts";
import { Engine } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

let base: string;
let workspace: string;
let engine: Engine;
let host: EngineHost;
let connection: UiConnection;
const frames: PushFrame[] = [];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-api-")));
  workspace = path.join(base, "workspace");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "notes.md"), "# notes\n");
  engine = await Engine.create({ root: workspace, latheHome: path.join(base, "lathe-home") });
  host = new EngineHost({ engine });
  connection = new UiConnection({ host, send: (frame) => frames.push(frame) });
});

afterAll(async () => {
  await connection?.close();
  await host?.close();
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

describe("tool handlers over a real engine", () => {
  it("lists every tool in the shape the shared contract declares", async () => {
    const answer = await connection.router.dispatch("tools.list", undefined);
    if (!answer.ok) throw new Error(answer.error.message);
    const tools = channels["tools.list"].response.parse(answer.data);
    expect(tools.map((t) => t.id)).toEqual(expect.arrayContaining(["read", "write", "edit", "glob", "grep"]));
    for (const id of ["read", "write", "edit", "glob", "grep"]) {
      expect(tools.find((t) => t.id === id)).toMatchObject({
        origin: { layer: "builtin", kind: "builtin" },
        shadows: [],
        deferred: false,
      });
    }
    // The bundled plugins are listed too, with their own origin.
    expect(tools.find((t) => t.id === "word_count")?.origin).toEqual({
      layer: "bundled",
      kind: "plugin",
      name: "word_count",
    });
    expect(tools.find((t) => t.id === "glob")?.readOnly).toBe(true);
    expect(tools.find((t) => t.id === "write")?.readOnly).toBe(false);
  });

  it("runs a read-only tool and returns its envelope exactly", async () => {
    const answer = await connection.router.dispatch("tools.call", {
      toolId: "read",
      args: { path: "notes.md" },
    });
    if (!answer.ok) throw new Error(answer.error.message);
    const envelope = channels["tools.call"].response.parse(answer.data);
    expect(envelope).toMatchObject({ type: "output", data: { path: "notes.md", content: "# notes\n" } });
    expect(envelope.metadata.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("passes engine errors through as error envelopes", async () => {
    const cases = [
      { toolId: "no_such_tool", args: {} },
      { toolId: "read", args: { path: "../outside.txt" } },
      { toolId: "glob", args: { pattern: 42 } },
    ];
    for (const request of cases) {
      const answer = await connection.router.dispatch("tools.call", request);
      if (!answer.ok) throw new Error(answer.error.message);
      const envelope = channels["tools.call"].response.parse(answer.data);
      expect(envelope.type, JSON.stringify(request)).toBe("error");
    }
  });

  it("sends a mutating tool to the person instead of refusing it, and touches nothing until they answer", async () => {
    const pending = connection.router.dispatch("tools.call", {
      toolId: "write",
      args: { path: "new.txt", content: "x" },
    });
    await expect.poll(() => frames.some((f) => f.event === "approval.requested")).toBe(true);
    expect(await readdir(workspace)).toEqual(["notes.md"]);
    const prompt = frames.find((f) => f.event === "approval.requested");
    if (prompt?.event !== "approval.requested") throw new Error("no prompt");
    await connection.router.dispatch("approval.respond", { id: prompt.payload.id, answer: "reject" });
    const answer = await pending;
    expect(answer).toMatchObject({
      ok: true,
      data: { type: "error", error_text: expect.stringMatching(/rejected/) },
    });
    expect(await readdir(workspace)).toEqual(["notes.md"]);
  });
});
