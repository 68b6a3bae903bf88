import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { globalToolsDir } from "../plugins/plugin-discovery.ts";
import { plugin, writePlugin } from "../../../../test/support/plugin-test-kit.ts";

// An engine asks for its MCP servers before it loads its plugins (their many file reads would
// otherwise hold the servers' start back); a server that waits for a person must not hold the
// engine's start, or its plugins, with it.

let base: string;
let root: string;
let latheHome: string;
const engines: Engine[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-engine-start-")));
  root = path.join(base, "ws");
  latheHome = path.join(base, "home");
  await mkdir(root);
  await writePlugin(globalToolsDir(latheHome), "counter", plugin("counter", "return 'one';"));
});

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  await rm(base, { recursive: true, force: true });
});

describe("Engine: starting with MCP servers", () => {
  it("starts, its plugins listed, while a stdio server waits for a person's approval", async () => {
    // The OS sandbox off: a stdio server may then run only once a person approves it.
    await writeFile(
      path.join(latheHome, "settings.json"),
      JSON.stringify({
        sandbox: { enabled: false },
        mcpServers: { waiting: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] } },
      }),
    );
    let asked = false;
    let answer: (approved: boolean) => void = () => undefined;
    const engine = await Engine.create({
      root,
      latheHome,
      bundledPluginsDir: path.join(base, "bundled"),
      watchExtensions: false,
      approveUnsandboxedMcp: () => {
        asked = true;
        return new Promise<boolean>((resolve) => {
          answer = resolve;
        });
      },
    });
    engines.push(engine);
    // The person was asked, has not answered, and the engine is up with its plugin.
    expect(asked).toBe(true);
    expect(engine.registry.get("counter")?.origin).toMatchObject({ kind: "plugin", name: "counter" });
    answer(false);
  });
});
