import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT, runLathe } from "./support/lathe-cli.ts";

// A person's MCP server is given credentials through `env`. `lathe call` says what it starts
// (stderr) and logs it ($LATHE_HOME/logs/mcp-<name>.log): neither may print a credential, whatever
// the variable is called, while the server itself still gets every value.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-env-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-env-root-")));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

/** Values no line a person or a log sees may hold, under the names people give them. */
const SECRETS: Record<string, string> = {
  NOTION_KEY: "secret_abc",
  DATABASE_URL: "postgres://u:pw@h/db",
  DB_URI: "postgres://app:Hunter2hunter@db.internal:5432/app",
  GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  LINEAR: "lin_api_x7Qw9ZpL2mVt4RbN8sKd",
  SLACK_WEBHOOK: "https://hooks.slack.com/services/T0AAAA/B0BBBB/XXXXyyyyZZZZ",
  OPENAI: "sk-proj-abcdefghijklmnop123456",
};

/** Values that say what runs and hold no secret: shown as they are. */
const SHOWN: Record<string, string> = {
  LOG_LEVEL: "debug",
  PORT: "8080",
  NOTES_DIR: "/home/me/notes",
  OLLAMA_HOST: "http://localhost:11434",
  NODE_OPTIONS: "--max-old-space-size=512",
};

describe("an MCP server's env values in what Lathe prints and logs", () => {
  it("masks every value that may be a credential, shows the harmless ones, and the server still gets them all", async () => {
    const envFile = path.join(root, "server-env.json");
    const script = path.join(home, "script.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [{ name: "echo", description: "Echo.", inputSchema: { type: "object" } }],
        envFile,
      }),
    );
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({
        mcpServers: {
          scripted: { command: process.execPath, args: [SCRIPTED, script], env: { ...SECRETS, ...SHOWN } },
        },
      }),
    );

    const call = await runLathe(["call", "echo", "{}", "--mode", "yolo"], { home, cwd: root });
    expect(call.stdout).toContain("called echo");

    // Positive control: every value really is in the server's environment.
    const serverEnv = JSON.parse(await readFile(envFile, "utf8")) as Record<string, string>;
    for (const [name, value] of Object.entries({ ...SECRETS, ...SHOWN })) expect(serverEnv[name]).toBe(value);

    const log = await readFile(path.join(home, "logs", "mcp-scripted.log"), "utf8");
    const starting = call.stderr.split("\n").find((line) => line.includes("starting MCP server scripted"));
    const logged = log.split("\n").find((line) => line.includes("starting:"));
    for (const line of [starting, logged]) {
      expect(line).toBeDefined();
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(line).toContain(`${name}=[REDACTED]`);
        expect(line).not.toContain(value);
      }
      for (const [name, value] of Object.entries(SHOWN)) expect(line).toContain(`${name}=${value}`);
    }
  });
});
