import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// The keys Lathe reaches models and search with live in its environment. A command the model
// runs — perhaps because a file in the repository told it to — must not find them there: not
// to print into the conversation, not to save into the workspace for a later commit.

const world = useCliWorld("lathe-secrets-", {
  setup: async () => {
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({
        providers: { "openai-compatible": { baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_LLM_KEY" } },
        web: { search: { providers: [{ type: "brave", apiKeyEnv: "MY_SEARCH_KEY" }] } },
      }),
    );
  },
});

const rows = [
  { variable: "ANTHROPIC_API_KEY", value: "sk-ant-test-0123456789abcdef" },
  { variable: "OPENAI_API_KEY", value: "sk-openai-test-0123456789abcdef" },
  { variable: "BRAVE_API_KEY", value: "brave-test-0123456789abcdef" },
  // Named by the user's settings (see beforeEach).
  { variable: "MY_LLM_KEY", value: "llm-test-0123456789abcdef" },
  { variable: "MY_SEARCH_KEY", value: "search-test-0123456789abcdef" },
];

describe("Lathe's own keys do not reach bash", () => {
  it.each(rows)(
    "$variable: not in the environment bash sees, nor saved from it",
    async ({ variable, value }) => {
      const env = { [variable]: value };
      const command = `env > leak.txt; echo "$${variable}"`;

      // Positive control: plain bash with the same environment writes the key into the folder.
      const control = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-secrets-control-")));
      try {
        execFileSync("bash", ["-c", command], { cwd: control, env: { ...process.env, ...env } });
        expect(await readFile(path.join(control, "leak.txt"), "utf8")).toContain(value);
      } finally {
        await rm(control, { recursive: true, force: true });
      }

      const run = await world.lathe(["call", "bash", JSON.stringify({ command }), "--mode", "yolo"], { env });
      const envelope = envelopeOf(run);
      expect(envelope.type).toBe("output");
      expect(JSON.stringify(envelope)).not.toContain(value);
      const saved = await readFile(path.join(world.root, "leak.txt"), "utf8");
      expect(saved).not.toContain(value);
      expect(saved).not.toContain(`${variable}=`);
      // The rest of the environment is still there: only the keys were taken out.
      expect(saved).toMatch(/^PATH=/m);
    },
  );
});
