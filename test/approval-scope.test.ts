import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalBroker } from "../src/main/api/approval-broker.ts";
import { Engine, type ApprovalRequest } from "../src/main/engine/index.ts";

// "Always" answers a bash command for the rest of the session. The person approved what the
// dialog showed: the command and the folder it runs in (cwd). The same words in another folder
// touch other files, so they are asked about again.

let base: string;
let root: string;
let engine: Engine;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-approval-scope-")));
  root = path.join(base, "ws");
  const home = path.join(base, "home");
  await mkdir(path.join(root, "build/out"), { recursive: true });
  await mkdir(path.join(root, "out"), { recursive: true });
  await mkdir(home);
  engine = await Engine.create({ root, latheHome: home, extensions: false });
});

afterEach(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** A session whose person answers "always" to the first prompt and rejects every later one. */
async function sessionAnsweringAlwaysOnce() {
  const asked: ApprovalRequest[] = [];
  const session = await engine.openSession({
    mode: "ask",
    approver: async (request) => {
      asked.push(request);
      return asked.length === 1 ? "always" : "reject";
    },
  });
  return { session, asked };
}

describe('an "always" answer to a bash command', () => {
  it("covers the same command in the same folder (control: the cache works)", async () => {
    const { session, asked } = await sessionAnsweringAlwaysOnce();
    expect((await session.call("bash", { command: "rm -r out", cwd: "build" })).type).toBe("output");
    await mkdir(path.join(root, "build/out"));
    expect((await session.call("bash", { command: "rm -r out", cwd: "build/" })).type).toBe("output");
    expect(asked).toHaveLength(1);
    expect(existsSync(path.join(root, "build/out"))).toBe(false);
  });

  it("does not cover it in another folder: that is asked about again", async () => {
    const { session, asked } = await sessionAnsweringAlwaysOnce();
    expect((await session.call("bash", { command: "rm -r out", cwd: "build" })).type).toBe("output");
    const elsewhere = await session.call("bash", { command: "rm -r out" });
    expect(elsewhere.type === "error" && elsewhere.error_text).toMatch(/The user rejected this bash call/);
    expect(asked).toHaveLength(2);
    expect(asked[1]?.approvalKey).not.toBe(asked[0]?.approvalKey);
    expect(existsSync(path.join(root, "out"))).toBe(true);
  });

  it("given in the workspace root, does not cover the command in a folder below", async () => {
    const { session, asked } = await sessionAnsweringAlwaysOnce();
    expect((await session.call("bash", { command: "rm -r out", cwd: "." })).type).toBe("output");
    const below = await session.call("bash", { command: "rm -r out", cwd: "build" });
    expect(below.type).toBe("error");
    expect(asked).toHaveLength(2);
    expect(existsSync(path.join(root, "build/out"))).toBe(true);
  });
});

describe("two calls that need the same approval at once", () => {
  /** Parallel reads, each under an ask rule with the same key (the same file). */
  async function askTwice(answer: "once" | "always") {
    await writeFile(path.join(root, "notes.txt"), "n\n");
    const asked: ApprovalRequest[] = [];
    const session = await engine.openSession({
      mode: "ask",
      approver: async (request) => {
        asked.push(request);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return answer;
      },
    });
    const calls = await Promise.all([
      session.call("read", { path: "notes.txt" }),
      session.call("read", { path: "notes.txt" }),
    ]);
    return { asked, types: calls.map((c) => c.type) };
  }

  beforeEach(async () => {
    await engine.close();
    await writeFile(
      path.join(base, "home/settings.json"),
      JSON.stringify({ permissions: [{ permission: "read", pattern: "notes.txt", action: "ask" }] }),
    );
    engine = await Engine.create({ root, latheHome: path.join(base, "home"), extensions: false });
  });

  it("each asks when the answer is once (control: both calls do ask)", async () => {
    const { asked, types } = await askTwice("once");
    expect(types).toEqual(["output", "output"]);
    expect(asked).toHaveLength(2);
  });

  it("asks once when the answer is always: the second call waits for it", async () => {
    const { asked, types } = await askTwice("always");
    expect(types).toEqual(["output", "output"]);
    expect(asked).toHaveLength(1);
  });
});

describe("a call stopped while its approval prompt is open", () => {
  it("is recorded as stopped, not as the user's refusal", async () => {
    const broker = new ApprovalBroker(() => undefined);
    const session = await engine.openSession({ mode: "ask", approver: broker.approver });
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error("stopped")), 100);
    const { envelope, decisions } = await session.invoke({
      toolId: "bash",
      args: { command: "touch made.txt" },
      signal: stop.signal,
    });
    expect(envelope.type === "error" && envelope.error_text).not.toMatch(/rejected/);
    expect(decisions.at(-1)).toMatchObject({
      stage: "approval",
      outcome: "deny",
      reason: "the call was stopped while it waited for approval",
    });
    expect(existsSync(path.join(root, "made.txt"))).toBe(false);
  });
});
