import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { globalToolsDir } from "../plugins/plugin-discovery.ts";
import { plugin, writePlugin } from "../../../../test/support/plugin-test-kit.ts";

// An engine watches its plugin folders and queues what changes for the next turn; a one-shot host
// (`lathe call`, `lathe tools`) runs no turn and asks for no watching.

let base: string;
let root: string;
let latheHome: string;
const engines: Engine[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-engine-watch-")));
  root = path.join(base, "ws");
  latheHome = path.join(base, "home");
  await mkdir(root);
  await writePlugin(globalToolsDir(latheHome), "counter", plugin("counter", "return 'old';"));
});

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  await rm(base, { recursive: true, force: true });
});

async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("Engine: watching plugin folders", () => {
  it("queues a plugin's change by default, and not with watchExtensions: false", async () => {
    const bundledPluginsDir = path.join(base, "bundled");
    const watching = await Engine.create({ root, latheHome, bundledPluginsDir });
    const oneShot = await Engine.create({ root, latheHome, bundledPluginsDir, watchExtensions: false });
    engines.push(watching, oneShot);
    expect(oneShot.registry.get("counter")?.origin).toMatchObject({ kind: "plugin", name: "counter" });

    await writeFile(
      path.join(globalToolsDir(latheHome), "counter", "index.js"),
      "export async function execute() { return 'new'; }",
    );
    // The watching engine is the positive control: the same change, seen through the same folder.
    await waitFor(() => watching.extensions?.plugins.hasPendingChanges() === true, "the change to be queued");
    expect(oneShot.extensions?.plugins.hasPendingChanges()).toBe(false);
  });
});
