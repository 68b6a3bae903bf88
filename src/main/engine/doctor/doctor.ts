import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { resolveLatheHome } from "../config/lathe-home.ts";
import { keyVariablesOf } from "../config/key-variables.ts";
import { EMPTY_SETTINGS } from "../config/lathe-settings.ts";
import { loadPolicyConfig } from "../config/policy-config.ts";
import { ConfigError } from "../errors/config-error.ts";
import { effectiveSandboxSettings, type EffectiveSandboxSettings } from "../sandbox/sandbox-settings.ts";
import {
  machineSandbox,
  sandboxAvailability,
  type SandboxProbe,
  type SandboxStatus,
} from "../sandbox/sandbox-availability.ts";
import { sandboxAvailabilityCache } from "../sandbox/sandbox-availability-cache.ts";
import { hiddenEnvNames } from "../sandbox/hidden-env.ts";
import { isStdio } from "../mcp/mcp-command-line.ts";
import { hostEnv } from "../spawner/host-env.ts";
import { errorMessage } from "../errors/error-message.ts";
import { makeOwnedTempDir } from "../temp/owned-temp-dir.ts";
import type { DoctorModel } from "./model-check.ts";

/** One thing Lathe needs from the machine, and whether it has it. */
interface DoctorCheck {
  name: string;
  ok: boolean;
  /** Whether Lathe cannot work as designed without it. */
  required: boolean;
  detail: string;
  fix?: string;
}

/** The two walls around what the agent does: the parser policy and the OS sandbox. */
interface DoctorWalls {
  policy: { active: true; detail: string };
  sandbox: SandboxStatus & {
    /** Whether the settings turn it on (a project may only narrow the user's). */
    enabledInSettings: boolean;
    /** Whether this machine can run it, settings aside. */
    machine: SandboxStatus;
    /**
     * What confined processes cannot read (`sandbox.denyRead`, absolute): `present` is on this
     * machine now, `absent` not (nothing to hide). `$LATHE_HOME`'s own data is hidden besides.
     */
    hidden: { present: string[]; absent: string[] };
    /** Hosts confined processes may reach (`sandbox.allowNetwork`); none means no network at all. */
    network: string[];
    /**
     * Variables of this environment that bash, plugin commands and stdio MCP servers start
     * without, sandbox or not: `withheld` names those set now (never their values) that
     * `sandbox.denyEnv` or Lathe's own keys take away; `denyEnv` is the list in force.
     */
    env: { withheld: string[]; denyEnv: string[] };
  };
}

export interface DoctorReport {
  /** Every required check passed, the settings files read, and this machine can run the OS sandbox (the model aside). */
  healthy: boolean;
  /**
   * Present when a settings file cannot be read: every command here stops on it, and the walls
   * are reported under default settings.
   */
  settings?: SettingsProblem;
  walls: DoctorWalls;
  checks: DoctorCheck[];
  /** Which model `lathe run` here would use, or that none is chosen and how to choose one. */
  model: DoctorModel;
}

interface DoctorOptions {
  /** The workspace whose settings decide the sandbox (default: the current directory). */
  root?: string;
  latheHome?: string;
  /** The machine check behind the sandbox (tests simulate a machine without it). */
  probe?: SandboxProbe;
  /** The environment whose withheld variables are named and keys looked for (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
}

const REBUILD =
  "reinstall Lathe's dependencies with Node 24 (npm install, or npm rebuild better-sqlite3 node-pty isolated-vm; on Linux this needs python3, make and g++)";

async function check(
  name: string,
  required: boolean,
  run: () => Promise<string>,
  fix: string,
): Promise<DoctorCheck> {
  try {
    return { name, ok: true, required, detail: await run() };
  } catch (err) {
    return { name, ok: false, required, detail: errorMessage(err), fix };
  }
}

/**
 * The first line `command` prints, run by the process spawner (as Lathe's own commands are, so
 * a check from the app never forks its large process); throws when it cannot run or fails.
 */
async function runs(command: string, args: string[]): Promise<string> {
  const { processSpawner } = await import("../spawner/process-spawner.ts");
  const { end, stdout } = await processSpawner().exec(
    {
      file: command,
      args,
      line: "",
      cwd: process.cwd(),
      env: hostEnv(),
      timeoutMs: 10_000,
      maxBytes: 64 * 1024,
    },
    new AbortController().signal,
  );
  if (typeof end.code === "string") throw new Error(`spawn ${command} ${end.code}`);
  if (end.failed) throw new Error(`${command} exited with ${end.code ?? "a signal"}`);
  return stdout.toString("utf8").trim().split("\n")[0] ?? "";
}

/** A terminal started the way bash calls start theirs: by the process spawner, on node-pty. */
async function startsTerminal(): Promise<string> {
  const dir = await makeOwnedTempDir("doctor");
  try {
    const { runInPty } = await import("../builtin/pty-runner.ts");
    const proc = await runInPty({
      command: "exit 0",
      cwd: dir,
      signal: new AbortController().signal,
      output: { maxBytes: 4096, sidecarPath: path.join(dir, "output.txt"), root: dir },
    });
    const { exitCode } = await proc.exited;
    if (exitCode !== 0) throw new Error(`exit ${exitCode}`);
    return "starts a terminal";
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function toolchainChecks(platform: NodeJS.Platform): Promise<DoctorCheck[]> {
  const major = Number(process.versions.node.split(".")[0]);
  return Promise.all([
    check(
      "Node 24 or newer",
      true,
      async () => {
        if (!(major >= 24)) throw new Error(`this is Node ${process.versions.node}`);
        return `Node ${process.versions.node}`;
      },
      "install Node 24 (https://nodejs.org, or nvm install 24)",
    ),
    check(
      "better-sqlite3 (sessions and the audit trail)",
      true,
      async () => {
        const { default: Database } = await import("better-sqlite3");
        const db = new Database(":memory:");
        try {
          return `SQLite ${(db.prepare("select sqlite_version() as v").get() as { v: string }).v}`;
        } finally {
          db.close();
        }
      },
      REBUILD,
    ),
    check("node-pty (bash)", true, startsTerminal, REBUILD),
    check(
      "isolated-vm (plugins)",
      true,
      async () => {
        const { default: ivm } = await import("isolated-vm");
        const isolate = new ivm.Isolate({ memoryLimit: 8 });
        try {
          return `runs code: ${String(isolate.compileScriptSync("6 * 7").runSync(isolate.createContextSync()))}`;
        } finally {
          isolate.dispose();
        }
      },
      REBUILD,
    ),
    check(
      "ripgrep (the sandbox's scan for protected files)",
      platform === "linux",
      () => runs("rg", ["--version"]),
      platform === "darwin"
        ? "brew install ripgrep"
        : "install ripgrep (Debian/Ubuntu: sudo apt-get install ripgrep)",
    ),
  ]);
}

/** What the walls depend on in settings, and the check that failed when a settings file cannot be read. */
interface WallSettings {
  sandbox: EffectiveSandboxSettings;
  keyVariables: string[];
  /** Whether a stdio MCP server would start here (its PATH is then worth a line). */
  stdioServers: boolean;
  problem?: SettingsProblem;
}

/** A settings file Lathe cannot read: every command in this folder stops on it. */
interface SettingsProblem {
  file: string;
  problem: string;
  fix: string;
}

/**
 * The settings the walls are reported under. A settings file Lathe cannot read stops every run,
 * so it is a failed required check; the rest of the report goes on under default settings
 * (a diagnosis that stopped at the first broken file would hide everything else).
 */
function wallSettings(root: string, latheHome: string): WallSettings {
  try {
    const policy = loadPolicyConfig({ root, latheHome });
    return {
      sandbox: policy.sandbox,
      keyVariables: policy.keyVariables,
      stdioServers: policy.mcpServers.some((s) => isStdio(s.config) && !s.config.disabled),
    };
  } catch (err) {
    if (!ConfigError.isInstance(err) || err.code !== "config") throw err;
    const file = (err as ConfigError).file;
    const files = {
      user: path.join(latheHome, "settings.json"),
      project: path.join(root, ".lathe", "settings.json"),
    };
    return {
      sandbox: effectiveSandboxSettings(EMPTY_SETTINGS.sandbox, EMPTY_SETTINGS.sandbox, files),
      keyVariables: keyVariablesOf([EMPTY_SETTINGS]),
      stdioServers: false,
      problem: { file, problem: errorMessage(err), fix: `correct it, or move it aside` },
    };
  }
}

/**
 * What `lathe doctor` reports (and the app shows): which walls stand — the parser policy always,
 * the OS sandbox when settings and machine allow, else why not and the fix — and whether the
 * toolchain Lathe needs is there, and which model a run here would use. Healthy means nothing required is missing: every required
 * check passes and the machine can run the sandbox (a sandbox a person turned off in settings
 * is reported, not counted as missing).
 */
export async function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const root = path.resolve(options.root ?? process.cwd());
  const latheHome = path.resolve(options.latheHome ?? resolveLatheHome());
  const policy = wallSettings(root, latheHome);
  const settings = policy.sandbox;
  // Checked for real every time, and kept for the engines that start after (their fast path).
  const machine = await machineSandbox(options.probe, sandboxAvailabilityCache(latheHome), { refresh: true });
  const sandbox = settings.enabled ? machine : await sandboxAvailability(settings, options.probe);
  const env = (options.env ?? process.env) as NodeJS.ProcessEnv;
  const { modelCheck } = await import("./model-check.ts");
  const [toolchain, loginPath, model] = await Promise.all([
    toolchainChecks(options.probe?.platform ?? process.platform),
    policy.stdioServers
      ? import("./login-path-check.ts").then(({ loginPathCheck }) => loginPathCheck(latheHome, env))
      : undefined,
    modelCheck({ root, latheHome, env }),
  ]);
  const checks: DoctorCheck[] = loginPath ? [...toolchain, loginPath] : toolchain;

  return {
    healthy: policy.problem === undefined && machine.active && checks.every((c) => c.ok || !c.required),
    ...(policy.problem === undefined ? {} : { settings: policy.problem }),
    walls: {
      policy: {
        active: true,
        detail:
          "every call passes the capability check, permission rules, watchdog and approval; bash is parsed into every command it runs",
      },
      sandbox: {
        ...sandbox,
        enabledInSettings: settings.enabled,
        machine,
        hidden: {
          present: settings.denyRead.filter((p) => existsSync(p)),
          absent: settings.denyRead.filter((p) => !existsSync(p)),
        },
        network: settings.allowNetwork,
        env: {
          withheld: hiddenEnvNames(env, [...policy.keyVariables, ...settings.denyEnv]),
          denyEnv: settings.denyEnv,
        },
      },
    },
    checks,
    model,
  };
}
