import { describe, expect, it } from "vitest";
import { McpServerSchema } from "../config/lathe-settings.ts";
import { commandLine } from "./mcp-command-line.ts";
import { shownEnvValue } from "./shown-env-value.ts";

describe("an MCP server's env value as a person sees it", () => {
  it.each([
    // Named for a credential.
    ["GITHUB_TOKEN", "debug"],
    ["MY_PASSWORD", "hunter"],
    ["DATABASE_URL", "postgres://u:pw@h/db"],
    ["apiKey", "plain"],
    // Named KEY, whatever the key is for.
    ["NOTION_KEY", "secret_abc"],
    ["stripeKey", "abc"],
    ["LICENSE_KEYS", "x"],
    // Named for nothing in particular, but not of a harmless shape.
    ["NOTION", "secret_abc"],
    ["DB_URI", "postgres://app:pw@db/app"],
    ["WEBHOOK", "https://hooks.slack.com/services/T0AAAA/B0BBBB/XXXXyyyyZZZZ"],
    ["API_BASE", "https://api.example.com/v1?key=abc"],
    ["LINEAR", "lin_api_x7Qw9ZpL2mVt4RbN8sKd"],
    ["ID", "a1b2c3d4e5"],
    ["WORDS", "correct horse battery staple and many more words to pass sixty-four chars"],
  ])("%s=%s is masked", (name, value) => {
    expect(shownEnvValue(name, value)).toBeUndefined();
  });

  it.each([
    ["LOG_LEVEL", "debug", "debug"],
    ["GREETING", "hi there", "hi there"],
    ["PORT", "8080", "8080"],
    ["VERSION", "1.2.3", "1.2.3"],
    ["EMPTY", "", ""],
    ["NOTES_DIR", "/home/me/notes", "/home/me/notes"],
    ["CONFIG", "~/x/config.json", "~/x/config.json"],
    ["OLLAMA_HOST", "http://localhost:11434", "http://localhost:11434"],
    ["API_URL", "https://x.dev/api", "https://x.dev/api"],
    ["KEYBOARD", "us", "us"],
    // Changes what runs: shown for review, its secret-looking parts masked.
    ["NODE_OPTIONS", "--require ./evil.js", "--require ./evil.js"],
    ["LD_PRELOAD", "/tmp/evil.so", "/tmp/evil.so"],
    ["PYTHONPATH", "https://u:pw@h/x", "https://u:[REDACTED]@h/x"],
  ])("%s=%s is shown as %s", (name, value, shown) => {
    expect(shownEnvValue(name, value)).toBe(shown);
  });

  it("the command line masks a secret argument too, and quotes what it shows", () => {
    const line = commandLine(
      McpServerSchema.parse({
        command: "npx",
        args: ["server", "--token", "abcDEF123456789"],
        env: { NOTION_KEY: "secret_abc", NODE_OPTIONS: "--require ./x.js", MODE: "two words" },
      }),
      "/w",
    );
    expect(line).toBe(
      "cd /w && MODE='two words' NODE_OPTIONS='--require ./x.js' NOTION_KEY=[REDACTED] npx server --token [REDACTED]",
    );
  });
});
