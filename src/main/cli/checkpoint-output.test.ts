import { describe, expect, it } from "vitest";
import type { CheckpointSummary, RestoreOutcome } from "../engine/index.ts";
import { NOT_REACHED } from "../engine/light.ts";
import { formatCheckpointList, formatLeftovers, formatPlan } from "./checkpoint-output.ts";

// What `lathe restore` prints after it ran: a path it could not put back, or did not reach, is
// never reported as already being as it was.

const plan = {
  checkpoints: [3],
  paths: [
    { path: "a.txt", type: "file" as const, action: "restore" as const },
    { path: "b.txt", type: "file" as const, action: "recreate" as const },
  ],
};

function outcome(failed: RestoreOutcome["failed"], skipped: RestoreOutcome["skipped"] = []): RestoreOutcome {
  return { applied: true, plan, blocked: [], skipped, failed, undoCheckpoint: 4 };
}

describe("the report of an applied restore", () => {
  it.each([
    [
      "every path failed",
      outcome([
        { path: "a.txt", reason: "EACCES: permission denied" },
        { path: "b.txt", reason: "EACCES: permission denied" },
      ]),
    ],
    [
      "every path was left",
      outcome(
        [],
        [
          { path: "a.txt", reason: "kept as it is, as chosen" },
          { path: "b.txt", reason: "kept as it is, as chosen" },
        ],
      ),
    ],
    [
      "no path was reached",
      outcome([
        { path: "a.txt", reason: NOT_REACHED },
        { path: "b.txt", reason: NOT_REACHED },
      ]),
    ],
  ])("%s: it does not say every path already is as it was", (_what, done) => {
    const printed = `${formatPlan(plan, done)}${formatLeftovers(done)}`;
    expect(printed).not.toContain("already is as it was");
    expect(printed).toMatch(/a\.txt/);
    expect(printed).toMatch(/b\.txt/);
  });

  it("a restore that had nothing to change says so", () => {
    const none = { ...plan, paths: plan.paths.map((p) => ({ ...p, action: "none" as const })) };
    expect(formatPlan(none, { ...outcome([]), plan: none })).toBe(
      "  (no file changes: every path already is as it was)\n",
    );
  });
});

describe("the list of checkpoints", () => {
  const checkpoint = (files: CheckpointSummary["files"]): CheckpointSummary => ({
    id: 2,
    sessionId: "s1",
    kind: "tool",
    tool: "bash",
    callId: null,
    toolCallId: null,
    messageSeq: null,
    runId: null,
    createdAt: 0,
    restoredBy: null,
    undoes: [],
    files,
  });

  it.each([
    [
      { path: "f", type: "file" as const, change: "modified" as const, became: "folder" as const },
      "f (was a file, became a folder)",
    ],
    [
      { path: "d", type: "file" as const, change: "modified" as const, became: "file" as const },
      "d (was a folder, became a file)",
    ],
    [{ path: "a.txt", type: "file" as const, change: "modified" as const }, "a.txt (modified)"],
    [{ path: "new", type: "folder" as const, change: "created" as const }, "new/ (created)"],
  ])("%o is shown as %s", (file, shown) => {
    const printed = formatCheckpointList("s1", [checkpoint([file])], []);
    expect(printed).toContain(`bash    ${shown}`);
  });
});
