import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "./push-events.ts";
import { PushListeners } from "./push-listeners.ts";

const prompt: ApprovalRequest = {
  id: "approval-1",
  sessionId: "s-1",
  toolId: "bash",
  origin: { layer: "builtin", kind: "builtin" },
  args: { command: "rm -rf build" },
  approvalKey: "bash:rm -rf build",
  reasons: ["no rule allows bash"],
};

function recording() {
  const problems: string[] = [];
  const listeners = new PushListeners((message) => problems.push(message));
  return { listeners, problems };
}

describe("PushListeners", () => {
  it("hands a valid push to the listeners of its event only", () => {
    const { listeners, problems } = recording();
    const prompts: unknown[] = [];
    const statuses: unknown[] = [];
    listeners.add("approval.requested", (p) => prompts.push(p));
    listeners.add("project.status", (p) => statuses.push(p));
    listeners.deliver({ event: "approval.requested", payload: prompt });
    expect(prompts).toEqual([prompt]);
    expect(statuses).toEqual([]);
    expect(problems).toEqual([]);
  });

  it.each([
    { name: "not an object", frame: "approval.requested" },
    { name: "null", frame: null },
    { name: "an unknown event", frame: { event: "approval.granted", payload: prompt } },
    { name: "a prototype key as event", frame: { event: "constructor", payload: {} } },
    {
      name: "a prompt without an id",
      frame: { event: "approval.requested", payload: { ...prompt, id: undefined } },
    },
    {
      name: "a prompt with an origin layer that does not exist",
      frame: {
        event: "approval.requested",
        payload: { ...prompt, origin: { layer: "cloud", kind: "builtin" } },
      },
    },
    {
      name: "a prompt with an extra key",
      frame: { event: "approval.requested", payload: { ...prompt, preapproved: true } },
    },
    {
      name: "a settled push with an invented answer",
      frame: { event: "approval.settled", payload: { id: "approval-1", answer: "allow", cause: "answered" } },
    },
    {
      name: "a status whose trusted flag is a string",
      frame: { event: "project.status", payload: { root: "/p", trusted: "yes", notices: [] } },
    },
    {
      name: "a finished call without an envelope",
      frame: {
        event: "tool.finished",
        payload: { callId: "c", sessionId: "s", toolId: "glob", args: {}, startedAt: 1, decisions: [] },
      },
    },
    { name: "a frame with an extra key", frame: { event: "project.status", payload: {}, id: 3 } },
  ])("drops $name and says so", ({ frame }) => {
    const { listeners, problems } = recording();
    const heard: unknown[] = [];
    listeners.add("approval.requested", (p) => heard.push(p));
    listeners.add("approval.settled", (p) => heard.push(p));
    listeners.add("project.status", (p) => heard.push(p));
    listeners.add("tool.finished", (p) => heard.push(p));
    listeners.deliver(frame);
    expect(heard).toEqual([]);
    expect(problems).toEqual([expect.stringMatching(/dropped a push/)]);
  });

  it("stops calling a listener once unsubscribed, and keeps the others", () => {
    const { listeners } = recording();
    const a: unknown[] = [];
    const b: unknown[] = [];
    const stopA = listeners.add("approval.requested", (p) => a.push(p));
    listeners.add("approval.requested", (p) => b.push(p));
    stopA();
    listeners.deliver({ event: "approval.requested", payload: prompt });
    expect(a).toEqual([]);
    expect(b).toEqual([prompt]);
  });

  it("keeps delivering to the other listeners when one throws", () => {
    const { listeners, problems } = recording();
    const heard: unknown[] = [];
    listeners.add("approval.requested", () => {
      throw new Error("render failed");
    });
    listeners.add("approval.requested", (p) => heard.push(p));
    listeners.deliver({ event: "approval.requested", payload: prompt });
    expect(heard).toEqual([prompt]);
    expect(problems).toEqual(["lathe: a approval.requested listener failed"]);
  });
});
