import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channels } from "../../shared/api-contract.ts";
import { Engine, type Session } from "../engine/index.ts";
import { ApiRouter } from "./api-router.ts";
import { createToolHandlers } from "./tool-handlers.ts";

let base: string;
let workspace: string;
let engine: Engine;
let session: Session;
let router: ApiRouter;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-api-")));
  workspace = path.join(base, "workspace");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "notes.md"), "# notes\n");
  engine = await Engine.create({ root: workspace, latheHome: path.join(base, "lathe-home") });
  session = await engine.openSession();
  router = new ApiRouter(createToolHandlers({ engine, session }));
});

afterAll(async () => {
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

describe("tool handlers over a real engine", () => {
  it("lists every built-in tool in the shape the shared contract declares", async () => {
    const answer = await router.dispatch("tools.list", undefined);
    if (!answer.ok) throw new Error(answer.error.message);
    const tools = channels["tools.list"].response.parse(answer.data);
    expect(tools.map((t) => t.id)).toEqual(expect.arrayContaining(["read", "write", "edit", "glob", "grep"]));
    for (const tool of tools) expect(tool.origin).toEqual({ layer: "builtin", kind: "builtin" });
    expect(tools.find((t) => t.id === "glob")?.readOnly).toBe(true);
    expect(tools.find((t) => t.id === "write")?.readOnly).toBe(false);
  });

  it("runs a read-only tool and returns its envelope exactly", async () => {
    const answer = await router.dispatch("tools.call", { toolId: "read", args: { path: "notes.md" } });
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
      const answer = await router.dispatch("tools.call", request);
      if (!answer.ok) throw new Error(answer.error.message);
      const envelope = channels["tools.call"].response.parse(answer.data);
      expect(envelope.type, JSON.stringify(request)).toBe("error");
    }
  });

  it("refuses a mutating tool and touches nothing", async () => {
    const answer = await router.dispatch("tools.call", {
      toolId: "write",
      args: { path: "new.txt", content: "x" },
    });
    expect(answer).toEqual({
      ok: false,
      error: { message: expect.stringMatching(/write changes files.*read-only tools.*lathe call write/) },
    });
    expect(await readdir(workspace)).toEqual(["notes.md"]);
  });
});
