import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  useCheckpointWorkspace,
  type CheckpointWorkspace,
} from "../../../../test/support/checkpoint-test-workspace.ts";
import { openDatabase } from "../store/database.ts";
import { FileClaims } from "../store/file-claims.ts";

// A restore checks that each file still holds what its checkpoint left, then writes it back. A
// write or edit in another session or process (the app and a `lathe call` in a terminal) claims
// its file between its own check and its write; the restore must take part, or an edit landing
// between the restore's check and its write is overwritten with no word said.

let ws: CheckpointWorkspace;
useCheckpointWorkspace((opened) => {
  ws = opened;
});

/** Another process's store connection, as a second Lathe would have. */
function otherProcessClaims(): { claims: FileClaims; close(): void } {
  const db = openDatabase(path.join(ws.home, "lathe.db"));
  return { claims: new FileClaims(db, { waitMs: 15_000, staleMs: 60_000 }), close: () => db.close() };
}

describe("restore and the files other calls are changing", () => {
  it("waits for an edit in progress, then sees its change as a conflict instead of overwriting it", async () => {
    await ws.put("a.txt", "original\n");
    await ws.ok("read", { path: "a.txt" });
    await ws.ok("write", { path: "a.txt", content: "by the session\n" });
    const id = ws.newest();

    const other = otherProcessClaims();
    try {
      // Another call has checked a.txt and is about to write it.
      const held = await other.claims.claim([ws.abs("a.txt")]);
      if (!held.release) throw new Error("the claim was not taken");
      let settled = false;
      const restoring = ws.engine.checkpoints.restore("s1", id).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      expect(await ws.text("a.txt")).toBe("by the session\n");
      // Its write lands, then it lets go.
      await ws.put("a.txt", "by the other call\n");
      held.release();

      const outcome = await restoring;
      expect(outcome.applied).toBe(false);
      expect(outcome.blocked.map((p) => p.path)).toEqual(["a.txt"]);
      expect(await ws.text("a.txt")).toBe("by the other call\n");
    } finally {
      other.close();
    }
  });

  it.each([
    ["applied", { force: true }, "one\n"],
    ["refused on a conflict", {}, "changed by hand\n"],
  ] as const)("lets go of its files once done (%s)", async (_, options, left) => {
    await ws.put("b.txt", "one\n");
    await ws.ok("read", { path: "b.txt" });
    await ws.ok("write", { path: "b.txt", content: "two\n" });
    const id = ws.newest();
    await ws.put("b.txt", "changed by hand\n");
    await ws.engine.checkpoints.restore("s1", id, options);
    expect(await ws.text("b.txt")).toBe(left);
    const other = otherProcessClaims();
    try {
      const started = Date.now();
      const again = await other.claims.claim([ws.abs("b.txt")]);
      expect(again.release).toBeDefined();
      expect(Date.now() - started).toBeLessThan(1_000);
      again.release?.();
    } finally {
      other.close();
    }
  });
});
