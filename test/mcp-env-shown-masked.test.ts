import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// A person's MCP server is given credentials through `env`. `lathe call` says what it starts
// (stderr) and logs it ($LATHE_HOME/logs/mcp-<name>.log): neither may print a credential, whatever
// the variable is called, while the server itself still gets every value.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

const world = useCliWorld("lathe-mcp-env-");

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
    const envFile = path.join(world.root, "server-env.json");
    const script = path.join(world.home, "script.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [{ name: "echo", description: "Echo.", inputSchema: { type: "object" } }],
        envFile,
      }),
    );
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({
        mcpServers: {
          scripted: { command: process.execPath, args: [SCRIPTED, script], env: { ...SECRETS, ...SHOWN } },
        },
      }),
    );

    const call = await world.lathe(["call", "echo", "{}", "--mode", "yolo"]);
    expect(call.stdout).toContain("called echo");

    // Positive control: every value really is in the server's environment.
    const serverEnv = JSON.parse(await readFile(envFile, "utf8")) as Record<string, string>;
    for (const [name, value] of Object.entries({ ...SECRETS, ...SHOWN })) expect(serverEnv[name]).toBe(value);

    const log = await readFile(path.join(world.home, "logs", "mcp-scripted.log"), "utf8");
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
