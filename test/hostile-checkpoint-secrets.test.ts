import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";

// Restore and rewind put files back for the person; checkpoints keep copies of what calls
// changed. Neither may become a way into what sandbox.denyRead hides: a restore must not delete
// or write a file in ~/.ssh (through a workspace folder swapped for a symlink since the call, or
// because the workspace is the home folder), and a home folder opened as the workspace must not
// have its keys copied into $LATHE_HOME's checkpoint store. Each row's positive control does the
// same by plain means, or with "denyRead": [], and the damage is real; then Lathe leaves the
// person's files byte for byte as they were.

const PERSON_KEY = "ssh-ed25519 AAAAC3NzaPERSON person@laptop\n";
const SECRET = "SECRET-KEY-3f8a61c2d9";

let base: string;
let person: string;
let savedHome: string | undefined;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-checkpoint-secrets-")));
  person = path.join(base, "person");
  savedHome = process.env.HOME;
  // denyRead's defaults are under the home folder; this worker's home is the fake one.
  process.env.HOME = person;
});

afterAll(async () => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  if (base) await rm(base, { recursive: true, force: true });
});

beforeEach(async () => {
  await rm(person, { recursive: true, force: true });
  await mkdir(path.join(person, ".ssh"), { recursive: true });
  await writeFile(path.join(person, ".ssh/authorized_keys"), PERSON_KEY);
  await writeFile(path.join(person, ".ssh/id_ed25519"), `${SECRET}\n`);
  await mkdir(path.join(person, "project"));
});

const authorizedKeys = () => readFile(path.join(person, ".ssh/authorized_keys"), "utf8");

/** A workspace folder `k` the call made, then swapped for a symlink to ~/.ssh (as any process may). */
async function swapForSymlink(root: string): Promise<void> {
  await rename(path.join(root, "k"), path.join(root, "k.before"));
  await symlink(path.join(person, ".ssh"), path.join(root, "k"));
}

describe("restore and rewind through a workspace folder swapped for a symlink into ~/.ssh", () => {
  let engine: Engine;
  let root: string;
  afterEach(async () => {
    await engine?.close();
  });

  interface Row {
    name: string;
    /** The calls of the first prompt, on `k/authorized_keys` (k a real folder then). */
    calls: [tool: string, args: Record<string, unknown>][];
    /** What the same step does through the symlink by plain means: the positive control. */
    plainly: string[];
  }

  const ROWS: Row[] = [
    {
      name: "restore of a write that made k/authorized_keys (the person's public key, which is public)",
      calls: [["write", { path: "k/authorized_keys", content: PERSON_KEY }]],
      plainly: ["rm", "k/authorized_keys"],
    },
    {
      name: "restore of an edit of k/authorized_keys (writes the old content back)",
      calls: [
        ["write", { path: "k/authorized_keys", content: "ssh-ed25519 AAAAATTACKER attacker@evil\n" }],
        ["read", { path: "k/authorized_keys" }],
        ["edit", { path: "k/authorized_keys", old_string: "ATTACKER", new_string: "PERSON" }],
      ],
      plainly: ["cp", "k.before/authorized_keys", "k/authorized_keys"],
    },
  ];

  it.each(ROWS)("$name: plain $plainly.0 reaches ~/.ssh; Lathe leaves it", async (row) => {
    root = path.join(person, "project");
    engine = await Engine.create({ root, latheHome: path.join(base, "lathe-home"), extensions: false });
    const session = await engine.openSession({ id: `s-${ROWS.indexOf(row)}`, mode: "yolo" });
    for (const [tool, args] of row.calls) expect((await session.call(tool, args)).type).toBe("output");
    const id = engine.checkpoints.list(session.id).at(-1)?.id as number;
    await session.close();
    await swapForSymlink(root);

    // Positive control: the same step by name, through the symlink, reaches the person's file.
    execFileSync(row.plainly[0] as string, row.plainly.slice(1), { cwd: root });
    expect(await authorizedKeys().catch(() => "gone")).not.toBe(PERSON_KEY);
    await writeFile(path.join(person, ".ssh/authorized_keys"), PERSON_KEY);

    const plan = await engine.checkpoints.previewRestore(session.id, id);
    const step = plan.paths.find((p) => p.path === "k/authorized_keys");
    expect(step?.unavailable).toMatch(/a folder on the way to it is now a symbolic link/);
    const forced = await engine.checkpoints.restore(session.id, id, { force: true });
    expect(forced.skipped.map((s) => s.path)).toContain("k/authorized_keys");
    expect(await authorizedKeys()).toBe(PERSON_KEY);
    expect(await readFile(path.join(person, ".ssh/id_ed25519"), "utf8")).toBe(`${SECRET}\n`);
  });
});

const machine = await machineSandbox();

describe("a home folder opened as the workspace", () => {
  let engines: Engine[] = [];
  afterEach(async () => {
    for (const e of engines) await e.close();
    engines = [];
  });

  /** An engine on the home folder whose $LATHE_HOME (outside it) has these settings. */
  async function open(latheHome: string, settings: object): Promise<Engine> {
    await mkdir(latheHome, { recursive: true });
    await writeFile(path.join(latheHome, "settings.json"), JSON.stringify(settings));
    const engine = await Engine.create({ root: person, latheHome, extensions: false });
    engines.push(engine);
    return engine;
  }

  /** The text of every file in the checkpoint store. */
  async function blobTexts(latheHome: string): Promise<string> {
    const dir = path.join(latheHome, "checkpoints/blobs");
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((d) => d.isFile());
    const texts = await Promise.all(files.map((d) => readFile(path.join(d.parentPath, d.name), "utf8")));
    return texts.join("\n");
  }

  it.skipIf(!machine.active)(
    `a bash call's checkpoint scan: copies ~/.ssh/id_ed25519 into the store with denyRead [], not by default${machine.active ? "" : ` (skipped: no OS sandbox here, ${machine.reason})`}`,
    async () => {
      const rows = [
        { home: path.join(base, "home-open"), settings: { sandbox: { denyRead: [] } }, copied: true },
        { home: path.join(base, "home-default"), settings: {}, copied: false },
      ];
      for (const row of rows) {
        const engine = await open(row.home, row.settings);
        const session = await engine.openSession({ id: "s", mode: "yolo" });
        expect((await session.call("bash", { command: "echo made > made.txt" })).type).toBe("output");
        await session.close();
        const texts = await blobTexts(row.home);
        expect(texts).toContain("made"); // the scan did run and keep what the call changed
        expect(texts.includes(SECRET)).toBe(row.copied);
        await rm(path.join(person, "made.txt"));
      }
    },
  );

  it.skipIf(!machine.active)(
    `a hard link to ~/.ssh/id_ed25519 in the workspace, removed by bash: its checkpoint keeps the key with denyRead [], nothing by default${machine.active ? "" : ` (skipped: no OS sandbox here, ${machine.reason})`}`,
    async () => {
      const rows = [
        { home: path.join(base, "link-open"), settings: { sandbox: { denyRead: [] } }, kept: true },
        { home: path.join(base, "link-default"), settings: {}, kept: false },
      ];
      const project = path.join(person, "project");
      for (const row of rows) {
        await link(path.join(person, ".ssh/id_ed25519"), path.join(project, "notes.txt"));
        await mkdir(row.home, { recursive: true });
        await writeFile(path.join(row.home, "settings.json"), JSON.stringify(row.settings));
        const engine = await Engine.create({ root: project, latheHome: row.home, extensions: false });
        engines.push(engine);
        const session = await engine.openSession({ id: "s", mode: "yolo" });
        const removed = await session.call("bash", {
          command: "ls | grep '^notes' | xargs rm --; echo made > made.txt",
        });
        expect(removed.type, JSON.stringify(removed)).toBe("output");
        await session.close();
        const texts = await blobTexts(row.home);
        expect(texts).toContain("made"); // the scan ran and kept what the call changed
        expect(texts.includes(SECRET)).toBe(row.kept);
        // Restoring the checkpoint brings the key back into the workspace only in the control.
        const id = engine.checkpoints.list("s").at(-1)?.id as number;
        await engine.checkpoints.restore("s", id, { force: true });
        const back = await readFile(path.join(project, "notes.txt"), "utf8").catch(() => "absent");
        expect(back === `${SECRET}\n`).toBe(row.kept);
        await rm(path.join(project, "notes.txt"), { force: true });
        await rm(path.join(project, "made.txt"), { force: true });
      }
      expect(await readFile(path.join(person, ".ssh/id_ed25519"), "utf8")).toBe(`${SECRET}\n`);
    },
  );

  it("a workspace file swapped for a hard link to ~/.ssh/id_ed25519 after a write: a forced restore rewrites the key and keeps it in the checkpoint store, with denyRead [] only", async () => {
    const project = path.join(person, "project");
    const notes = path.join(project, "notes.txt");
    const key = path.join(person, ".ssh/id_ed25519");
    const rows = [
      { home: path.join(base, "swap-open"), settings: { sandbox: { denyRead: [] } }, leaks: true },
      { home: path.join(base, "swap-default"), settings: {}, leaks: false },
    ];
    for (const row of rows) {
      await writeFile(notes, "the person's notes\n");
      await mkdir(row.home, { recursive: true });
      await writeFile(path.join(row.home, "settings.json"), JSON.stringify(row.settings));
      const engine = await Engine.create({ root: project, latheHome: row.home, extensions: false });
      engines.push(engine);
      const session = await engine.openSession({ id: "s", mode: "yolo" });
      expect((await session.call("read", { path: "notes.txt" })).type).toBe("output");
      expect((await session.call("write", { path: "notes.txt", content: "draft\n" })).type).toBe("output");
      await session.close();
      const id = engine.checkpoints.list("s").at(-1)?.id as number;
      // Any process may swap the file for another name of the key since (ln needs no read).
      await rm(notes);
      await link(key, notes);

      const plan = await engine.checkpoints.previewRestore("s", id);
      const step = plan.paths.find((p) => p.path === "notes.txt");
      if (row.leaks) expect(step?.conflict).toMatch(/it was changed since/);
      else
        expect(step?.unavailable).toMatch(
          /^it is now another name \(a hard link\) of a file hidden from Lathe's tools: ~\/\.ssh is in "sandbox\.denyRead"/,
        );
      const forced = await engine.checkpoints.restore("s", id, { force: true });
      expect(forced.applied).toBe(true);
      // Positive control: with nothing hidden, the forced restore rewrote the file behind both
      // names (a restore keeps a file the same file), the key itself, and kept the key's bytes
      // in the checkpoint store. By default the link is neither read nor written.
      expect((await readFile(key, "utf8")) === "the person's notes\n").toBe(row.leaks);
      expect((await blobTexts(row.home)).includes(SECRET)).toBe(row.leaks);
      if (forced.undoCheckpoint !== null) await engine.checkpoints.restore("s", forced.undoCheckpoint);
      // The undo puts the key back; the workspace name is still the key's other name.
      expect(await readFile(notes, "utf8")).toBe(`${SECRET}\n`);
      expect(statSync(notes).nlink).toBe(2);
      expect(await readFile(key, "utf8")).toBe(`${SECRET}\n`);
      await rm(notes, { force: true });
    }
  });

  it("restore of a write into ~/.ssh made while denyRead was []: deletes it then, refused once it is hidden again", async () => {
    const latheHome = path.join(base, "home-tightened");
    const call = ["write", { path: ".ssh/authorized_keys2", content: PERSON_KEY }] as const;
    const made = path.join(person, ".ssh/authorized_keys2");

    // Positive control: with denyRead [] the restore of that write deletes the file in ~/.ssh.
    let engine = await open(latheHome, { sandbox: { denyRead: [] } });
    let session = await engine.openSession({ id: "control", mode: "yolo" });
    expect((await session.call(...call)).type).toBe("output");
    await session.close();
    let id = engine.checkpoints.list("control").at(-1)?.id as number;
    expect((await engine.checkpoints.restore("control", id)).applied).toBe(true);
    await expect(readFile(made)).rejects.toThrow(/ENOENT/);

    // The same write, then the person hides ~/.ssh again (the default): no restore touches it.
    session = await engine.openSession({ id: "s", mode: "yolo" });
    expect((await session.call(...call)).type).toBe("output");
    await session.close();
    id = engine.checkpoints.list("s").at(-1)?.id as number;
    await engine.close();
    engines = [];
    engine = await open(latheHome, {});
    const plan = await engine.checkpoints.previewRestore("s", id);
    expect(plan.paths).toEqual([
      {
        path: ".ssh/authorized_keys2",
        type: "file",
        action: "none",
        unavailable: expect.stringMatching(
          /^it is hidden from Lathe's tools: ~\/\.ssh is in "sandbox\.denyRead"/,
        ),
      },
    ]);
    const forced = await engine.checkpoints.restore("s", id, { force: true });
    expect(forced.skipped.map((s) => s.path)).toEqual([".ssh/authorized_keys2"]);
    expect(await readFile(made, "utf8")).toBe(PERSON_KEY);
    expect(await authorizedKeys()).toBe(PERSON_KEY);
  });
});
