import { describe, expect, it } from "vitest";
import type { StoredCompaction, StoredMessage } from "../store/conversation-store.ts";
import { planCompaction } from "./compaction-plan.ts";
import { conversationView } from "./conversation-view.ts";

let seq = 0;
const user = (text: string): StoredMessage => ({
  seq: seq++,
  runId: "r",
  role: "user",
  createdAt: 0,
  parts: [{ type: "text", text }],
});
const answer = (text: string): StoredMessage => ({
  seq: seq++,
  runId: "r",
  role: "assistant",
  createdAt: 0,
  parts: [{ type: "text", text }],
});
const call = (id: string): StoredMessage => ({
  seq: seq++,
  runId: "r",
  role: "assistant",
  createdAt: 0,
  parts: [{ type: "tool-call", toolCallId: id, toolName: "read", input: { path: "a" } }],
});
const result = (id: string, size: number): StoredMessage => ({
  seq: seq++,
  runId: "r",
  role: "tool",
  createdAt: 0,
  parts: [
    {
      type: "tool-result",
      toolCallId: id,
      toolName: "read",
      envelope: { type: "output", data: { content: "z".repeat(size) }, metadata: { duration_ms: 1 } },
    },
  ],
});

function conversation(build: () => StoredMessage[]): StoredMessage[] {
  seq = 0;
  return build();
}

describe("planCompaction", () => {
  it.each([
    ["only the first prompt", () => [user("x".repeat(9000))]],
    ["a prompt and one step of calls and results", () => [user("go"), call("c1"), result("c1", 9000)]],
  ])("has nothing to summarise with %s", (_name, build) => {
    expect(planCompaction(conversation(build), [], 100)).toBeUndefined();
  });

  it.each([
    [
      "tool results at the cut",
      () => [user("go"), call("c1"), result("c1", 4000), call("c2"), result("c2", 4000)],
    ],
    [
      "a long run of calls",
      () => [
        user("go"),
        ...[1, 2, 3, 4].flatMap((n) => [call(`c${n}`), result(`c${n}`, 2000)]),
        answer("done"),
      ],
    ],
    ["turns", () => [user("a"), answer("x".repeat(4000)), user("b"), answer("y".repeat(4000)), user("c")]],
  ])("never keeps a tool result apart from its call, and summarises something (%s)", (_name, build) => {
    const messages = conversation(build);
    for (const keep of [0, 100, 1000, 100_000]) {
      const plan = planCompaction(messages, [], keep);
      expect(plan).toBeDefined();
      expect(plan?.kept[0]?.role).not.toBe("tool");
      expect(plan?.replaced.length).toBeGreaterThan(0);
      expect([...(plan?.replaced ?? []), ...(plan?.kept ?? [])]).toEqual(messages);
    }
  });

  it("takes in only the messages after the previous summary", () => {
    const messages = conversation(() => [user("a"), answer("one"), user("b"), answer("two"), user("c")]);
    const previous: StoredCompaction = {
      id: 1,
      runId: null,
      throughSeq: 1,
      madeAtSeq: 3,
      summary: "S",
      tokensBefore: 0,
      tokensAfter: 0,
      createdAt: 0,
    };
    const plan = planCompaction(messages, [previous], 0);
    expect(plan?.previous).toBe(previous);
    expect(plan?.replaced.map((m) => m.seq)).toEqual([2, 3]);
  });
});

describe("conversationView", () => {
  it("sends the latest summary, then the kept messages; the request being worked on goes word for word", () => {
    const messages = conversation(() => [
      user("Do the thing"),
      call("c1"),
      result("c1", 10),
      call("c2"),
      result("c2", 10),
    ]);
    const view = conversationView(messages, [
      {
        id: 1,
        runId: "r",
        throughSeq: 2,
        madeAtSeq: 5,
        summary: "NOTES",
        tokensBefore: 0,
        tokensAfter: 0,
        createdAt: 0,
      },
    ]);
    expect(view.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    const first = JSON.stringify(view[0]);
    expect(first).toContain("NOTES");
    expect(first).toContain("Do the thing");
    expect(JSON.stringify(view)).not.toContain('"c1"');
  });
});
