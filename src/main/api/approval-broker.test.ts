import { describe, expect, it, vi } from "vitest";
import type { PushFrame } from "../../shared/push-events.ts";
import type { ApprovalRequest } from "../engine/index.ts";
import { ApprovalBroker } from "./approval-broker.ts";

function request(toolId: string, args: unknown, key = `${toolId}:key`): ApprovalRequest {
  return {
    id: `s-1:${key}`,
    sessionId: "s-1",
    toolId,
    origin: { layer: "builtin", kind: "builtin" },
    args,
    approvalKey: key,
    reasons: [`no rule allows ${toolId}`],
  };
}

function recordingBroker() {
  const frames: PushFrame[] = [];
  const broker = new ApprovalBroker((frame) => frames.push(frame));
  const shown = () => frames.flatMap((f) => (f.event === "approval.requested" ? [f.payload] : []));
  const settled = () => frames.flatMap((f) => (f.event === "approval.settled" ? [f.payload] : []));
  return { broker, frames, shown, settled };
}

/** Let pending promise callbacks run. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("ApprovalBroker", () => {
  it("shows the full request to the UI and resolves with the person's answer", async () => {
    const { broker, shown, settled } = recordingBroker();
    const command = `echo ${"x".repeat(5_000)} && rm -rf build`;
    const answer = broker.approver(request("bash", { command }));
    expect(shown()).toEqual([
      {
        id: expect.stringMatching(/^approval-[0-9a-f-]{36}$/),
        sessionId: "s-1",
        toolId: "bash",
        origin: { layer: "builtin", kind: "builtin" },
        args: { command },
        approvalKey: "bash:key",
        reasons: ["no rule allows bash"],
      },
    ]);
    const id = shown()[0]!.id;
    expect(broker.respond(id, "always")).toEqual({ id, answer: "always" });
    expect(await answer).toBe("always");
    expect(settled()).toEqual([{ id, answer: "always", cause: "answered" }]);
    expect(broker.pendingCount).toBe(0);
  });

  it("names the chat's tool call a prompt is for, so its card can say it waits for approval", async () => {
    const { broker, shown } = recordingBroker();
    void broker.approver({ ...request("write", { path: "a.txt" }), toolCallId: "call-7" });
    void broker.approver(request("write", { path: "b.txt" }, "write:b.txt"));
    expect(shown()[0]).toMatchObject({ toolId: "write", toolCallId: "call-7" });
    broker.respond(shown()[0]!.id, "reject");
    await tick();
    // A call with no id of the caller's (the Tools view's own) names none.
    expect(shown()[1]).not.toHaveProperty("toolCallId");
    broker.close();
  });

  it("queues several prompts and shows them one at a time, in order", async () => {
    const { broker, shown } = recordingBroker();
    const first = broker.approver(request("write", { path: "a.txt" }, "write:a.txt"));
    const second = broker.approver(request("write", { path: "b.txt" }, "write:b.txt"));
    const third = broker.approver(request("edit", { path: "c.txt" }, "edit:c.txt"));
    expect(broker.pendingCount).toBe(3);
    expect(shown().map((p) => p.approvalKey)).toEqual(["write:a.txt"]);

    broker.respond(shown()[0]!.id, "once");
    expect(shown().map((p) => p.approvalKey)).toEqual(["write:a.txt", "write:b.txt"]);
    broker.respond(shown()[1]!.id, "reject");
    expect(shown().map((p) => p.approvalKey)).toEqual(["write:a.txt", "write:b.txt", "edit:c.txt"]);
    broker.respond(shown()[2]!.id, "always");
    expect(await Promise.all([first, second, third])).toEqual(["once", "reject", "always"]);
  });

  it("gives two calls with the same engine id (same session and key) different prompt ids", () => {
    const { broker, shown } = recordingBroker();
    void broker.approver(request("write", { path: "a.txt" }, "write:a.txt"));
    void broker.approver(request("write", { path: "a.txt" }, "write:a.txt"));
    broker.respond(shown()[0]!.id, "once");
    expect(shown()).toHaveLength(2);
    expect(shown()[0]!.id).not.toBe(shown()[1]!.id);
  });

  it("refuses an answer for an unknown or already settled prompt", async () => {
    const { broker, shown } = recordingBroker();
    const first = broker.approver(request("write", { path: "a.txt" }, "write:a.txt"));
    const second = broker.approver(request("write", { path: "b.txt" }, "write:b.txt"));
    const firstId = shown()[0]!.id;
    expect(() => broker.respond("approval-made-up", "once")).toThrow(/no approval prompt "approval-made-up"/);
    broker.respond(firstId, "reject");
    expect(() => broker.respond(firstId, "once")).toThrow(/already answered/);
    expect(await first).toBe("reject");
    // Answering the first id again never allows the second call.
    const secondId = shown()[1]!.id;
    broker.respond(secondId, "once");
    expect(await second).toBe("once");
  });

  it("rejects a prompt whose call is aborted, and moves on to the next", async () => {
    const { broker, shown, settled } = recordingBroker();
    const controller = new AbortController();
    const first = broker.approver(request("write", { path: "a.txt" }, "write:a.txt"), controller.signal);
    const second = broker.approver(request("write", { path: "b.txt" }, "write:b.txt"));
    const firstId = shown()[0]!.id;
    controller.abort();
    expect(await first).toBe("reject");
    expect(settled()).toEqual([{ id: firstId, answer: "reject", cause: "aborted" }]);
    expect(shown().map((p) => p.approvalKey)).toEqual(["write:a.txt", "write:b.txt"]);
    expect(() => broker.respond(firstId, "once")).toThrow(/no approval prompt/);
    broker.respond(shown()[1]!.id, "once");
    expect(await second).toBe("once");
  });

  it("rejects at once when the call was aborted before asking, showing nothing", async () => {
    const { broker, frames } = recordingBroker();
    expect(await broker.approver(request("write", {}), AbortSignal.abort())).toBe("reject");
    expect(frames).toEqual([]);
  });

  it("rejects a queued prompt whose call is aborted without ever showing it", async () => {
    const { broker, shown } = recordingBroker();
    const controller = new AbortController();
    void broker.approver(request("write", { path: "a.txt" }, "write:a.txt"));
    const queued = broker.approver(request("write", { path: "b.txt" }, "write:b.txt"), controller.signal);
    controller.abort();
    expect(await queued).toBe("reject");
    broker.respond(shown()[0]!.id, "once");
    expect(shown().map((p) => p.approvalKey)).toEqual(["write:a.txt"]);
    expect(broker.pendingCount).toBe(0);
  });

  it("leaves everything waiting unanswered when the UI goes away, and every later prompt (never allowed)", async () => {
    const { broker, shown, settled } = recordingBroker();
    const first = broker.approver(request("write", { path: "a.txt" }, "write:a.txt"));
    const second = broker.approver(request("write", { path: "b.txt" }, "write:b.txt"));
    broker.close();
    expect(await Promise.all([first, second])).toEqual(["unanswered", "unanswered"]);
    expect(shown()).toHaveLength(1);
    expect(settled()).toEqual([{ id: shown()[0]!.id, answer: "reject", cause: "closed" }]);
    expect(await broker.approver(request("write", { path: "c.txt" }))).toBe("unanswered");
    expect(shown()).toHaveLength(1);
  });

  it("rejects a prompt whose call was aborted", async () => {
    const { broker } = recordingBroker();
    const controller = new AbortController();
    const answer = broker.approver(request("write", { path: "a.txt" }), controller.signal);
    controller.abort();
    expect(await answer).toBe("reject");
  });

  it("leaves a prompt it cannot deliver unanswered instead of waiting forever", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const broker = new ApprovalBroker(() => {
        throw new Error("the WebSocket is no longer open");
      });
      const answer = broker.approver(request("write", { path: "a.txt" }));
      await tick();
      expect(await answer).toBe("unanswered");
      expect(broker.pendingCount).toBe(0);
      expect(String(logged.mock.calls[0]?.[0])).toMatch(/could not show the approval prompt for write/);
    } finally {
      logged.mockRestore();
    }
  });
});
