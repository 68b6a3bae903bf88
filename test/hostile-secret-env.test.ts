import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { envelopeOf, PACKAGE_ROOT, runLathe, type Run } from "./support/lathe-cli.ts";

// A person runs Lathe from a shell where GH_TOKEN, AWS_SECRET_ACCESS_KEY, NPM_TOKEN… are set. A
// command run for a model — one a README talked it into — must not find them: `env > notes.txt`
// puts them in the workspace, and the next commit or granted host carries them away. Every
// process Lathe starts for the model or an extension starts without them (sandbox.denyEnv).
// Each row: plain bash with the variable set really copies its value into a file (the positive
// control); through Lathe, yolo, the file has no value — and the names that must stay, stay.

const machine = await machineSandbox();
const NO_SANDBOX = !machine.active;
if (NO_SANDBOX)
  console.log(
    `hostile-secret-env is skipped: without an OS sandbox \`env > file\` needs a person (${machine.reason})`,
  );

const SCRIPTED_MCP = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

interface Row {
  name: string;
  /** Whether the default sandbox.denyEnv withholds it. */
  withheld: boolean;
}

const ROWS: Row[] = [
  { name: "GH_TOKEN", withheld: true },
  { name: "GITHUB_TOKEN", withheld: true },
  { name: "AWS_SECRET_ACCESS_KEY", withheld: true },
  { name: "AWS_SESSION_TOKEN", withheld: true },
  { name: "AWS_ACCESS_KEY_ID", withheld: true },
  { name: "NPM_TOKEN", withheld: true },
  { name: "HF_TOKEN", withheld: true },
  { name: "AZURE_CLIENT_SECRET", withheld: true },
  { name: "STRIPE_SECRET_KEY", withheld: true },
  { name: "OPENROUTER_API_KEY", withheld: true },
  { name: "DB_PASSWORD", withheld: true },
  { name: "PGPASSWORD", withheld: true },
  { name: "DATABASE_URL", withheld: true },
  { name: "tf_var_db_password", withheld: true },
  { name: "npm_config_//registry.npmjs.org/:_authToken", withheld: true },
  // Lathe's own key: withheld whatever denyEnv says.
  { name: "ANTHROPIC_API_KEY", withheld: true },
  // Names that hold no secret and that commands need: they must reach the command.
  { name: "TOKENIZERS_PARALLELISM", withheld: false },
  { name: "AWS_REGION", withheld: false },
  { name: "AWS_PROFILE", withheld: false },
  { name: "GPG_KEY", withheld: false },
  { name: "SECRETS_DIR", withheld: false },
  { name: "LATHE_TEST_PLAIN", withheld: false },
];

const valueOf = (name: string): string =>
  `val-${ROWS.findIndex((r) => r.name === name)}-${name.length}-5c0e9a7d`;
const ROW_ENV: Record<string, string> = Object.fromEntries(ROWS.map((r) => [r.name, valueOf(r.name)]));

let base: string;
let home: string;
let fakeHome: string;
let ws: string;

beforeAll(async () => {
  if (NO_SANDBOX) return;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secret-env-")));
  home = path.join(base, "lathe-home");
  fakeHome = path.join(base, "person");
  ws = path.join(base, "ws");
  for (const dir of [home, fakeHome, ws]) await mkdir(dir);
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

const lathe = (args: string[], env: Record<string, string> = ROW_ENV): Promise<Run> =>
  runLathe([...args, "--mode", "yolo"], { home, cwd: ws, env: { HOME: fakeHome, ...env } });
const bash = (command: string, env?: Record<string, string>): Promise<Run> =>
  lathe(["call", "bash", JSON.stringify({ command })], env);
const userSettings = (settings: object) =>
  writeFile(path.join(home, "settings.json"), JSON.stringify(settings));

/** What `file` in the workspace holds (then removed), or "" when the command made none. */
async function taken(file: string): Promise<string> {
  const at = path.join(ws, file);
  const text = existsSync(at) ? await readFile(at, "utf8") : "";
  await rm(at, { force: true });
  return text;
}

/** `command` under plain bash, with `env` added to this process's: what `leak.txt` then holds. */
async function plainBash(command: string, env: Record<string, string>): Promise<string> {
  const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secret-env-control-")));
  try {
    execFileSync("bash", ["-c", command], { cwd: control, env: { ...process.env, HOME: fakeHome, ...env } });
    return await readFile(path.join(control, "leak.txt"), "utf8");
  } finally {
    await rm(control, { recursive: true, force: true });
  }
}

describe.skipIf(NO_SANDBOX)("bash: credentials in Lathe's environment", () => {
  const COMMAND = 'env > leak.txt; echo "gh=[$GH_TOKEN] aws=[$AWS_SECRET_ACCESS_KEY]"';
  let leak = "";
  let run: Run;

  beforeAll(async () => {
    if (NO_SANDBOX) return;
    run = await bash(COMMAND);
    leak = await taken("leak.txt");
  });

  it.each(ROWS)(
    "$name: plain bash copies it into a file; through Lathe it is withheld: $withheld",
    async ({ name, withheld }) => {
      const line = `${name}=${valueOf(name)}`;
      // Positive control: the same command under plain bash writes the variable and its value.
      expect(await plainBash(COMMAND, ROW_ENV)).toContain(line);

      expect(envelopeOf(run).type).toBe("output");
      if (withheld) {
        expect(leak).not.toContain(valueOf(name));
        expect(run.stdout).not.toContain(valueOf(name));
      } else {
        expect(leak).toContain(line);
      }
    },
  );

  it("a command that names a withheld variable finds it empty", () => {
    expect(envelopeOf(run).data?.["output"]).toMatch(/^gh=\[\] aws=\[\]$/m);
  });

  it("sandbox.denyEnv: [] withholds nothing but Lathe's own keys", async () => {
    await userSettings({ sandbox: { denyEnv: [] } });
    try {
      expect(envelopeOf(await bash("env > leak.txt")).type).toBe("output");
      const text = await taken("leak.txt");
      expect(text).toContain(`GH_TOKEN=${valueOf("GH_TOKEN")}`);
      expect(text).toContain(`DB_PASSWORD=${valueOf("DB_PASSWORD")}`);
      expect(text).not.toContain(valueOf("ANTHROPIC_API_KEY"));
    } finally {
      await rm(path.join(home, "settings.json"), { force: true });
    }
  });

  it("the user's sandbox.denyEnv replaces the default list (names and patterns)", async () => {
    await userSettings({ sandbox: { denyEnv: ["MY_CLIENT_CERT_PEM", "acme_*"] } });
    const env = { ...ROW_ENV, MY_CLIENT_CERT_PEM: "pem-b81d", ACME_LICENSE: "lic-93fa" };
    try {
      // Positive control: plain bash copies both.
      const control = await plainBash("env > leak.txt", env);
      expect(control).toContain("pem-b81d");
      expect(control).toContain("lic-93fa");

      expect(envelopeOf(await bash("env > leak.txt", env)).type).toBe("output");
      const text = await taken("leak.txt");
      expect(text).not.toContain("pem-b81d");
      expect(text).not.toContain("lic-93fa");
      expect(text).toContain(`GH_TOKEN=${valueOf("GH_TOKEN")}`);
    } finally {
      await rm(path.join(home, "settings.json"), { force: true });
    }
  });

  it("a project's .lathe/settings.json can withhold more, never fewer (trusted or not)", async () => {
    await mkdir(path.join(ws, ".lathe"), { recursive: true });
    const env = { ...ROW_ENV, PROJECT_DEPLOY_KEY: "deploy-5d2c" };
    try {
      expect(await plainBash("env > leak.txt", env)).toContain("deploy-5d2c");
      // It adds one name, and tries to empty the list: the user's default list stays.
      await writeFile(
        path.join(ws, ".lathe", "settings.json"),
        JSON.stringify({ sandbox: { denyEnv: ["PROJECT_DEPLOY_KEY"] } }),
      );
      expect(envelopeOf(await bash("env > leak.txt", env)).type).toBe("output");
      const text = await taken("leak.txt");
      expect(text).not.toContain("deploy-5d2c");
      expect(text).not.toContain(valueOf("GH_TOKEN"));
      expect(text).toContain(`TOKENIZERS_PARALLELISM=${valueOf("TOKENIZERS_PARALLELISM")}`);
    } finally {
      await rm(path.join(ws, ".lathe"), { recursive: true, force: true });
    }
  });
});

describe.skipIf(NO_SANDBOX)("a plugin's shell.run: credentials in Lathe's environment", () => {
  const PRINTENV = {
    name: "print_env",
    version: "1.0.0",
    description: "Prints the environment its command gets.",
    input_schema: { type: "object", properties: {} },
    readOnly: true,
    gated: false,
    requires: { shell: [{ cmd: "printenv", args: [] }] },
  };

  beforeAll(async () => {
    if (NO_SANDBOX) return;
    const dir = path.join(home, "tools", "print_env");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "tool.yaml"), stringify(PRINTENV));
    await writeFile(path.join(dir, "TOOL.md"), "Prints the environment.");
    await writeFile(
      path.join(dir, "index.js"),
      'export async function execute(args, runtime) { return await runtime.shell.run("printenv", []); }\n',
    );
  });

  afterAll(async () => {
    if (base) await rm(path.join(home, "tools"), { recursive: true, force: true });
  });

  const printenv = async (env: Record<string, string>): Promise<string> => {
    const envelope = envelopeOf(await lathe(["call", "print_env", "{}"], env));
    expect(envelope.type, envelope.error_text).toBe("output");
    return String(envelope.data?.["output"]);
  };

  it("gets none of the credentials plain printenv prints", async () => {
    const control = execFileSync("printenv", { env: { ...process.env, ...ROW_ENV }, encoding: "utf8" });
    for (const { name, withheld } of ROWS) if (withheld) expect(control).toContain(valueOf(name));

    const output = await printenv(ROW_ENV);
    expect(output).toMatch(/^PATH=/m);
    for (const { name, withheld } of ROWS) if (withheld) expect(output).not.toContain(valueOf(name));
  });

  it("loses what sandbox.denyEnv names of the little it gets (TZ here)", async () => {
    const env = { ...ROW_ENV, TZ: "Etc/UTC" };
    // Positive control: with the default list, the plugin's command gets TZ.
    expect(await printenv(env)).toMatch(/^TZ=Etc\/UTC$/m);
    await userSettings({ sandbox: { denyEnv: ["TZ", "*_TOKEN"] } });
    try {
      expect(await printenv(env)).not.toMatch(/^TZ=/m);
    } finally {
      await rm(path.join(home, "settings.json"), { force: true });
    }
  });
});

describe.skipIf(NO_SANDBOX)("a stdio MCP server: credentials in Lathe's environment", () => {
  let script: string;
  const envFile = () => path.join(ws, "server-env.json");
  const server = (extra: object) => ({
    command: process.execPath,
    args: [SCRIPTED_MCP, script],
    env: { SERVER_OWN_TOKEN: "own-7e21" },
    ...extra,
  });
  /** Start the server (a call to its tool) and read the environment it wrote. */
  const serverEnv = async (): Promise<Record<string, string>> => {
    const envelope = envelopeOf(await lathe(["call", "ping", "{}"]));
    expect(envelope.type, envelope.error_text).toBe("output");
    const text = await taken("server-env.json");
    expect(text).not.toBe("");
    return JSON.parse(text) as Record<string, string>;
  };

  beforeAll(async () => {
    if (NO_SANDBOX) return;
    script = path.join(base, "env-server.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [{ name: "ping", description: "Answer.", inputSchema: { type: "object" } }],
        envFile: envFile(),
      }),
    );
  });

  afterAll(async () => {
    if (base) await rm(path.join(home, "settings.json"), { force: true });
  });

  it("started outside Lathe it writes every credential; in Lathe none, with and without allowEnv", async () => {
    // Positive control: the same server started directly by a process with these variables.
    const child = spawn(process.execPath, [SCRIPTED_MCP, script], {
      env: { ...process.env, ...ROW_ENV },
      stdio: ["pipe", "ignore", "ignore"],
    });
    try {
      for (let i = 0; i < 200 && !existsSync(envFile()); i++) await sleep(25);
    } finally {
      child.kill();
    }
    const direct = JSON.parse(await taken("server-env.json")) as Record<string, string>;
    for (const { name, withheld } of ROWS) if (withheld) expect(direct[name]).toBe(valueOf(name));

    await userSettings({ mcpServers: { envdump: server({}) } });
    const inLathe = await serverEnv();
    for (const { name, withheld } of ROWS) if (withheld) expect(inLathe[name]).toBeUndefined();
    expect(JSON.stringify(inLathe)).not.toContain("5c0e9a7d");
    // Its own env block reaches it, though the name looks like a credential's.
    expect(inLathe["SERVER_OWN_TOKEN"]).toBe("own-7e21");
    expect(inLathe["HOME"]).toBe(fakeHome);

    // The person lets this one server have GH_TOKEN from Lathe's environment.
    await userSettings({ mcpServers: { envdump: server({ allowEnv: ["GH_TOKEN"] }) } });
    // allowEnv is part of the server's pinned command line: it runs once the person approved it.
    expect(JSON.stringify(envelopeOf(await lathe(["call", "ping", "{}"])))).toMatch(
      /changed since you approved it/,
    );
    expect(await taken("server-env.json")).toBe("");
    const trust = await runLathe(["trust", "--mcp-server", "envdump"], {
      home,
      cwd: ws,
      env: { HOME: fakeHome, ...ROW_ENV },
    });
    expect(trust.code, trust.stderr).toBe(0);
    await taken("server-env.json");
    const allowed = await serverEnv();
    expect(allowed["GH_TOKEN"]).toBe(valueOf("GH_TOKEN"));
    for (const { name, withheld } of ROWS)
      if (withheld && name !== "GH_TOKEN") expect(allowed[name]).toBeUndefined();
  });
});
