import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxProbe } from "../sandbox/sandbox-availability.ts";
import { doctor } from "./doctor.ts";

let root: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "lathe-doctor-"));
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-doctor-home-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const machine = (overrides: Partial<SandboxProbe>): SandboxProbe => ({
  platform: "linux",
  dependencies: () => ({ errors: [], warnings: [] }),
  trial: async () => undefined,
  ...overrides,
});

describe("doctor: which walls stand, and what is missing", () => {
  it("is healthy with the sandbox active and the toolchain loading", async () => {
    const report = await doctor({ root, latheHome: home, probe: machine({}) });
    expect(report.walls.policy.active).toBe(true);
    expect(report.walls.sandbox).toMatchObject({
      active: true,
      mechanism: "bubblewrap",
      enabledInSettings: true,
    });
    expect(report.checks.map((c) => [c.name, c.ok])).toEqual([
      ["Node 24 or newer", true],
      ["better-sqlite3 (sessions and the audit trail)", true],
      ["node-pty (bash)", true],
      ["isolated-vm (plugins)", true],
      ["ripgrep (the sandbox's scan for protected files)", true],
    ]);
    expect(report.healthy).toBe(true);
  });

  it("is not healthy when the machine cannot run the sandbox, and gives the fix", async () => {
    const report = await doctor({
      root,
      latheHome: home,
      probe: machine({
        dependencies: () => ({ errors: ["bubblewrap (bwrap) not installed"], warnings: [] }),
      }),
    });
    expect(report.healthy).toBe(false);
    expect(report.walls.sandbox).toMatchObject({
      active: false,
      reason: expect.stringMatching(/bubblewrap \(bwrap\) not installed/),
      fix: expect.stringMatching(/apt-get install bubblewrap socat ripgrep/),
    });
  });

  it("reports a sandbox turned off in settings without counting it as missing", async () => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ sandbox: { enabled: false } }));
    const report = await doctor({ root, latheHome: home, probe: machine({}) });
    expect(report.walls.sandbox).toMatchObject({
      active: false,
      enabledInSettings: false,
      machine: { active: true },
      reason: expect.stringMatching(/turned off/),
    });
    expect(report.healthy).toBe(true);
  });
});
