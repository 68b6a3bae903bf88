import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { DoctorReport } from "../src/main/engine/index.ts";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, type Run } from "./support/lathe-cli.ts";

// `lathe doctor` and the CLI's one-time notice, as a user sees them.

const machine = await machineSandbox();
if (!machine.active) console.log(`rows that need the sandbox are skipped: ${machine.reason}`);

const world = useCliWorld("lathe-doctor-");

const lathe = (args: string[]): Promise<Run> => world.lathe(args);
const sandboxOff = () =>
  writeFile(path.join(world.home, "settings.json"), JSON.stringify({ sandbox: { enabled: false } }));

describe("lathe doctor", () => {
  it.skipIf(!machine.active)("reports both walls active and the toolchain, exit 0", async () => {
    const run = await lathe(["doctor"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ {2}parser policy {3}active: /m);
    expect(run.stdout).toMatch(
      /^ {2}OS sandbox {6}active \(bubblewrap\): bash, plugin commands and stdio MCP servers run confined$/m,
    );
    for (const name of ["Node 24 or newer", "better-sqlite3", "node-pty", "isolated-vm", "ripgrep"])
      expect(run.stdout).toMatch(new RegExp(`^  ok +${name}`, "m"));
    // A fresh LATHE_HOME chooses no model: the machine is healthy, and the last line says so.
    expect(run.stdout).toMatch(/^ {2}NONE CHOSEN: lathe run without --model stops with "No model chosen"$/m);
    expect(run.stdout).toMatch(/^ {10}fix: put a \.gguf model file in .*\/models /m);
    expect(run.stdout).toMatch(/^Healthy\. No model is chosen yet \(see Model above\)\.$/m);
  });

  it.skipIf(!machine.active)("says what confined processes cannot read and reach", async () => {
    // A home folder with an ssh key and AWS credentials, and none of the other listed places.
    const person = await mkdtemp(path.join(os.tmpdir(), "lathe-doctor-person-"));
    try {
      await mkdir(path.join(person, ".ssh"));
      await mkdir(path.join(person, ".aws"));
      const run = await world.lathe(["doctor"], { env: { HOME: person } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        /^ {18}they cannot read: ~\/\.ssh, ~\/\.aws \(10 more listed, not on this machine\) \(sandbox\.denyRead\), and Lathe's own data in LATHE_HOME$/m,
      );
      expect(run.stdout).toMatch(/^ {18}network: none \(sandbox\.allowNetwork\)$/m);
      const json = JSON.parse(
        (await world.lathe(["doctor", "--json"], { env: { HOME: person } })).stdout,
      ) as DoctorReport;
      expect(json.walls.sandbox.hidden.present).toEqual([
        path.join(person, ".ssh"),
        path.join(person, ".aws"),
      ]);
      expect(json.walls.sandbox.network).toEqual([]);
    } finally {
      await rm(person, { recursive: true, force: true });
    }
  });

  it("names the variables bash, plugin commands and MCP servers start without, never their values", async () => {
    const env = {
      GH_TOKEN: "gh-value-1f3a",
      AWS_SECRET_ACCESS_KEY: "aws-value-77c2",
      ANTHROPIC_API_KEY: "lathe-key-0b9e",
      TOKENIZERS_PARALLELISM: "false",
    };
    const run = await world.lathe(["doctor"], { env });
    expect(run.stdout).toMatch(
      /^ {18}their environment lacks: (?=.*\bGH_TOKEN\b)(?=.*\bAWS_SECRET_ACCESS_KEY\b)(?=.*\bANTHROPIC_API_KEY\b).* \(sandbox\.denyEnv: \d+ names and patterns, and Lathe's own keys\); a command finds them empty$/m,
    );
    expect(run.stdout).not.toContain("TOKENIZERS_PARALLELISM");
    for (const value of Object.values(env)) expect(run.stdout).not.toContain(value);

    // The person's own list: only what it names (and Lathe's own keys) is withheld.
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ sandbox: { denyEnv: ["AWS_*"] } }),
    );
    const json = JSON.parse((await world.lathe(["doctor", "--json"], { env })).stdout) as DoctorReport;
    expect(json.walls.sandbox.env.denyEnv).toEqual(["AWS_*"]);
    expect(json.walls.sandbox.env.withheld).toContain("AWS_SECRET_ACCESS_KEY");
    expect(json.walls.sandbox.env.withheld).toContain("ANTHROPIC_API_KEY");
    expect(json.walls.sandbox.env.withheld).not.toContain("GH_TOKEN");
  });

  it.skipIf(!machine.active)("--json gives the same report as data", async () => {
    const run = await lathe(["doctor", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(report).toMatchObject({
      healthy: true,
      walls: {
        policy: { active: true },
        sandbox: { active: true, mechanism: "bubblewrap", enabledInSettings: true },
      },
    });
    expect(report.checks.every((c) => c.ok)).toBe(true);
  });

  it.skipIf(!machine.active)(
    "says the sandbox is off in settings, and how to turn it back on (still exit 0)",
    async () => {
      await sandboxOff();
      const run = await lathe(["doctor"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /OS sandbox {6}NOT ACTIVE: it is turned off \("sandbox": \{"enabled": false\} in .*settings\.json\)/,
      );
      expect(run.stdout).toMatch(/fix: remove that line, or set "enabled" to true/);
      expect(run.stdout).toMatch(/this machine can run it: bubblewrap/);
      const report = JSON.parse((await lathe(["doctor", "--json"])).stdout) as DoctorReport;
      expect(report.walls.sandbox).toMatchObject({
        active: false,
        enabledInSettings: false,
        machine: { active: true },
      });
    },
  );
});

describe("without the sandbox the CLI says so once and fails closed", () => {
  it("prints the notice once on stderr and refuses a command that is not provably read-only", async () => {
    await sandboxOff();
    const run = await lathe([
      "call",
      "bash",
      JSON.stringify({ command: "touch made.txt" }),
      "--mode",
      "yolo",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.match(/The OS sandbox is not active/g)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /lathe: The OS sandbox is not active: it is turned off .* To fix it: .* Run `lathe doctor` to check\./,
    );
    expect(envelopeOf(run).error_text).toMatch(
      /needs approval and this host cannot ask anyone.*The OS sandbox is not active \(/,
    );
    expect(existsSync(path.join(world.root, "made.txt"))).toBe(false);
  });

  it("still runs a provably read-only command", async () => {
    await sandboxOff();
    await writeFile(path.join(world.root, "a.txt"), "alpha\n");
    const run = await lathe(["call", "bash", JSON.stringify({ command: "cat a.txt" }), "--mode", "yolo"]);
    expect(run.code, run.stderr).toBe(0);
    // (Not its exit code: unconfined under `lathe call` with stdin closed, bash reports 129 — a
    // SIGHUP from the terminal that predates the sandbox.)
    expect(envelopeOf(run).data).toMatchObject({ output: "alpha\n" });
  });
});
