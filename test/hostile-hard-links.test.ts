import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openFakeHome, runCalls, type Call, type FakeHome } from "./support/fake-home.ts";
import type { Engine } from "../src/main/engine/engine.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";

// A hard link is a file's other name: `ln ~/.ssh/id_ed25519 project/notes` makes project/notes
// the key itself, in a folder no path check hides. These rows put such links in the workspace (a
// project folder in the fake home, on the same filesystem). Positive controls: plain `cat` reads
// the key through the link, and an engine whose settings hide nothing ("denyRead": []) reads,
// finds and edits it; then Lathe's file tools refuse it like the hidden name, naming the setting,
// and a command that names the link is refused. Files with several names that are not hidden
// stay readable.

const SECRET = "SECRET-KEY-6e1f9a3c0b";
const PERSON_KEY = "ssh-ed25519 AAAAC3NzaPERSON person@laptop\n";
const ATTACKER = "ssh-ed25519 AAAAC3NzaATTACKER attacker@evil";

let person: string;
let project: string;
let latheHome: string;
let contained: Engine;
let control: Engine;

async function resetHome(): Promise<void> {
  for (const name of [".ssh", "project"]) await rm(path.join(person, name), { recursive: true, force: true });
  await mkdir(path.join(person, ".ssh"));
  await mkdir(project);
  await writeFile(path.join(person, ".ssh/id_ed25519"), `${SECRET}\n`);
  await writeFile(path.join(person, ".ssh/authorized_keys"), PERSON_KEY);
  await writeFile(path.join(project, "readme.md"), "SAFE readme\n");
  await link(path.join(person, ".ssh/id_ed25519"), path.join(project, "notes.txt"));
  await link(path.join(person, ".ssh/authorized_keys"), path.join(project, "keys.txt"));
  // Two names, neither hidden: an ordinary multiply-linked file (a pnpm store's, say).
  await writeFile(path.join(project, "shared.txt"), "SAFE shared\n");
  await link(path.join(project, "shared.txt"), path.join(project, "shared-copy.txt"));
}

let home: FakeHome | undefined;

beforeAll(async () => {
  const allowBash = { permissions: [{ permission: "bash", pattern: "*", action: "allow" }] };
  home = await openFakeHome({
    prefix: "lathe-hard-links-",
    settings: allowBash,
    controlSettings: { ...allowBash, sandbox: { denyRead: [] } },
    root: (p) => path.join(p, "project"),
    prepare: async (folders) => {
      ({ person, latheHome } = folders);
      project = path.join(person, "project");
      await resetHome();
    },
  });
  ({ contained, control } = home);
});

afterAll(() => home?.close());

beforeEach(resetHome);

const run = runCalls;

const text = (envelope: Envelope): string => JSON.stringify(envelope);
const settingsFile = () => path.join(latheHome, "settings.json");

/** The refusal (of the tool, once it opened the file): which file, which entry, where to change it. */
function expectLinkRefusal(envelope: Envelope, link: string, hiddenName: string): void {
  expect(envelope.type).toBe("error");
  if (envelope.type !== "error") return;
  expect(envelope.error_text).toMatch(
    new RegExp(
      `^"${link}" \\(a hard link to ~/${hiddenName.replace(".", "\\.")}\\) is hidden from Lathe's tools`,
    ),
  );
  expect(envelope.error_text).toContain(`~/.ssh is in "sandbox.denyRead"`);
  expect(envelope.error_text).toContain(
    `set "sandbox.denyRead" in ${settingsFile()} to a list without ~/.ssh`,
  );
  expect(envelope.error_text).not.toContain(SECRET);
  expect(envelope.error_text).not.toContain("AAAAC3NzaPERSON");
}

describe("a hard link in the workspace to a hidden file", () => {
  it("is the key itself: plain cat reads it", () => {
    expect(statSync(path.join(project, "notes.txt")).nlink).toBe(2);
    expect(execFileSync("cat", ["notes.txt"], { cwd: project, encoding: "utf8" })).toContain(SECRET);
  });

  it("read: the key with denyRead [], refused by default", async () => {
    const call: Call = ["read", { path: "notes.txt" }];
    expect(text(await run(control, [call]))).toContain(SECRET);
    expectLinkRefusal(await run(contained, [call]), "notes.txt", ".ssh/id_ed25519");
  });

  it("edit: shows the key's lines in its diff with denyRead [], refused by default, nothing changed", async () => {
    const calls: Call[] = [
      ["edit", { path: "keys.txt", old_string: PERSON_KEY, new_string: `${PERSON_KEY}${ATTACKER}\n` }],
    ];
    // The control reads the file first (edit requires it); its diff shows the old lines.
    const done = await run(control, [["read", { path: "keys.txt" }], ...calls]);
    expect(done.type).toBe("output");
    expect(text(done)).toContain("AAAAC3NzaPERSON");
    await resetHome();

    const refused = await run(contained, [["read", { path: "keys.txt" }], ...calls]);
    expect(refused.type).toBe("error");
    expect(text(refused)).not.toContain("AAAAC3NzaPERSON");
    expect(await readFile(path.join(person, ".ssh/authorized_keys"), "utf8")).toBe(PERSON_KEY);
    expect(statSync(path.join(project, "keys.txt")).nlink).toBe(2);
    expect(await readFile(path.join(project, "keys.txt"), "utf8")).toBe(PERSON_KEY);
  });

  it("write: writes the key itself with denyRead [] (a file with other names is rewritten in place, as edit does), refused by default", async () => {
    const call: Call = ["write", { path: "keys.txt", content: `${ATTACKER}\n` }];
    expect((await run(control, [["read", { path: "keys.txt" }], call])).type).toBe("output");
    expect(await readFile(path.join(project, "keys.txt"), "utf8")).toBe(`${ATTACKER}\n`);
    expect(await readFile(path.join(person, ".ssh/authorized_keys"), "utf8")).toBe(`${ATTACKER}\n`);
    await resetHome();

    // Refused when write reads what it replaces, with or without a read before it.
    expectLinkRefusal(await run(contained, [call]), "keys.txt", ".ssh/authorized_keys");
    expect(await readFile(path.join(person, ".ssh/authorized_keys"), "utf8")).toBe(PERSON_KEY);
    expect(await readFile(path.join(person, ".ssh/authorized_keys"), "utf8")).toBe(PERSON_KEY);
    expect(statSync(path.join(project, "keys.txt")).nlink).toBe(2);
  });

  it("grep over the workspace: prints the key with denyRead [], leaves the link out by default and says so", async () => {
    const call: Call = ["grep", { pattern: "SECRET-KEY|SAFE", output_mode: "content" }];
    expect(text(await run(control, [call]))).toContain(SECRET);

    const found = await run(contained, [call]);
    expect(found.type).toBe("output");
    expect(text(found)).not.toContain(SECRET);
    const data = (found as Extract<Envelope, { type: "output" }>).data as {
      matches: { path: string }[];
      note?: string;
    };
    // The files with one name, and both names of the multiply-linked file that hides nothing.
    expect(data.matches.map((m) => m.path).sort()).toEqual(["readme.md", "shared-copy.txt", "shared.txt"]);
    expect(data.note).toContain("~/.ssh (sandbox.denyRead)");
    expect(data.note).toContain("2 files in the workspace that are hard links to them");
    expect(data.note).toContain("notes.txt");
    expect(data.note).toContain("keys.txt");
  });

  it.each(["files_with_matches", "count"])("grep in %s mode leaves the link out too", async (mode) => {
    const call: Call = ["grep", { pattern: "SECRET-KEY", output_mode: mode }];
    expect(text(await run(control, [call]))).toContain("notes.txt");
    const found = await run(contained, [call]);
    expect(found.type).toBe("output");
    expect(text(found)).not.toMatch(/"notes\.txt"/);
  });

  it("grep of the link by path: finds the key with denyRead [], refused by default", async () => {
    const call: Call = ["grep", { pattern: "SECRET", path: "notes.txt", output_mode: "content" }];
    expect(text(await run(control, [call]))).toContain(SECRET);
    expectLinkRefusal(await run(contained, [call]), "notes.txt", ".ssh/id_ed25519");
  });

  it("a link made after Lathe last looked (a new key in ~/.ssh) is refused too", async () => {
    expect((await run(contained, [["read", { path: "shared.txt" }]])).type).toBe("output");
    await writeFile(path.join(person, ".ssh/id_rsa"), `${SECRET}\n`);
    await link(path.join(person, ".ssh/id_rsa"), path.join(project, "later.txt"));
    expect(text(await run(control, [["read", { path: "later.txt" }]]))).toContain(SECRET);
    expectLinkRefusal(await run(contained, [["read", { path: "later.txt" }]]), "later.txt", ".ssh/id_rsa");
  });

  it.each(["shared.txt", "shared-copy.txt"])("keeps reading %s (several names, none hidden)", async (p) => {
    const envelope = await run(contained, [["read", { path: p }]]);
    expect(envelope.type).toBe("output");
    expect(text(envelope)).toContain("SAFE shared");
  });

  it("bash naming the link: prints the key with denyRead [], refused by default", async () => {
    const call: Call = ["bash", { command: "cat notes.txt" }];
    const leak = await run(control, [call]);
    expect(text(leak)).toContain(SECRET);

    const refused = await run(contained, [call]);
    expect(refused.type).toBe("error");
    expect(text(refused)).toContain(
      "the command names ~/project/notes.txt, a hard link to ~/.ssh/id_ed25519 (the same file under another name)",
    );
    expect(text(refused)).toContain('remove ~/.ssh from \\"sandbox.denyRead\\"');
    expect(text(refused)).not.toContain(SECRET);
  });
});
