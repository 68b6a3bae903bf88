import { chmod, stat, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  useCheckpointWorkspace,
  type CheckpointWorkspace,
} from "../../../../test/support/checkpoint-test-workspace.ts";

// A person's chmod after a tool call is a change since, like an edit: a checkpoint records the
// permission bits each call left a file with, and a restore that would put other bits back over
// a later chmod lists it as a conflict, refuses it without force or a choice, and with force
// restores the old bits (the person's are kept in the undo checkpoint).

let ws: CheckpointWorkspace;
useCheckpointWorkspace((opened) => {
  ws = opened;
});

const newest = (): number => ws.newest();

async function modeOf(relative: string): Promise<number> {
  return (await stat(ws.abs(relative))).mode & 0o7777;
}

const SCRIPT = "#!/bin/sh\necho hi\n";

interface Row {
  name: string;
  /** The file's mode before the tool call. */
  start: number;
  /** The tool call, on run.sh (its content is SCRIPT before). */
  call: [tool: string, args: unknown];
  /** What the call leaves: its content. */
  leftContent: string;
  /** The person's change after the call: a new mode, and new content when set. */
  person: { mode: number; content?: string };
  conflict: string;
  /** The plan says the change since is of the mode alone (the app's badge reads "mode changed since"). */
  modeOnly?: true;
}

const OUTSIDE = "outside this session's tools (by you or another program)";

const CONFLICTS: Row[] = [
  {
    name: "write, then the person makes it executable",
    start: 0o644,
    call: ["write", { path: "run.sh", content: "#!/bin/sh\necho written\n" }],
    leftContent: "#!/bin/sh\necho written\n",
    person: { mode: 0o755 },
    conflict: `its mode was changed since (755 now, 644 when write left it), ${OUTSIDE}`,
    modeOnly: true,
  },
  {
    name: "edit, then the person makes it private",
    start: 0o644,
    call: ["edit", { path: "run.sh", old_string: "hi", new_string: "edited" }],
    leftContent: "#!/bin/sh\necho edited\n",
    person: { mode: 0o600 },
    conflict: `its mode was changed since (600 now, 644 when edit left it), ${OUTSIDE}`,
    modeOnly: true,
  },
  {
    name: "a command changes the content, then the person makes it private",
    start: 0o755,
    call: ["bash", { command: "printf '#!/bin/sh\\necho bash\\n' > run.sh" }],
    leftContent: "#!/bin/sh\necho bash\n",
    person: { mode: 0o700 },
    conflict: `its mode was changed since (700 now, 755 when bash left it), ${OUTSIDE}`,
    modeOnly: true,
  },
  {
    name: "a command only chmods, then the person chmods again",
    start: 0o644,
    call: ["bash", { command: "chmod +x run.sh" }],
    leftContent: SCRIPT,
    person: { mode: 0o700 },
    conflict: `its mode was changed since (700 now, 755 when bash left it), ${OUTSIDE}`,
    modeOnly: true,
  },
  {
    name: "a command only chmods, then the person sets the setuid bit",
    start: 0o750,
    call: ["bash", { command: "chmod 755 run.sh" }],
    leftContent: SCRIPT,
    person: { mode: 0o4755 },
    conflict: `its mode was changed since (4755 now, 755 when bash left it), ${OUTSIDE}`,
    modeOnly: true,
  },
  {
    name: "write, then the person changes both content and mode",
    start: 0o644,
    call: ["write", { path: "run.sh", content: "#!/bin/sh\necho written\n" }],
    leftContent: "#!/bin/sh\necho written\n",
    person: { mode: 0o755, content: "#!/bin/sh\necho mine\n" },
    conflict: `it was changed since, its mode too (755 now, 644 when write left it), ${OUTSIDE}`,
  },
];

/** run.sh with SCRIPT at `start`, read, then the row's call; returns its checkpoint's id. */
async function callOn(row: Pick<Row, "start" | "call" | "leftContent">): Promise<number> {
  await ws.put("run.sh", SCRIPT);
  await chmod(ws.abs("run.sh"), row.start);
  await ws.ok("read", { path: "run.sh" });
  await ws.ok(...row.call);
  expect(await ws.text("run.sh")).toBe(row.leftContent);
  return newest();
}

describe("a person's chmod after a tool call is a change since", () => {
  it.each(CONFLICTS)("$name: listed, refused without force, restored with it", async (row) => {
    const id = await callOn(row);
    const left = await modeOf("run.sh");
    // Positive control: with nothing changed since, the same checkpoint restores without a word.
    expect((await ws.engine.checkpoints.previewRestore("s1", id)).paths[0]?.conflict).toBeUndefined();

    if (row.person.content !== undefined) await writeFile(ws.abs("run.sh"), row.person.content);
    await chmod(ws.abs("run.sh"), row.person.mode);
    const now = row.person.content ?? row.leftContent;
    expect(left).not.toBe(row.person.mode);

    const plan = await ws.engine.checkpoints.previewRestore("s1", id);
    expect(plan.paths).toEqual([
      {
        path: "run.sh",
        type: "file",
        action: "restore",
        conflict: row.conflict,
        ...(row.modeOnly ? { modeOnly: true } : {}),
      },
    ]);

    const refused = await ws.engine.checkpoints.restore("s1", id);
    expect(refused).toMatchObject({ applied: false, undoCheckpoint: null });
    expect(refused.blocked.map((p) => [p.path, p.conflict])).toEqual([["run.sh", row.conflict]]);
    expect(await modeOf("run.sh")).toBe(row.person.mode);
    expect(await ws.text("run.sh")).toBe(now);

    const forced = await ws.engine.checkpoints.restore("s1", id, { force: true });
    expect(forced).toMatchObject({ applied: true, blocked: [], failed: [], skipped: [] });
    expect(await modeOf("run.sh")).toBe(row.start);
    expect(await ws.text("run.sh")).toBe(SCRIPT);

    // The person's chmod was not lost: undoing the restore brings it back.
    await ws.engine.checkpoints.restore("s1", forced.undoCheckpoint as number);
    expect(await modeOf("run.sh")).toBe(row.person.mode);
    expect(await ws.text("run.sh")).toBe(now);
  });

  it.each([
    { name: "write", start: 0o644, call: ["write", { path: "run.sh", content: "w\n" }], leftContent: "w\n" },
    {
      name: "bash chmod only",
      start: 0o644,
      call: ["bash", { command: "chmod 700 run.sh" }],
      leftContent: SCRIPT,
    },
  ] satisfies Array<Pick<Row, "start" | "call" | "leftContent"> & { name: string }>)(
    "$name, mode and content untouched since: restores with no conflict",
    async (row) => {
      const id = await callOn(row);
      const plan = await ws.engine.checkpoints.previewRestore("s1", id);
      expect(plan.paths).toEqual([{ path: "run.sh", type: "file", action: "restore" }]);
      expect(await ws.engine.checkpoints.restore("s1", id)).toMatchObject({ applied: true, blocked: [] });
      expect(await modeOf("run.sh")).toBe(row.start);
      expect(await ws.text("run.sh")).toBe(SCRIPT);
    },
  );

  it("a chmod undone by hand (the mode the tool left is back) is no conflict", async () => {
    const id = await callOn({
      start: 0o644,
      call: ["bash", { command: "chmod 755 run.sh" }],
      leftContent: SCRIPT,
    });
    await chmod(ws.abs("run.sh"), 0o600);
    expect((await ws.engine.checkpoints.previewRestore("s1", id)).paths[0]?.conflict).toBeDefined();
    await chmod(ws.abs("run.sh"), 0o755);
    expect((await ws.engine.checkpoints.previewRestore("s1", id)).paths[0]?.conflict).toBeUndefined();
  });

  it("a person who already put the old mode back has nothing to restore", async () => {
    const id = await callOn({
      start: 0o644,
      call: ["bash", { command: "chmod 755 run.sh" }],
      leftContent: SCRIPT,
    });
    await chmod(ws.abs("run.sh"), 0o644);
    const plan = await ws.engine.checkpoints.previewRestore("s1", id);
    expect(plan.paths).toEqual([{ path: "run.sh", type: "file", action: "none" }]);
  });

  it("a later call's chmod is named as that checkpoint", async () => {
    const id = await callOn({
      start: 0o644,
      call: ["write", { path: "run.sh", content: "w\n" }],
      leftContent: "w\n",
    });
    await ws.ok("bash", { command: "chmod 600 run.sh" });
    const plan = await ws.engine.checkpoints.previewRestore("s1", id);
    expect(plan.paths[0]?.conflict).toBe(
      `its mode was changed since (600 now, 644 when write left it), by checkpoint ${newest()} (bash)`,
    );
  });

  it("undoing a restore sees a chmod made after the restore", async () => {
    const id = await callOn({
      start: 0o644,
      call: ["bash", { command: "chmod 755 run.sh" }],
      leftContent: SCRIPT,
    });
    const restored = await ws.engine.checkpoints.restore("s1", id);
    expect(await modeOf("run.sh")).toBe(0o644);
    await chmod(ws.abs("run.sh"), 0o600);
    const plan = await ws.engine.checkpoints.previewRestore("s1", restored.undoCheckpoint as number);
    expect(plan.paths[0]?.conflict).toBe(
      `its mode was changed since (600 now, 644 when the restore left it), ${OUTSIDE}`,
    );
  });
});
