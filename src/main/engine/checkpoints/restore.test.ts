import { createHash } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rm, stat, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  openCheckpointWorkspace,
  useCheckpointWorkspace,
  type CheckpointWorkspace,
} from "../../../../test/support/checkpoint-test-workspace.ts";
import { NOT_REACHED } from "./not-reached.ts";

// Restoring one checkpoint on real files: previews, deletions of created files, recreations of
// deleted ones, conflicts with what the person changed since, force and per-file choices, and
// the undo checkpoint every restore leaves behind.

let ws: CheckpointWorkspace;
useCheckpointWorkspace((opened) => {
  ws = opened;
});

const newest = (): number => ws.newest();

describe("restore one checkpoint", () => {
  it("puts an overwritten file back, previewing first without touching anything", async () => {
    await ws.put("a.txt", "original\n");
    await ws.ok("read", { path: "a.txt" });
    await ws.ok("write", { path: "a.txt", content: "rewritten\n" });
    const id = newest();
    const plan = await ws.engine.checkpoints.previewRestore("s1", id);
    expect(plan).toEqual({ checkpoints: [id], paths: [{ path: "a.txt", type: "file", action: "restore" }] });
    expect(await ws.text("a.txt")).toBe("rewritten\n");
    const outcome = await ws.engine.checkpoints.restore("s1", id);
    expect(outcome).toMatchObject({ applied: true, blocked: [], failed: [], skipped: [] });
    expect(await ws.text("a.txt")).toBe("original\n");
    expect(ws.engine.checkpoints.list("s1").find((c) => c.id === id)?.restoredBy).toBe(
      outcome.undoCheckpoint,
    );
  });

  it("deletes a file the call created, and the folders it created for it", async () => {
    await ws.put("docs/keep.md", "kept\n");
    await ws.ok("write", { path: "docs/new/deep/file.md", content: "x\n" });
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths).toEqual([
      { path: "docs/new", type: "folder", action: "delete" },
      { path: "docs/new/deep", type: "folder", action: "delete" },
      { path: "docs/new/deep/file.md", type: "file", action: "delete" },
    ]);
    await ws.engine.checkpoints.restore("s1", newest());
    expect(await ws.exists("docs/new")).toBe(false);
    expect(await ws.text("docs/keep.md")).toBe("kept\n");
  });

  it("leaves a created folder that now holds someone else's file, and says so", async () => {
    await ws.ok("write", { path: "out/report.txt", content: "r\n" });
    await ws.put("out/mine.txt", "the person's\n");
    const outcome = await ws.engine.checkpoints.restore("s1", newest());
    expect(outcome.applied).toBe(true);
    expect(await ws.exists("out/report.txt")).toBe(false);
    expect(await ws.text("out/mine.txt")).toBe("the person's\n");
    expect(outcome.skipped).toEqual([{ path: "out", reason: expect.stringContaining("not empty") }]);
  });

  it("recreates files a command deleted, binary content and mode included", async () => {
    await ws.put("bin/tool.sh", "#!/bin/sh\necho hi\n");
    await chmod(ws.abs("bin/tool.sh"), 0o755);
    await ws.put("blob.dat", Buffer.from([0, 255, 1, 254]));
    await ws.ok("bash", { command: "rm -r bin blob.dat" });
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths.map((p) => [p.path, p.action])).toEqual([
      ["bin/tool.sh", "recreate"],
      ["blob.dat", "recreate"],
    ]);
    await ws.engine.checkpoints.restore("s1", newest());
    expect(await ws.text("bin/tool.sh")).toBe("#!/bin/sh\necho hi\n");
    expect((await stat(ws.abs("bin/tool.sh"))).mode & 0o777).toBe(0o755);
    expect([...(await readFile(ws.abs("blob.dat")))]).toEqual([0, 255, 1, 254]);
  });

  it.each([
    ["chmod 600", 0o755, 0o600],
    ["chmod +x", 0o644, 0o755],
    ["chmod u+s,g-r", 0o750, 0o4710],
  ])(
    "records a command's `%s` that changed only permission bits, and puts them back",
    async (command, before, after) => {
      await ws.put("run.sh", "#!/bin/sh\necho hi\n");
      await chmod(ws.abs("run.sh"), before);
      await ws.ok("bash", { command: `${command} run.sh` });
      expect((await stat(ws.abs("run.sh"))).mode & 0o7777).toBe(after);
      const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
      expect(plan.paths).toEqual([{ path: "run.sh", type: "file", action: "restore" }]);
      await ws.engine.checkpoints.restore("s1", newest());
      expect((await stat(ws.abs("run.sh"))).mode & 0o7777).toBe(before);
      expect(await ws.text("run.sh")).toBe("#!/bin/sh\necho hi\n");
    },
  );

  it("a file the person changed since is a conflict: nothing is overwritten without a decision", async () => {
    await ws.put("a.txt", "v1\n");
    await ws.put("b.txt", "b1\n");
    await ws.ok("bash", { command: "echo v2 > a.txt && echo b2 > b.txt" });
    const id = newest();
    await writeFile(ws.abs("a.txt"), "v3 typed by the person\n");
    const plan = await ws.engine.checkpoints.previewRestore("s1", id);
    expect(plan.paths).toEqual([
      {
        path: "a.txt",
        type: "file",
        action: "restore",
        conflict: "it was changed since, outside this session's tools (by you or another program)",
      },
      { path: "b.txt", type: "file", action: "restore" },
    ]);
    const refused = await ws.engine.checkpoints.restore("s1", id);
    expect(refused).toMatchObject({ applied: false, undoCheckpoint: null });
    expect(refused.blocked.map((p) => p.path)).toEqual(["a.txt"]);
    expect(await ws.text("a.txt")).toBe("v3 typed by the person\n");
    expect(await ws.text("b.txt")).toBe("b2\n");
  });

  it("names the later checkpoint that changed a conflicting file", async () => {
    await ws.put("a.txt", "v1\n");
    await ws.ok("bash", { command: "echo v2 > a.txt" });
    const first = newest();
    await ws.ok("bash", { command: "echo v3 > a.txt" });
    const plan = await ws.engine.checkpoints.previewRestore("s1", first);
    expect(plan.paths[0]?.conflict).toBe(`it was changed since, by checkpoint ${newest()} (bash)`);
  });

  it.each(["write", "bash"])(
    "names another session's %s that changed the file since, rather than blame the person",
    async (tool) => {
      await ws.put("a.txt", "v1\n");
      await ws.ok("read", { path: "a.txt" });
      await ws.ok("write", { path: "a.txt", content: "v2 by s1\n" });
      const mine = newest();
      const other = await ws.engine.openSession({ id: "s2", mode: "yolo" });
      await other.call("read", { path: "a.txt" });
      const changed =
        tool === "write"
          ? await other.call("write", { path: "a.txt", content: "v3 by s2\n" })
          : await other.call("bash", { command: "echo v3 by s2 > a.txt" });
      expect(changed.type).toBe("output");
      const theirs = ws.engine.checkpoints.list("s2").at(-1)?.id;
      const plan = await ws.engine.checkpoints.previewRestore("s1", mine);
      expect(plan.paths[0]?.conflict).toBe(
        `it was changed since, by checkpoint ${theirs} (${tool}) of session s2`,
      );
      await other.close();
    },
  );

  it("a per-file choice keeps one conflicting file and restores the rest", async () => {
    await ws.put("a.txt", "a1\n");
    await ws.put("b.txt", "b1\n");
    await ws.ok("bash", { command: "echo a2 > a.txt && echo b2 > b.txt" });
    await writeFile(ws.abs("a.txt"), "a-person\n");
    await writeFile(ws.abs("b.txt"), "b-person\n");
    const outcome = await ws.engine.checkpoints.restore("s1", newest(), {
      choices: { "a.txt": "keep", "b.txt": "overwrite" },
    });
    expect(outcome).toMatchObject({
      applied: true,
      skipped: [{ path: "a.txt", reason: "kept as it is, as chosen" }],
    });
    expect(await ws.text("a.txt")).toBe("a-person\n");
    expect(await ws.text("b.txt")).toBe("b1\n");
  });

  it("force overwrites the person's change, which the undo checkpoint keeps; restoring that brings it back", async () => {
    await ws.put("a.txt", "v1\n");
    await ws.ok("bash", { command: "echo v2 > a.txt" });
    await writeFile(ws.abs("a.txt"), "precious edit\n");
    const outcome = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
    expect(await ws.text("a.txt")).toBe("v1\n");
    const undo = outcome.undoCheckpoint as number;
    expect(ws.engine.checkpoints.list("s1").find((c) => c.id === undo)).toMatchObject({
      kind: "restore",
      tool: "restore",
      undoes: [newest() - 1],
      files: [{ path: "a.txt", type: "file", change: "modified" }],
    });
    await ws.engine.checkpoints.restore("s1", undo);
    expect(await ws.text("a.txt")).toBe("precious edit\n");
  });

  it("a file whose previous content was not kept is reported as unavailable; force restores the rest", async () => {
    await ws.cleanup();
    ws = await openCheckpointWorkspace({ limits: { maxFileBytes: 100 } });
    await ws.put("big.txt", "b".repeat(500));
    await ws.put("small.txt", "s1\n");
    await ws.ok("bash", { command: "echo x > big.txt && echo s2 > small.txt" });
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths[0]).toMatchObject({
      path: "big.txt",
      unavailable: expect.stringContaining("not kept"),
    });
    expect((await ws.engine.checkpoints.restore("s1", newest())).applied).toBe(false);
    expect(await ws.text("small.txt")).toBe("s2\n");
    const forced = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
    expect(forced.skipped.map((s) => s.path)).toEqual(["big.txt"]);
    expect(await ws.text("small.txt")).toBe("s1\n");
    expect(await ws.text("big.txt")).toBe("x\n");
  });

  it("refuses to write through a folder that became a symlink, even with force", async () => {
    const outside = path.join(path.dirname(ws.root), "outside");
    await mkdir(outside);
    await ws.put("sub/f.txt", "one\n");
    await ws.ok("bash", { command: "rm -r sub" });
    await symlink(outside, ws.abs("sub"));
    // Seen at the preview already: nothing is read or written through it, even when forced.
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths.find((p) => p.path === "sub/f.txt")?.unavailable).toMatch(/symbolic link/);
    const outcome = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
    expect(outcome.failed).toEqual([]);
    expect(outcome.skipped).toContainEqual({
      path: "sub/f.txt",
      reason: expect.stringContaining("symbolic link"),
    });
    await expect(stat(path.join(outside, "f.txt"))).rejects.toThrow();
  });

  it("unknown ids, other sessions and missing sessions are clear errors", async () => {
    await ws.ok("write", { path: "x.txt", content: "x" });
    await expect(ws.engine.checkpoints.restore("s1", 999)).rejects.toThrow(
      "Session s1 has no checkpoint 999. List its checkpoints with: lathe checkpoints --session s1",
    );
    await ws.engine.openSession({ id: "other", mode: "yolo" });
    await expect(ws.engine.checkpoints.restore("other", newest())).rejects.toThrow(
      "Session other has no checkpoint",
    );
    expect(() => ws.engine.checkpoints.list("nope")).toThrow('There is no session "nope"');
  });
});

describe("garbage collection", () => {
  it("closing a session keeps its checkpoints; deleting it removes them and the blobs only it needed", async () => {
    await ws.put("a.txt", "shared content\n");
    await ws.put("b.txt", "only s1\n");
    await ws.ok("bash", { command: "echo 2 > a.txt && echo 2 > b.txt" });
    const other = await ws.engine.openSession({ id: "s2", mode: "yolo" });
    await ws.put("c.txt", "shared content\n");
    await other.call("read", { path: "c.txt" });
    await other.call("write", { path: "c.txt", content: "changed\n" });
    expect((await ws.blobFiles()).length).toBeGreaterThanOrEqual(2);

    await ws.session.close();
    expect(ws.engine.checkpoints.list("s1")).toHaveLength(1);
    await ws.engine.checkpoints.restore("s1", ws.engine.checkpoints.list("s1")[0]?.id as number);
    expect(await ws.text("b.txt")).toBe("only s1\n");

    await ws.engine.deleteSession("s1");
    expect(() => ws.engine.checkpoints.list("s1")).toThrow('There is no session "s1"');
    const left = await Promise.all((await ws.blobFiles()).map((f) => readFile(f, "utf8")));
    expect(left).toEqual(["shared content\n"]);
    await other.close();
  });
});

describe("a checkpoint whose kept content was lost from the store", () => {
  // The blob of f3.txt's previous content, as the person might find it: removed by hand,
  // cut short by a full disk, or overwritten with other bytes of the same length.
  const damage: Array<[string, (file: string) => Promise<void>]> = [
    ["removed", (file) => rm(file)],
    ["truncated", (file) => truncate(file, 3)],
    ["overwritten", (file) => writeFile(file, "ORIG 3\n")],
  ];

  it.each(damage)(
    "its blob %s: the preview names the file, and the restore changes nothing without --force",
    async (_what, spoil) => {
      for (let i = 1; i <= 5; i++) await ws.put(`f${i}.txt`, `orig ${i}\n`);
      await ws.ok("bash", {
        command: "echo c1 > f1.txt; echo c2 > f2.txt; echo c3 > f3.txt; echo c4 > f4.txt; echo c5 > f5.txt",
      });
      const hash = createHash("sha256").update("orig 3\n").digest("hex");
      await spoil(path.join(ws.home, "checkpoints", "blobs", hash.slice(0, 2), hash.slice(2)));

      const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
      expect(plan.paths.find((p) => p.path === "f3.txt")?.unavailable).toMatch(
        /previous content is missing or damaged in the checkpoint store/,
      );
      expect(plan.paths.filter((p) => p.unavailable !== undefined).map((p) => p.path)).toEqual(["f3.txt"]);

      const refused = await ws.engine.checkpoints.restore("s1", newest());
      expect(refused.applied).toBe(false);
      expect(refused.blocked.map((p) => p.path)).toEqual(["f3.txt"]);
      for (let i = 1; i <= 5; i++) expect(await ws.text(`f${i}.txt`)).toBe(`c${i}\n`);

      const forced = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
      expect(forced).toMatchObject({ applied: true, failed: [] });
      expect(forced.skipped).toEqual([
        { path: "f3.txt", reason: expect.stringMatching(/missing or damaged/) },
      ]);
      expect(await ws.text("f3.txt")).toBe("c3\n");
      for (const i of [1, 2, 4, 5]) expect(await ws.text(`f${i}.txt`)).toBe(`orig ${i}\n`);
    },
  );
});

describe("a restore stopped halfway (Ctrl-C)", () => {
  /** A signal that reads as aborted from its `checks + 1`th look on: a stop at a set point of the work. */
  function stopsAfter(checks: number): AbortSignal {
    let looks = 0;
    return {
      get aborted() {
        looks += 1;
        return looks > checks;
      },
      reason: new Error("interrupted (SIGINT)"),
    } as unknown as AbortSignal;
  }

  it("stops between two files, says which were not reached, and the same restore finishes the rest", async () => {
    for (let i = 1; i <= 6; i++) await ws.put(`f${i}.txt`, `orig ${i}\n`);
    await ws.ok("bash", { command: "rm f1.txt f2.txt f3.txt f4.txt f5.txt f6.txt" });
    const id = newest();

    // One look before anything is kept, one per file while keeping what is there, then one per
    // file while writing: 1 + 6 + 2 lets two files through.
    const outcome = await ws.engine.checkpoints.restore("s1", id, { signal: stopsAfter(9) });
    expect(outcome).toMatchObject({ applied: true, stopped: "interrupted (SIGINT)" });
    const reached = [];
    for (let i = 1; i <= 6; i++)
      if ((await ws.text(`f${i}.txt`)) === `orig ${i}\n`) reached.push(`f${i}.txt`);
    expect(reached).toEqual(["f1.txt", "f2.txt"]);
    expect(outcome.failed).toEqual(
      ["f3.txt", "f4.txt", "f5.txt", "f6.txt"].map((p) => ({ path: p, reason: NOT_REACHED })),
    );
    for (const p of ["f3.txt", "f4.txt", "f5.txt", "f6.txt"]) expect(await ws.exists(p)).toBe(false);
    expect((await readdir(ws.root)).filter((n) => n.includes("lathe-restore"))).toEqual([]);
    expect(ws.engine.checkpoints.list("s1").find((c) => c.id === id)?.restoredBy).toBeNull();

    const again = await ws.engine.checkpoints.restore("s1", id);
    expect(again).toMatchObject({ applied: true, failed: [], blocked: [] });
    for (let i = 1; i <= 6; i++) expect(await ws.text(`f${i}.txt`)).toBe(`orig ${i}\n`);
    expect(ws.engine.checkpoints.list("s1").find((c) => c.id === id)?.restoredBy).toBe(again.undoCheckpoint);
  });

  it("stopped before it writes, it changes nothing and says so", async () => {
    await ws.put("a.txt", "orig\n");
    await ws.ok("bash", { command: "echo changed > a.txt" });
    const controller = new AbortController();
    controller.abort(new Error("terminated (SIGTERM)"));
    await expect(
      ws.engine.checkpoints.restore("s1", newest(), { signal: controller.signal }),
    ).rejects.toThrow("Stopped (terminated (SIGTERM)) before anything was changed.");
    expect(await ws.text("a.txt")).toBe("changed\n");
    expect(ws.engine.checkpoints.list("s1")).toHaveLength(1);
  });
});

describe("a command that turned a file into a folder, or a folder into a file", () => {
  it.each([
    {
      what: "a file became a folder",
      arrange: async () => ws.put("f", "the person's notes\n"),
      command: "rm f && mkdir -p f/sub && echo new > f/sub/y",
      listed: { path: "f", type: "file", change: "modified", became: "folder" },
      undoListed: { path: "f", type: "file", change: "modified", became: "file" },
      actions: [
        ["f", "restore"],
        ["f/sub", "delete"],
        ["f/sub/y", "delete"],
      ],
      check: async () => {
        expect((await stat(ws.abs("f"))).isFile()).toBe(true);
        expect(await ws.text("f")).toBe("the person's notes\n");
      },
    },
    {
      what: "a folder became a file",
      arrange: async () => {
        await ws.put("d/x", "inside\n");
        await ws.put("d/sub/z", "deeper\n");
      },
      command: "rm -r d && echo file > d",
      listed: { path: "d", type: "file", change: "modified", became: "file" },
      undoListed: { path: "d", type: "file", change: "modified", became: "folder" },
      actions: [
        ["d", "restore"],
        ["d/sub/z", "recreate"],
        ["d/x", "recreate"],
      ],
      check: async () => {
        expect((await stat(ws.abs("d"))).isDirectory()).toBe(true);
        expect(await ws.text("d/x")).toBe("inside\n");
        expect(await ws.text("d/sub/z")).toBe("deeper\n");
      },
    },
  ])("$what: the restore brings back what was there, and undoing it brings back the change", async (c) => {
    await c.arrange();
    await ws.ok("bash", { command: c.command });
    const changed = await snapshotOf(ws.root);
    // The listing says what happened to the path, not just that it was "modified".
    const listed = (id: number) =>
      ws.engine.checkpoints
        .list("s1")
        .find((x) => x.id === id)
        ?.files.find((f) => f.path === c.listed.path);
    expect(listed(newest())).toEqual(c.listed);
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths.map((p) => [p.path, p.action])).toEqual(c.actions);
    expect(plan.paths.filter((p) => p.unavailable !== undefined || p.conflict !== undefined)).toEqual([]);

    const outcome = await ws.engine.checkpoints.restore("s1", newest());
    expect(outcome).toMatchObject({ applied: true, failed: [], skipped: [], blocked: [] });
    await c.check();
    expect(listed(outcome.undoCheckpoint as number)).toEqual(c.undoListed);

    const undo = await ws.engine.checkpoints.restore("s1", outcome.undoCheckpoint as number);
    expect(undo).toMatchObject({ applied: true, failed: [], skipped: [], blocked: [] });
    expect(await snapshotOf(ws.root)).toEqual(changed);
  });

  it("a file that became a folder the person then put a file in: that file is named, and never removed", async () => {
    await ws.put("f", "orig\n");
    await ws.ok("bash", { command: "rm f && mkdir f && echo new > f/y" });
    await ws.put("f/mine.txt", "the person's\n");
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths.find((p) => p.path === "f")?.unavailable).toMatch(
      /it is now a folder holding what the change did not create \(f\/mine\.txt\); move that away first/,
    );
    const forced = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
    expect(forced).toMatchObject({ applied: true, failed: [] });
    expect(await ws.text("f/mine.txt")).toBe("the person's\n");
    expect(await ws.exists("f/y")).toBe(false);
  });
});

/** Every path under `dir` with what it is: "folder", or a file's text. */
async function snapshotOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, full);
    if (relative.startsWith(".lathe")) continue;
    out[relative] = entry.isDirectory() ? "folder" : await readFile(full, "utf8");
  }
  return out;
}

describe("a folder on the way to a file replaced by a file since", () => {
  it.each([
    ["the file's own folder", "d/x", "d"],
    ["a folder further up", "d/e/x", "d"],
  ])(
    "%s: the preview names it, and nothing is changed or half done, even with force",
    async (_what, file, blocker) => {
      await ws.put(file, "x1\n");
      await ws.ok("bash", { command: `echo x2 > ${file}` });
      await rm(ws.abs(blocker), { recursive: true });
      await writeFile(ws.abs(blocker), "a file now\n");
      const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
      expect(plan.paths.find((p) => p.path === file)?.unavailable).toBe(
        `${blocker} is a file now, where a folder on the way to it was; move that file away first`,
      );
      const forced = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
      expect(forced).toMatchObject({ applied: true, failed: [], undoCheckpoint: null });
      expect(forced.skipped.map((s) => s.path)).toEqual([file]);
      expect(await ws.text(blocker)).toBe("a file now\n");
    },
  );
});

describe("a symbolic link where a checkpoint saw a file go", () => {
  it("made by the call itself (rm a && ln -s b a): the conflict says links are not tracked, rather than blame the person", async () => {
    await ws.put("a", "A\n");
    await ws.put("b", "B\n");
    await ws.ok("bash", { command: "rm a && ln -s b a" });
    const plan = await ws.engine.checkpoints.previewRestore("s1", newest());
    expect(plan.paths).toEqual([
      {
        path: "a",
        type: "file",
        action: "restore",
        conflict:
          "it is a symbolic link now, which checkpoints do not track, so Lathe cannot tell whether the bash call or something else made it",
      },
    ]);
    const forced = await ws.engine.checkpoints.restore("s1", newest(), { force: true });
    expect(forced).toMatchObject({ applied: true, failed: [] });
    expect(await ws.text("a")).toBe("A\n");
    expect(await ws.text("b")).toBe("B\n");
  });
});
