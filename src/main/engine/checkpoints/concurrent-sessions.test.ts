import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  useCheckpointWorkspace,
  type CheckpointWorkspace,
} from "../../../../test/support/checkpoint-test-workspace.ts";

// A command of session s1 (bash: its checkpoint is a scan of the workspace before and after it)
// runs while another session changes a file through write: two chats of the app, or the app and
// a `lathe call --session` in a terminal. The other session's change is not s1's: restoring or
// rewinding s1 must not undo it without saying so.

let ws: CheckpointWorkspace;
useCheckpointWorkspace((opened) => {
  ws = opened;
});

/** Wait until `relative` exists in the workspace (the command has started, and scanned before it). */
async function untilExists(relative: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await ws.exists(relative))) {
    if (Date.now() > deadline) throw new Error(`${relative} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Run `before` in s1's bash, then wait there until the test has let session "other" write y.txt
 * (after reading it as it then is): s1's command is running all along.
 */
async function otherWritesDuringCommand(before: string): Promise<number> {
  await ws.put("y.txt", "y old\n");
  const other = await ws.engine.openSession({ id: "other", mode: "yolo" });
  const command = ws.session.call("bash", {
    command: `${before}touch started; while [ ! -f go ]; do sleep 0.02; done; rm go started`,
  });
  await untilExists("started");
  expect((await other.call("read", { path: "y.txt" })).type).toBe("output");
  expect((await other.call("write", { path: "y.txt", content: "y by the other session\n" })).type).toBe(
    "output",
  );
  await writeFile(ws.abs("go"), "");
  expect((await command).type).toBe("output");
  return ws.newest();
}

describe("a command's checkpoint while another session writes", () => {
  it("leaves out the file only the other session changed: restoring the command keeps that change", async () => {
    await ws.put("mine.txt", "mine\n");
    const id = await otherWritesDuringCommand("echo changed > mine.txt; ");
    const paths = ws.engine.checkpoints
      .list("s1")
      .find((c) => c.id === id)
      ?.files.map((f) => f.path);
    expect(paths).toEqual(["mine.txt"]);
    const outcome = await ws.engine.checkpoints.restore("s1", id);
    expect(outcome.applied).toBe(true);
    expect(await ws.text("mine.txt")).toBe("mine\n");
    expect(await ws.text("y.txt")).toBe("y by the other session\n");
  });

  it("a file the command changed and the other session then changed again is a conflict, not undone silently", async () => {
    const id = await otherWritesDuringCommand("echo by the command > y.txt; ");
    const plan = await ws.engine.checkpoints.previewRestore("s1", id);
    expect(plan.paths).toEqual([
      expect.objectContaining({ path: "y.txt", action: "restore", conflict: expect.any(String) }),
    ]);
    const refused = await ws.engine.checkpoints.restore("s1", id);
    expect(refused.applied).toBe(false);
    expect(await ws.text("y.txt")).toBe("y by the other session\n");
  });
});
