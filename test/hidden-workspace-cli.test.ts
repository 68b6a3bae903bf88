import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelopeOf, runLathe } from "./support/lathe-cli.ts";

// A workspace opened inside what Lathe hides from its tools (a `sandbox.denyRead` entry such as
// ~/.ssh, or $LATHE_HOME's private data): every file tool would refuse every file. The CLI says
// so once, at start, with the setting that changes it, rather than leaving a refusal per call to
// explain it. The control: with "denyRead": [] there is no notice and the file is read.

const KEY = "SECRET-KEY-0c4d2e";

let base: string;
let person: string;
let latheHome: string;
let controlHome: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-hidden-ws-")));
  person = path.join(base, "person");
  latheHome = path.join(person, ".lathe");
  controlHome = path.join(base, "control-home");
  await mkdir(path.join(person, ".ssh"), { recursive: true });
  await mkdir(path.join(latheHome, "sessions/s1"), { recursive: true });
  await mkdir(controlHome);
  await writeFile(path.join(person, ".ssh/config"), `Host x # ${KEY}\n`);
  await writeFile(path.join(latheHome, "sessions/s1/notes.txt"), `${KEY}\n`);
  await writeFile(path.join(controlHome, "settings.json"), JSON.stringify({ sandbox: { denyRead: [] } }));
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

const read = (cwd: string, home: string) =>
  runLathe(["call", "read", '{"path":"config"}', "--mode", "yolo"], {
    home,
    cwd,
    env: { HOME: person, LATHE_DAEMON: "off" },
  });

const notices = (stderr: string) => stderr.split("\n").filter((l) => l.includes("This folder ("));

describe("a workspace inside a hidden path", () => {
  it("inside ~/.ssh: read with denyRead [] and no notice; by default one notice naming the setting, then the refusal", async () => {
    const control = await read(path.join(person, ".ssh"), controlHome);
    expect(envelopeOf(control).type).toBe("output");
    expect(control.stdout).toContain(KEY);
    expect(notices(control.stderr)).toEqual([]);

    const run = await read(path.join(person, ".ssh"), latheHome);
    expect(envelopeOf(run).type).toBe("error");
    expect(run.stdout).not.toContain(KEY);
    expect(notices(run.stderr)).toEqual([
      `lathe: This folder (~/.ssh) is inside ~/.ssh, which "sandbox.denyRead" hides from every tool and command: read, write, edit, glob and grep will refuse every file here, and commands cannot see them. If you mean to work here, set "sandbox.denyRead" in ${path.join(latheHome, "settings.json")} to a list without ~/.ssh (it then stays readable to every command Lathe runs); otherwise open another folder.`,
    ]);
  });

  it("inside $LATHE_HOME's private data: one notice saying no setting lifts it", async () => {
    const run = await runLathe(["call", "read", '{"path":"notes.txt"}', "--mode", "yolo"], {
      home: latheHome,
      cwd: path.join(latheHome, "sessions/s1"),
      env: { HOME: person, LATHE_DAEMON: "off" },
    });
    expect(envelopeOf(run).type).toBe("error");
    expect(run.stdout).not.toContain(KEY);
    const said = notices(run.stderr);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("This folder (~/.lathe/sessions/s1) is inside Lathe's own data (~/.lathe");
    expect(said[0]).toContain("Open another folder");
  });

  it("an ordinary folder beside them gets no notice", async () => {
    await mkdir(path.join(person, "project"), { recursive: true });
    await writeFile(path.join(person, "project/config"), "plain\n");
    const run = await read(path.join(person, "project"), latheHome);
    expect(envelopeOf(run).type).toBe("output");
    expect(notices(run.stderr)).toEqual([]);
  });
});
