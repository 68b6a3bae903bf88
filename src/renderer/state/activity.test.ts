import { describe, expect, it } from "vitest";
import type { ToolFinished, ToolStarted } from "../../shared/push-events.ts";
import { activityState, finishActivity, phaseActivity, startActivity } from "./activity.ts";

const started: ToolStarted = {
  callId: "k1",
  sessionId: "s1",
  toolId: "write",
  args: { path: "a.txt" },
  startedAt: 1,
};
const phase = (p: "queued" | "awaiting-approval" | "running", callId = "k1") => ({
  callId,
  sessionId: "s1",
  toolId: "write",
  phase: p,
});
const finished: ToolFinished = {
  ...started,
  envelope: { type: "output", data: {}, metadata: { duration_ms: 3 } },
  decisions: [],
};

describe("the activity list's entry while its call waits", () => {
  type Phase = "queued" | "awaiting-approval" | "running";
  it.each<{ name: string; phases: Phase[]; other?: Phase; state: string }>([
    { name: "started", phases: [], state: "running" },
    { name: "queued", phases: ["queued"], state: "queued" },
    { name: "awaiting approval", phases: ["queued", "awaiting-approval"], state: "awaiting-approval" },
    { name: "let through", phases: ["queued", "awaiting-approval", "running"], state: "running" },
    { name: "another call's phase", phases: [], other: "queued", state: "running" },
  ])("$name: $state", ({ phases, other, state }) => {
    let list = startActivity([], started);
    for (const p of phases) list = phaseActivity(list, phase(p));
    if (other) list = phaseActivity(list, phase(other, "k2"));
    expect(activityState(list[0]!)).toBe(state);
  });

  it("ends with how the call ended, whatever it waited for", () => {
    const waiting = phaseActivity(startActivity([], started), phase("awaiting-approval"));
    const done = finishActivity(waiting, finished);
    expect(activityState(done[0]!)).toBe("output");
    // A late phase does not bring an ended call back.
    expect(activityState(phaseActivity(done, phase("queued"))[0]!)).toBe("output");
  });
});
