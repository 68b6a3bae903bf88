import { appendFile, chmod, link, readFile, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "./checkpoint-store.ts";
import {
  openCheckpointWorkspace,
  useCheckpointWorkspace,
  type CheckpointWorkspace,
} from "../../../../test/support/checkpoint-test-workspace.ts";
import { makeTooDeepFolder } from "../../../../test/support/too-deep-folder.ts";

// Every successful write, edit and bash call that changed files records one checkpoint with the
// files' previous contents (in the blob store under LATHE_HOME), on real files in a temp folder.

let ws: CheckpointWorkspace;
useCheckpointWorkspace((opened) => {
  ws = opened;
});

function checkpoints(): Checkpoint[] {
  return ws.engine.checkpoints.list("s1").map((c) => ws.engine.checkpoints.get("s1", c.id));
}

async function blobText(hash: string | null): Promise<string | undefined> {
  if (hash === null) return undefined;
  return (await ws.engine.checkpoints.blobs.read(hash))?.toString("utf8");
}

describe("write and edit", () => {
  it("a new file in a new folder: recorded as absent before, with the folders the write created", async () => {
    await ws.ok("write", { path: "docs/notes/today.md", content: "hello\n" });
    const [cp] = checkpoints();
    expect(cp).toMatchObject({ kind: "tool", tool: "write", sessionId: "s1", restoredBy: null });
    expect(cp?.entries).toEqual([
      { path: "docs", type: "folder", before: { exists: false }, after: { exists: true, hash: null } },
      { path: "docs/notes", type: "folder", before: { exists: false }, after: { exists: true, hash: null } },
      {
        path: "docs/notes/today.md",
        type: "file",
        before: { exists: false },
        after: {
          exists: true,
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          mode: (await stat(ws.abs("docs/notes/today.md"))).mode & 0o7777,
        },
      },
    ]);
  });

  it("an overwrite keeps the previous content and mode; the after side is the new content's hash and the mode it left", async () => {
    await ws.put("run.sh", "echo old\n");
    await chmod(ws.abs("run.sh"), 0o750);
    await ws.ok("read", { path: "run.sh" });
    await ws.ok("write", { path: "run.sh", content: "echo new\n" });
    const [cp] = checkpoints();
    const entry = cp?.entries[0];
    expect(entry?.path).toBe("run.sh");
    expect(entry?.before).toMatchObject({ exists: true, mode: 0o750 });
    expect(await blobText(entry?.before.exists ? entry.before.hash : null)).toBe("echo old\n");
    const { createHash } = await import("node:crypto");
    expect(entry?.after).toEqual({
      exists: true,
      hash: createHash("sha256").update("echo new\n").digest("hex"),
      mode: 0o750,
    });
  });

  it("edit records one checkpoint per successful call, each with the content it replaced", async () => {
    await ws.put("a.txt", "one two three\n");
    await ws.ok("read", { path: "a.txt" });
    await ws.ok("edit", { path: "a.txt", old_string: "two", new_string: "2" });
    await ws.ok("edit", { path: "a.txt", old_string: "three", new_string: "3" });
    const list = checkpoints();
    expect(list.map((c) => c.tool)).toEqual(["edit", "edit"]);
    const befores = await Promise.all(
      list.map((c) => blobText(c.entries[0]?.before.exists ? c.entries[0].before.hash : null)),
    );
    expect(befores).toEqual(["one two three\n", "one 2 three\n"]);
  });

  it("failed calls and calls that change nothing record no checkpoint", async () => {
    await ws.put("keep.txt", "original\n");
    // Not read first: refused, file untouched.
    expect((await ws.session.call("write", { path: "keep.txt", content: "x" })).type).toBe("error");
    expect(
      (await ws.session.call("edit", { path: "missing.txt", old_string: "a", new_string: "b" })).type,
    ).toBe("error");
    await ws.ok("read", { path: "keep.txt" });
    await ws.ok("write", { path: "keep.txt", content: "original\n" }); // same bytes
    await ws.ok("glob", { pattern: "**/*" });
    expect(ws.engine.checkpoints.list("s1")).toEqual([]);
  });

  it("links a call made by a model to its tool call id", async () => {
    await ws.session.call("write", { path: "m.txt", content: "x" }, { correlationId: "call_42" });
    expect(ws.engine.checkpoints.list("s1")[0]).toMatchObject({ toolCallId: "call_42", tool: "write" });
  });

  it("ephemeral sessions and an engine with checkpoints off record none", async () => {
    const ephemeral = await ws.engine.openSession({ mode: "yolo" });
    expect((await ephemeral.call("write", { path: "e.txt", content: "x" })).type).toBe("output");
    await ephemeral.close();
    expect(ws.engine.checkpoints.list("s1")).toEqual([]);
    expect(await ws.blobFiles()).toEqual([]);
  });
});

describe("bash", () => {
  it("records created, modified and deleted files with their previous contents, binary included", async () => {
    await ws.put("edit-me.txt", "before\n");
    await ws.put("delete-me.bin", Buffer.from([0, 1, 2, 255, 0, 7]));
    await ws.put("untouched.txt", "same\n");
    await ws.ok("bash", {
      command:
        "echo after > edit-me.txt && rm delete-me.bin && mkdir -p new/dir && printf 'x\\0y' > new/dir/made.bin",
    });
    const [cp] = checkpoints();
    expect(cp?.tool).toBe("bash");
    const byPath = Object.fromEntries(cp?.entries.map((e) => [e.path, e]) ?? []);
    expect(Object.keys(byPath).sort()).toEqual([
      "delete-me.bin",
      "edit-me.txt",
      "new",
      "new/dir",
      "new/dir/made.bin",
    ]);
    expect(byPath["new"]).toMatchObject({ type: "folder", before: { exists: false } });
    expect(byPath["new/dir/made.bin"]).toMatchObject({
      type: "file",
      before: { exists: false },
      after: { exists: true },
    });
    expect(byPath["delete-me.bin"]).toMatchObject({ before: { exists: true }, after: { exists: false } });
    const deleted = byPath["delete-me.bin"]?.before;
    const bytes =
      deleted?.exists && deleted.hash ? await ws.engine.checkpoints.blobs.read(deleted.hash) : undefined;
    expect([...(bytes ?? [])]).toEqual([0, 1, 2, 255, 0, 7]);
    const edited = byPath["edit-me.txt"]?.before;
    expect(await blobText(edited?.exists ? edited.hash : null)).toBe("before\n");
  });

  it("a command that changes nothing records nothing; ignored paths and symlinks are not tracked", async () => {
    await ws.put(".gitignore", "build/\n");
    await ws.put("src/a.txt", "a\n");
    await symlink("src/a.txt", ws.abs("link.txt"));
    await ws.ok("bash", { command: "cat src/a.txt && ls" });
    expect(ws.engine.checkpoints.list("s1")).toEqual([]);
    await ws.ok("bash", { command: "mkdir -p build && echo out > build/x.o" });
    expect(ws.engine.checkpoints.list("s1")).toEqual([]);
  });

  it("runs and records its changes beside a folder deeper than a path may be (PATH_MAX), leaving that folder out", async () => {
    const deep = await makeTooDeepFolder(ws.root);
    try {
      // The control: nothing can open it by its path.
      await expect(stat(deep.deepFile)).rejects.toMatchObject({ code: "ENAMETOOLONG" });
      await ws.ok("bash", { command: "echo hi > new.txt" });
      expect(
        checkpoints().map((c) => c.entries.map((e) => [e.path, e.before.exists, e.after.exists])),
      ).toEqual([[["new.txt", false, true]]]);
    } finally {
      await deep.remove();
    }
  });

  it("a change the person made between calls is kept as the previous content of the next command", async () => {
    await ws.put("notes.txt", "v1\n");
    await ws.ok("bash", { command: "true" });
    await ws.put("notes.txt", "v2 by the person\n");
    await ws.ok("bash", { command: "echo v3 > notes.txt" });
    const [cp] = checkpoints();
    const before = cp?.entries[0]?.before;
    expect(await blobText(before?.exists ? before.hash : null)).toBe("v2 by the person\n");
  });

  it("a file above the size limit is tracked but its content is not kept, and the checkpoint says so", async () => {
    await ws.cleanup();
    ws = await openCheckpointWorkspace({ limits: { maxFileBytes: 1000 } });
    await ws.put("big.log", "x".repeat(5000));
    await ws.put("small.txt", "s\n");
    await ws.ok("bash", { command: "echo more >> big.log && echo t > small.txt" });
    const [cp] = checkpoints();
    const big = cp?.entries.find((e) => e.path === "big.log");
    expect(big?.before).toEqual({ exists: true, hash: null, mode: expect.any(Number) });
    expect(big?.note).toMatch(/not kept: 4\.9 KB is above the 1000 bytes limit/);
    const small = cp?.entries.find((e) => e.path === "small.txt")?.before;
    expect(await blobText(small?.exists ? small.hash : null)).toBe("s\n");
  });

  it.each([
    [8 * 1024 * 1024 + 1, 8 * 1024 * 1024, "8,388,609 bytes is above the 8 MB (8,388,608 bytes) limit"],
    [1001, 1000, "1001 bytes is above the 1000 bytes limit"],
    [1536, 1025, "1.5 KB is above the 1 KB limit"],
  ])(
    "a file of %i bytes over a limit of %i says by how much, however close: %s",
    async (size, limit, says) => {
      await ws.cleanup();
      ws = await openCheckpointWorkspace({ limits: { maxFileBytes: limit } });
      await ws.put("big.bin", Buffer.alloc(size, 0x61));
      await ws.ok("bash", { command: "echo x > big.bin" });
      const big = checkpoints()[0]?.entries.find((e) => e.path === "big.bin");
      expect(big?.note).toBe(`its previous content was not kept: ${says}`);
    },
  );

  it("a workspace with more files than the limit is not scanned, and the host is told", async () => {
    await ws.cleanup();
    ws = await openCheckpointWorkspace({ limits: { maxFiles: 3 } });
    for (const name of ["a", "b", "c", "d"]) await ws.put(`${name}.txt`, name);
    const skipped: string[] = [];
    ws.engine.events.on("CheckpointSkipped", (e) => skipped.push(e.reason));
    await ws.ok("bash", { command: "echo z > a.txt" });
    expect(await ws.text("a.txt")).toBe("z\n");
    expect(ws.engine.checkpoints.list("s1")).toEqual([]);
    expect(skipped).toEqual([expect.stringContaining("more than 3 files and folders")]);
  });

  it("a command that fails after changing files still records them", async () => {
    await ws.put("half.txt", "old\n");
    const envelope = await ws.ok("bash", { command: "echo new > half.txt; exit 3" });
    expect(envelope).toMatchObject({ data: { exit_code: 3 } });
    expect(checkpoints()[0]?.entries.map((e) => e.path)).toEqual(["half.txt"]);
  });

  it("keeps Lathe's own data out of the scan when LATHE_HOME lies inside the workspace", async () => {
    await ws.cleanup();
    const { mkdtemp, mkdir } = await import("node:fs/promises");
    const os = await import("node:os");
    const path = await import("node:path");
    const { Engine } = await import("../engine.ts");
    const base = await mkdtemp(path.join(os.tmpdir(), "lathe-checkpoints-inner-"));
    await mkdir(path.join(base, "ws"));
    const engine = await Engine.create({
      root: path.join(base, "ws"),
      latheHome: path.join(base, "ws", ".lathe-home"),
      extensions: false,
    });
    const session = await engine.openSession({ id: "inner", mode: "yolo" });
    await session.call("write", { path: "a.txt", content: "1" });
    await session.call("bash", { command: "echo 2 > b.txt" });
    const paths = engine.checkpoints.list("inner").flatMap((c) => c.files.map((f) => f.path));
    expect(paths).toEqual(["a.txt", "b.txt"]);
    await engine.close();
    ws = await openCheckpointWorkspace();
    await (await import("node:fs/promises")).rm(base, { recursive: true, force: true });
  });
});

describe("blob storage", () => {
  it("stores each distinct content once, in a folder only the user may enter", async () => {
    const content = "same content\n".repeat(100);
    for (const name of ["a", "b", "c"]) await ws.put(`${name}.txt`, content);
    for (const name of ["a", "b", "c"]) {
      await ws.ok("read", { path: `${name}.txt` });
      await ws.ok("write", { path: `${name}.txt`, content: `new ${name}\n` });
    }
    expect(checkpoints()).toHaveLength(3);
    const blobs = await ws.blobFiles();
    expect(blobs).toHaveLength(1);
    expect(await readFile(blobs[0] as string, "utf8")).toBe(content);
    const store = path.join(ws.engine.latheHome, "checkpoints");
    for (const dir of [store, path.join(store, "blobs"), path.dirname(blobs[0] as string)])
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it("keeps the file a write replaces by a hard link, not a copy", async () => {
    await ws.put("big.txt", "x".repeat(100_000));
    const original = (await stat(ws.abs("big.txt"))).ino;
    await ws.ok("read", { path: "big.txt" });
    await ws.ok("write", { path: "big.txt", content: "small\n" });
    const [blob] = await ws.blobFiles();
    expect((await stat(blob as string)).ino).toBe(original);
    expect((await stat(ws.abs("big.txt"))).ino).not.toBe(original);
  });

  it("copies a file that has other names, so changing it through them cannot alter the checkpoint", async () => {
    await ws.put("a.txt", "shared inode\n");
    await link(ws.abs("a.txt"), ws.abs("alias.txt"));
    await ws.ok("read", { path: "a.txt" });
    await ws.ok("write", { path: "a.txt", content: "replaced\n" });
    // The write changed the file itself (both names), so the change below is one to a.txt too.
    await appendFile(ws.abs("alias.txt"), "changed through the other name\n");
    expect(await ws.text("a.txt")).toBe("replaced\nchanged through the other name\n");
    await ws.engine.checkpoints.restore("s1", checkpoints()[0]!.id, { force: true });
    expect(await ws.text("a.txt")).toBe("shared inode\n");
  });
});
