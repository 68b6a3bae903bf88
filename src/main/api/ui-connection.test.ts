import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApiResult, Envelope } from "../../shared/api-contract.ts";
import type { ApprovalRequest, PushFrame, PushOf, PushEvent } from "../../shared/push-events.ts";
import { parsePushFrame } from "../../shared/push-events.ts";
import { Engine } from "../engine/index.ts";
import { EngineHost } from "./engine-host.ts";
import { UiConnection } from "./ui-connection.ts";

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;
let host: EngineHost;
const opened: UiConnection[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-ui-connection-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  // A project that grants itself write access to allowed/: ignored until the user trusts it.
  await writeFile(
    path.join(root, ".lathe", "settings.json"),
    JSON.stringify({ permissions: [{ permission: "write", pattern: "allowed/**", action: "allow" }] }),
  );
  engine = await Engine.create({ root, latheHome });
  host = new EngineHost({ engine });
});

afterEach(async () => {
  for (const connection of opened.splice(0)) await connection.close();
  await host.close();
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** A UI connection whose pushes are recorded (and checked against the contract, as a UI would). */
function connect() {
  const frames: PushFrame[] = [];
  const connection = new UiConnection({
    host,
    send: (frame) => {
      const checked = parsePushFrame(JSON.parse(JSON.stringify(frame)));
      if (!checked.ok) throw new Error(checked.error);
      frames.push(checked.frame);
    },
  });
  opened.push(connection);
  const of = <E extends PushEvent>(event: E): PushOf<E>[] =>
    frames.flatMap((f) => (f.event === event ? [f.payload as PushOf<E>] : []));
  const call = (toolId: string, args: unknown) => connection.router.dispatch("tools.call", { toolId, args });
  const prompt = async (index = 0): Promise<ApprovalRequest> => {
    await expect.poll(() => of("approval.requested").length, { timeout: 5_000 }).toBeGreaterThan(index);
    return of("approval.requested")[index]!;
  };
  return { connection, frames, of, call, prompt };
}

function envelopeOf(answer: ApiResult<Envelope>): Envelope {
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data;
}

const file = (relative: string) => path.join(root, relative);

describe("a UI connection's approvals", () => {
  it("asks its own UI with the full arguments and origin; reject leaves the disk untouched", async () => {
    const ui = connect();
    const content = `${"a long line ".repeat(400)}\nend`;
    const pending = ui.call("write", { path: "notes/new.txt", content });
    const prompt = await ui.prompt();
    expect(prompt).toMatchObject({
      toolId: "write",
      origin: { layer: "builtin", kind: "builtin" },
      args: { path: "notes/new.txt", content },
      approvalKey: "write:notes/new.txt",
      reasons: [expect.stringMatching(/ask/)],
    });
    const answered = await ui.connection.router.dispatch("approval.respond", {
      id: prompt.id,
      answer: "reject",
    });
    expect(answered).toEqual({ ok: true, data: { id: prompt.id, answer: "reject" } });
    const envelope = envelopeOf(await pending);
    expect(envelope).toMatchObject({ type: "error", error_text: expect.stringMatching(/rejected/) });
    expect(existsSync(file("notes/new.txt"))).toBe(false);
    expect(ui.of("approval.settled")).toEqual([{ id: prompt.id, answer: "reject", cause: "answered" }]);

    // The live activity: started, then finished with the denied approval stage.
    expect(ui.of("tool.started")).toEqual([
      expect.objectContaining({ toolId: "write", sessionId: prompt.sessionId }),
    ]);
    const [finished] = ui.of("tool.finished");
    expect(finished?.envelope.type).toBe("error");
    expect(finished?.decisions).toContainEqual({
      stage: "approval",
      outcome: "deny",
      reason: "the user rejected the call",
    });
  });

  it("runs the call once after 'once', and asks again next time", async () => {
    const ui = connect();
    const first = ui.call("write", { path: "notes/one.txt", content: "hi" });
    await ui.connection.router.dispatch("approval.respond", { id: (await ui.prompt(0)).id, answer: "once" });
    expect(envelopeOf(await first).type).toBe("output");
    expect(await readFile(file("notes/one.txt"), "utf8")).toBe("hi");

    const second = ui.call("write", { path: "notes/two.txt", content: "again" });
    await ui.connection.router.dispatch("approval.respond", { id: (await ui.prompt(1)).id, answer: "once" });
    expect(envelopeOf(await second).type).toBe("output");
  });

  it("remembers 'always' for the same key for the rest of the session", async () => {
    const ui = connect();
    const first = ui.call("write", { path: "notes/same.txt", content: "1" });
    await ui.connection.router.dispatch("approval.respond", { id: (await ui.prompt()).id, answer: "always" });
    expect(envelopeOf(await first).type).toBe("output");
    // Same key (write:notes/same.txt): no prompt; the file exists and was read by the write itself.
    await ui.call("read", { path: "notes/same.txt" });
    expect(envelopeOf(await ui.call("write", { path: "notes/same.txt", content: "2" })).type).toBe("output");
    expect(ui.of("approval.requested")).toHaveLength(1);
    expect(await readFile(file("notes/same.txt"), "utf8")).toBe("2");
  });

  it("refuses an answer for an unknown or already settled id, and a bad payload", async () => {
    const ui = connect();
    const pending = ui.call("write", { path: "notes/x.txt", content: "x" });
    const prompt = await ui.prompt();
    for (const payload of [
      { id: "approval-unknown", answer: "once" },
      { id: prompt.id, answer: "allow" },
      { id: prompt.id, answer: "once", extra: true },
      { id: prompt.id },
    ]) {
      const answer = await ui.connection.router.dispatch("approval.respond", payload);
      expect(answer.ok, JSON.stringify(payload)).toBe(false);
    }
    expect(existsSync(file("notes/x.txt"))).toBe(false);
    await ui.connection.router.dispatch("approval.respond", { id: prompt.id, answer: "reject" });
    await pending;
    const again = await ui.connection.router.dispatch("approval.respond", { id: prompt.id, answer: "once" });
    expect(again).toEqual({ ok: false, error: { message: expect.stringMatching(/no approval prompt/) } });
    expect(existsSync(file("notes/x.txt"))).toBe(false);
  });

  it("queues prompts in order: the second is shown once the first settles", async () => {
    const ui = connect();
    const a = ui.call("write", { path: "q/a.txt", content: "a" });
    const b = ui.call("write", { path: "q/b.txt", content: "b" });
    const first = await ui.prompt(0);
    expect(first.args).toEqual({ path: "q/a.txt", content: "a" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ui.of("approval.requested")).toHaveLength(1);
    // The second write waits for its turn in the session's scheduler before it is even decided.
    expect(ui.connection.pendingApprovals).toBe(1);
    await ui.connection.router.dispatch("approval.respond", { id: first.id, answer: "reject" });
    const second = await ui.prompt(1);
    expect(second.args).toEqual({ path: "q/b.txt", content: "b" });
    await ui.connection.router.dispatch("approval.respond", { id: second.id, answer: "once" });
    expect(envelopeOf(await a).type).toBe("error");
    expect(envelopeOf(await b).type).toBe("output");
    expect(existsSync(file("q/a.txt"))).toBe(false);
    expect(await readFile(file("q/b.txt"), "utf8")).toBe("b");
  });

  it("rejects a pending approval when its UI goes away: the call ends, nothing is written", async () => {
    const ui = connect();
    const pending = ui.call("write", { path: "notes/gone.txt", content: "x" });
    await ui.prompt();
    await ui.connection.close();
    const envelope = envelopeOf(await pending);
    expect(envelope.type).toBe("error");
    expect(existsSync(file("notes/gone.txt"))).toBe(false);
    // A closed UI is never asked again.
    const later = envelopeOf(await ui.call("write", { path: "notes/later.txt", content: "x" }));
    expect(later.type).toBe("error");
    expect(existsSync(file("notes/later.txt"))).toBe(false);
  });

  it("sends each prompt and each call's activity to the UI that made the call only", async () => {
    const left = connect();
    const right = connect();
    const pending = left.call("write", { path: "notes/left.txt", content: "l" });
    const prompt = await left.prompt();
    await right.call("glob", { pattern: "**/*" });
    expect(right.of("approval.requested")).toEqual([]);
    expect(right.of("tool.started").map((e) => e.toolId)).toEqual(["glob"]);
    expect(left.of("tool.started").map((e) => e.toolId)).toEqual(["write"]);
    // The other UI cannot answer it.
    const stolen = await right.connection.router.dispatch("approval.respond", {
      id: prompt.id,
      answer: "once",
    });
    expect(stolen.ok).toBe(false);
    await left.connection.router.dispatch("approval.respond", { id: prompt.id, answer: "reject" });
    expect(envelopeOf(await pending).type).toBe("error");
    expect(existsSync(file("notes/left.txt"))).toBe(false);
  });
});

describe("project trust through a UI connection", () => {
  it("reports an untrusted project with its notice, ignoring its allow rule", async () => {
    const ui = connect();
    const status = await ui.connection.router.dispatch("project.status", undefined);
    expect(status).toEqual({
      ok: true,
      data: { root, trusted: false, notices: [expect.stringMatching(/not trusted.*1 allow\/ask rule/)] },
    });
    const pending = ui.call("write", { path: "allowed/a.txt", content: "a" });
    const prompt = await ui.prompt();
    await ui.connection.router.dispatch("approval.respond", { id: prompt.id, answer: "reject" });
    await pending;
    expect(existsSync(file("allowed/a.txt"))).toBe(false);
  });

  it("trusts the folder, recreates the engine and session, and pushes the new status to every UI", async () => {
    const ui = connect();
    const other = connect();
    const trusted = await ui.connection.router.dispatch("project.trust", undefined);
    expect(trusted).toEqual({ ok: true, data: { root, trusted: true, notices: [] } });
    expect(host.current).not.toBe(engine);
    expect(host.current.policy.projectTrusted).toBe(true);
    const record = JSON.parse(await readFile(path.join(latheHome, "trust.json"), "utf8")) as {
      projects: Record<string, unknown>;
    };
    expect(Object.keys(record.projects)).toEqual([root]);
    for (const u of [ui, other])
      expect(u.of("project.status")).toEqual([{ root, trusted: true, notices: [] }]);

    // The project's allow rule now applies: no prompt for allowed/, still a prompt elsewhere.
    expect(envelopeOf(await ui.call("write", { path: "allowed/a.txt", content: "a" })).type).toBe("output");
    expect(await readFile(file("allowed/a.txt"), "utf8")).toBe("a");
    expect(ui.of("approval.requested")).toEqual([]);
    const elsewhere = other.call("write", { path: "notes/b.txt", content: "b" });
    const prompt = await other.prompt();
    await other.connection.router.dispatch("approval.respond", { id: prompt.id, answer: "reject" });
    expect(envelopeOf(await elsewhere).type).toBe("error");

    // Trusting again changes nothing.
    expect(await ui.connection.router.dispatch("project.trust", {})).toEqual(trusted);
    expect(ui.of("project.status")).toHaveLength(1);
  });

  it("lets a prompt that was waiting when the folder was trusted still be answered", async () => {
    const ui = connect();
    const pending = ui.call("write", { path: "notes/before.txt", content: "b" });
    const prompt = await ui.prompt();
    await ui.connection.router.dispatch("project.trust", undefined);
    await ui.connection.router.dispatch("approval.respond", { id: prompt.id, answer: "once" });
    expect(envelopeOf(await pending).type).toBe("output");
    expect(await readFile(file("notes/before.txt"), "utf8")).toBe("b");
  });
});
