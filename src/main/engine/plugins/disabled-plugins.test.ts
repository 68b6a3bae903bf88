import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { globalToolsDir } from "./plugin-discovery.ts";
import { PluginManager } from "./plugin-manager.ts";
import { plugin, writePlugin } from "../../../../test/support/plugin-test-kit.ts";

// `disabledPlugins` in the user's settings: the plugins a person turned off stay off, say so,
// and come back when the entry goes — each applied on the manager's next reload.

let base: string;
let latheHome: string;
let bundledDir: string;
let engine: Engine;
let manager: PluginManager;

async function settings(value: unknown): Promise<void> {
  await writeFile(
    path.join(latheHome, "settings.json"),
    typeof value === "string" ? value : JSON.stringify(value),
  );
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-disabled-plugins-")));
  latheHome = path.join(base, "home");
  bundledDir = path.join(base, "bundled");
  const root = path.join(base, "ws");
  await mkdir(root);
  await mkdir(latheHome);
  await writePlugin(bundledDir, "alpha", plugin("alpha", "return 'bundled';"));
  await writePlugin(globalToolsDir(latheHome), "alpha", plugin("alpha", "return 'global';"));
  await writePlugin(globalToolsDir(latheHome), "beta", plugin("beta", "return 'beta';"));
  engine = await Engine.create({ root, latheHome, extensions: false });
  manager = new PluginManager({
    registry: engine.registry,
    root: engine.root,
    latheHome: engine.latheHome,
    bundledDir,
    projectTrusted: false,
    watch: false,
  });
});

afterEach(async () => {
  await manager.close();
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

const originOf = (id: string) => engine.registry.get(id)?.origin;
const statusOf = (layer: string, name: string) =>
  manager.status().find((s) => s.layer === layer && s.name === name);

describe("PluginManager: plugins the user disabled", () => {
  it("leaves a LAYER:NAME entry unloaded, says who disabled it and how to undo it, and reloads it when removed", async () => {
    await settings({ disabledPlugins: ["global:alpha"] });
    await manager.load();
    // The global alpha is off, so the bundled one it used to shadow is bound again.
    expect(originOf("alpha")).toEqual({ layer: "bundled", kind: "plugin", name: "alpha" });
    expect(statusOf("global", "alpha")).toMatchObject({ state: "disabled", disabledByUser: true });
    expect(statusOf("global", "alpha")?.reason).toMatch(
      /You disabled the plugin alpha \(global\) with "global:alpha" in disabledPlugins of .*settings\.json/,
    );
    expect(statusOf("global", "alpha")?.fix).toMatch(
      /remove "global:alpha" from disabledPlugins in .*settings\.json, or press Enable in the app's Plugins panel/,
    );
    expect(statusOf("bundled", "alpha")).toMatchObject({ state: "active", disabledByUser: false });
    expect(engine.registry.disabledTools()).toEqual([
      {
        id: "alpha",
        origin: { layer: "global", kind: "plugin", name: "alpha" },
        reason: statusOf("global", "alpha")?.reason,
        fix: statusOf("global", "alpha")?.fix,
        byChoice: true,
      },
    ]);

    await settings({ disabledPlugins: [] });
    await manager.reload();
    expect(originOf("alpha")).toEqual({ layer: "global", kind: "plugin", name: "alpha" });
    expect(statusOf("global", "alpha")).toMatchObject({ state: "active", disabledByUser: false });
    expect(engine.registry.disabledTools()).toEqual([]);
  });

  it("turns a bare name off in every layer and leaves other plugins alone", async () => {
    await settings({ disabledPlugins: ["alpha"] });
    await manager.load();
    expect(originOf("alpha")).toBeUndefined();
    expect(originOf("beta")).toEqual({ layer: "global", kind: "plugin", name: "beta" });
    expect(
      manager
        .status()
        .filter((s) => s.disabledByUser)
        .map((s) => `${s.layer}:${s.name}`),
    ).toEqual(["bundled:alpha", "global:alpha"]);
  });

  it("keeps the last list when the settings file turns malformed, and reports why", async () => {
    await settings({ disabledPlugins: ["beta"] });
    await manager.load();
    expect(originOf("beta")).toBeUndefined();
    await settings("{ not json");
    await manager.reload();
    expect(originOf("beta")).toBeUndefined();
    const problem = engine.registry.disabledTools().find((d) => d.origin.name === undefined);
    expect(problem?.reason).toMatch(/Cannot read disabledPlugins from .*settings\.json .*not valid JSON/);
  });

  it.each([
    // A layer's name no folder of that layer has: surely a mistake.
    ["bundled:beta", /no bundled plugin is called "beta", so it turns nothing off\.$/],
    ["global:gamma", /no global plugin is called "gamma", so it turns nothing off\.$/],
    // A near miss of a plugin here: a slip.
    ["bta", /no plugin is called "bta", so it turns nothing off\. Did you mean "beta"\?$/],
    ["global:alhpa", /Did you mean "global:alpha"\?$/],
    // Any other bare or project name may be a plugin of another project: nothing to say.
    ["omega", undefined],
    ["project:omega", undefined],
    ["beta", undefined],
  ])("says when the disabledPlugins entry %j turns nothing off", async (entry, expected) => {
    await settings({ disabledPlugins: [entry] });
    await manager.load();
    const problems = engine.registry.disabledTools().filter((d) => d.origin.name === undefined);
    if (expected === undefined) {
      expect(problems).toEqual([]);
      return;
    }
    expect(problems).toHaveLength(1);
    expect(problems[0]?.reason).toMatch(
      new RegExp(`^disabledPlugins in .*settings\\.json names "${entry}", `),
    );
    expect(problems[0]?.reason).toMatch(expected);
    expect(problems[0]?.fix).toMatch(`correct or remove "${entry}" in disabledPlugins of `);
    // Correcting the entry clears the warning on the next reload.
    await settings({ disabledPlugins: [] });
    await manager.reload();
    expect(engine.registry.disabledTools()).toEqual([]);
  });

  it.each([["has a space"], ["cloud:alpha"], ["a/b"], [""]])(
    "refuses the disabledPlugins entry %j in settings",
    async (entry) => {
      await settings({ disabledPlugins: [entry] });
      await manager.load();
      const problem = engine.registry.disabledTools().find((d) => d.origin.name === undefined);
      expect(problem?.reason).toMatch(/disabledPlugins\.0/);
    },
  );
});
