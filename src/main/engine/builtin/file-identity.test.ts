import { chmod, chown, link, readdir, rename, stat, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FsCapability } from "../capability/fs-capability.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import {
  openCheckpointWorkspace,
  type CheckpointWorkspace,
} from "../../../../test/support/checkpoint-test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

// write and edit change a file's content, not which file it is: a file with other names (hard
// links) keeps them, a file keeps its owner and group, and a write-protected file is refused
// rather than replaced by renaming a new file over it (which its folder's permissions allow).

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await openTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const BEFORE = "alpha\nbeta\n";
const AFTER = "alpha\ngamma\n";

/** Each way of changing f.txt from BEFORE to AFTER. */
const CHANGES: { tool: string; args: Record<string, unknown> }[] = [
  { tool: "edit", args: { path: "f.txt", old_string: "beta", new_string: "gamma" } },
  { tool: "write", args: { path: "f.txt", content: AFTER } },
];

const asRoot = process.geteuid?.() === 0;

async function change(call: (typeof CHANGES)[number]): Promise<string | undefined> {
  outputOf(await ws.session.call("read", { path: "f.txt" }));
  const envelope = await ws.session.call(call.tool, call.args);
  return envelope.type === "error" ? envelope.error_text : undefined;
}

describe.each(CHANGES)("$tool keeps the file the same file", (call) => {
  it("a hard-linked file: every name sees the new content, and it stays one file", async () => {
    await ws.put("f.txt", BEFORE);
    await link(ws.abs("f.txt"), ws.abs("other-name.txt"));
    const inode = (await stat(ws.abs("f.txt"))).ino;
    expect(await change(call)).toBeUndefined();
    expect(await ws.text("f.txt")).toBe(AFTER);
    expect(await ws.text("other-name.txt")).toBe(AFTER);
    const after = await stat(ws.abs("f.txt"));
    expect(after.ino).toBe(inode);
    expect(after.nlink).toBe(2);
    expect(await ws.tree()).toEqual(["f.txt", "other-name.txt"]);
  });

  it.runIf(asRoot)("a file of another owner and group keeps them", async () => {
    await ws.put("f.txt", BEFORE);
    await chown(ws.abs("f.txt"), 65534, 65534);
    await chmod(ws.abs("f.txt"), 0o640);
    expect(await change(call)).toBeUndefined();
    expect(await ws.text("f.txt")).toBe(AFTER);
    const after = await stat(ws.abs("f.txt"));
    expect([after.uid, after.gid, after.mode & 0o7777]).toEqual([65534, 65534, 0o640]);
  });

  it.each([
    ["0444", 0o444],
    ["0400", 0o400],
    ["0555", 0o555],
  ])("a write-protected file (mode %s) is refused and left as it was", async (shown, mode) => {
    // Positive control: its folder lets a new file be renamed over such a file.
    await ws.put("control.txt", BEFORE);
    await chmod(ws.abs("control.txt"), mode);
    await writeFile(ws.abs("control.new"), AFTER);
    await rename(ws.abs("control.new"), ws.abs("control.txt"));
    expect(await ws.text("control.txt")).toBe(AFTER);

    await ws.put("f.txt", BEFORE);
    await chmod(ws.abs("f.txt"), mode);
    const before = await stat(ws.abs("f.txt"));
    const message = await change(call);
    expect(message).toContain(`f.txt is read-only (mode ${shown})`);
    expect(message).toContain("chmod u+w f.txt");
    expect(await ws.text("f.txt")).toBe(BEFORE);
    const after = await stat(ws.abs("f.txt"));
    expect([after.ino, after.mode, after.mtimeMs]).toEqual([before.ino, before.mode, before.mtimeMs]);
    expect(await readdir(ws.root)).toEqual(["control.txt", "f.txt"]);
  });
});

describe("a restore keeps the file the same file too", () => {
  let cw: CheckpointWorkspace;
  beforeEach(async () => {
    cw = await openCheckpointWorkspace();
  });
  afterEach(async () => {
    await cw.cleanup();
  });

  it.each(CHANGES)(
    "$tool, then a restore of its checkpoint brings the old content back under both names",
    async (call) => {
      await cw.put("f.txt", BEFORE);
      await link(cw.abs("f.txt"), cw.abs("other-name.txt"));
      await cw.ok("read", { path: "f.txt" });
      await cw.ok(call.tool, call.args);
      expect(await cw.text("other-name.txt")).toBe(AFTER);
      const restored = await cw.engine.checkpoints.restore("s1", cw.newest());
      expect(restored).toMatchObject({ applied: true, blocked: [] });
      expect(await cw.text("f.txt")).toBe(BEFORE);
      // The restore too keeps it one file.
      expect(await cw.text("other-name.txt")).toBe(BEFORE);
      expect((await stat(cw.abs("f.txt"))).nlink).toBe(2);
    },
  );

  it("restores a file whose name takes all 255 bytes a name may have", async () => {
    const name = `${"n".repeat(251)}.txt`;
    await cw.put(name, BEFORE);
    await cw.ok("read", { path: name });
    await cw.ok("write", { path: name, content: AFTER });
    expect(await cw.engine.checkpoints.restore("s1", cw.newest())).toMatchObject({
      applied: true,
      failed: [],
    });
    expect(await cw.text(name)).toBe(BEFORE);
    expect(await readdir(cw.root)).toEqual([name]);
  });

  it.runIf(asRoot).each(CHANGES)(
    "$tool, then a restore: the file keeps its owner and group",
    async (call) => {
      await cw.put("f.txt", BEFORE);
      await chown(cw.abs("f.txt"), 65534, 65534);
      await cw.ok("read", { path: "f.txt" });
      await cw.ok(call.tool, call.args);
      await cw.engine.checkpoints.restore("s1", cw.newest());
      expect(await cw.text("f.txt")).toBe(BEFORE);
      const after = await stat(cw.abs("f.txt"));
      expect([after.uid, after.gid]).toEqual([65534, 65534]);
    },
  );
});

it("edit refuses a read-only file without a read first, so no read is wasted on it", async () => {
  await ws.put("f.txt", BEFORE);
  await chmod(ws.abs("f.txt"), 0o444);
  const message = errorOf(
    await ws.session.call("edit", { path: "f.txt", old_string: "beta", new_string: "gamma" }),
  );
  expect(message).toContain("is read-only");
  expect(await ws.text("f.txt")).toBe(BEFORE);
});

describe("a change saved to the file while the call works on it is not overwritten", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Save `text` to f.txt the moment the tool is about to write it, as an editor might. */
  function saveJustBeforeTheWrite(text: string): void {
    const original = FsCapability.prototype.writeAtomic;
    vi.spyOn(FsCapability.prototype, "writeAtomic").mockImplementationOnce(async function (
      this: FsCapability,
      ...args: Parameters<FsCapability["writeAtomic"]>
    ) {
      await writeFile(ws.abs("f.txt"), text);
      return original.apply(this, args);
    });
  }

  it.each([
    ...CHANGES.map((call) => ({ name: `${call.tool}, a file of one name`, call, hardLinked: false })),
    ...CHANGES.map((call) => ({ name: `${call.tool}, a hard-linked file`, call, hardLinked: true })),
  ])("$name: refused, the saved text kept", async ({ call, hardLinked }) => {
    await ws.put("f.txt", BEFORE);
    if (hardLinked) await link(ws.abs("f.txt"), ws.abs("other-name.txt"));
    saveJustBeforeTheWrite("saved meanwhile\n");
    const message = await change(call);
    expect(message).toContain("f.txt changed on disk while the call was working on it");
    expect(message).toContain("Call read on f.txt again");
    expect(await ws.text("f.txt")).toBe("saved meanwhile\n");
    expect(await ws.tree()).toEqual(hardLinked ? ["f.txt", "other-name.txt"] : ["f.txt"]);
  });
});
