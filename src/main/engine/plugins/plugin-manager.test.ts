import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { toolInfo } from "../tools/tool-registry.ts";
import { PluginManager } from "./plugin-manager.ts";
import { describeProjectPlugins, pinProjectPlugins } from "./project-plugins.ts";
import {
  manifestFields,
  openPluginWorld,
  plugin,
  writePlugin,
  type PluginWorld,
} from "../../../../test/support/plugin-test-kit.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

let world: PluginWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const echo = (label: string) =>
  plugin("echo", `return { from: ${JSON.stringify(label)}, args };`, {
    input_schema: { type: "object", additionalProperties: true },
  });

async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("PluginManager: broken plugins", () => {
  const good = plugin("good_tool", "return 'fine';");
  it.each([
    [
      "bad YAML",
      { yaml: "name: x\n  version: [1\n", js: "export async function execute() {}" },
      "tool.yaml",
      /line \d+, column \d+/,
      /correct the YAML syntax/,
    ],
    [
      "no tool.yaml",
      { js: "export async function execute() {}" },
      "tool.yaml",
      /the file is missing/,
      /add tool\.yaml/,
    ],
    [
      "a version that is not semver",
      { yaml: manifestFields("v", { version: "one" }), js: "export async function execute() {}" },
      "tool.yaml",
      /field "version"/,
      /version: 1\.0\.0/,
    ],
    [
      "an unknown requires key",
      { yaml: manifestFields("r", { requires: { files: {} } }), js: "export async function execute() {}" },
      "tool.yaml",
      /field "requires.files".*did you mean "fs"/,
      /declare only fs/,
    ],
    [
      "a missing entry file",
      { yaml: manifestFields("m") },
      "index.js",
      /the entry file \(field "entry" of tool\.yaml\) is missing/,
      /add index\.js exporting/,
    ],
    [
      "a missing custom entry",
      { yaml: manifestFields("m2", { entry: "main.js" }), js: "" },
      "main.js",
      /field "entry" of tool\.yaml\) is missing/,
      /point "entry" at the file/,
    ],
    [
      "a syntax error",
      { yaml: manifestFields("s"), js: "export async function execute(args) {\n  return args +;\n}\n" },
      "index.js",
      /line 2, column \d+ has a JavaScript syntax error \(SyntaxError: Unexpected token/,
      /correct the JavaScript/,
    ],
    [
      "an import",
      {
        yaml: manifestFields("i"),
        js: 'import fs from "node:fs";\nexport async function execute() { return fs; }',
      },
      "index.js",
      /import "node:fs" is not allowed/,
      /self-contained ES module/,
    ],
    [
      "no execute export",
      { yaml: manifestFields("e"), js: "export async function run() {}" },
      "index.js",
      /the export `execute` is missing/,
      /export async function execute/,
    ],
  ])(
    "disables a plugin with %s, naming the file, the field and the fix; the others carry on",
    async (_name, files, file, what, fix) => {
      world = await openPluginWorld({
        arrange: async (w) => {
          await writePlugin(w.globalDir, "broken", files);
          await writePlugin(w.globalDir, "good", good);
        },
      });
      const broken = world.manager.status().find((s) => s.name === "broken");
      expect(broken?.state).toBe("disabled");
      expect(broken?.reason).toContain(path.join(world.globalDir, "broken", file));
      expect(broken?.reason).toMatch(what);
      // What is wrong in the reason, what to do in the fix: each said once.
      expect(broken?.reason).not.toMatch(/Fix: /);
      expect(broken?.fix).toMatch(fix);
      expect(broken?.fix).toMatch(/; the plugin reloads once the files are fixed$/);
      const disabled = world.engine.registry.disabledTools();
      expect(disabled).toHaveLength(1);
      expect(disabled[0]?.origin).toEqual({ layer: "global", kind: "plugin", name: "broken" });
      expect(disabled[0]?.reason).toBe(broken?.reason);
      const session = await world.session();
      expect(outputOf(await session.call("good_tool", {}))).toBe("fine");
    },
  );

  it("refuses an entry that is a symlink out of the plugin folder", async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writeFile(
          path.join(w.base, "secret.js"),
          "export async function execute() { return 'secret'; }",
        );
        const dir = await writePlugin(w.globalDir, "sneaky", { yaml: manifestFields("sneaky") });
        await symlink(path.join(w.base, "secret.js"), path.join(dir, "index.js"));
      },
    });
    expect(world.manager.status()[0]?.reason).toMatch(
      /index\.js: the entry file .* leads outside the plugin folder/,
    );
  });

  it("disables the second of two plugins that declare the same tool in one layer", async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writePlugin(w.globalDir, "a-echo", echo("a"));
        await writePlugin(w.globalDir, "b-echo", echo("b"));
      },
    });
    const [a, b] = world.manager.status();
    expect(a?.state).toBe("active");
    expect(b?.state).toBe("disabled");
    expect(b?.reason).toMatch(/declared twice in the global layer.*Rename one of them/);
  });
});

describe("PluginManager: layers, shadowing and origins", () => {
  it("binds a name to the latest layer and reports what it shadows", async () => {
    world = await openPluginWorld({
      trusted: true,
      arrange: async (w) => {
        await writePlugin(w.bundledDir, "echo", echo("bundled"));
        await writePlugin(w.globalDir, "my-echo", echo("global"));
        await writePlugin(w.projectDir, "project-echo", echo("project"));
      },
    });
    // Trusted but not pinned: the project plugin stays out until `lathe trust` pins it.
    expect(world.engine.registry.get("echo")?.origin).toEqual({
      layer: "global",
      kind: "plugin",
      name: "my-echo",
    });
    await pinProjectPlugins(world.root, world.latheHome);
    await world.manager.reload();
    const bound = world.engine.registry.get("echo");
    expect(bound?.origin).toEqual({ layer: "project", kind: "plugin", name: "project-echo" });
    expect(bound?.shadows).toEqual([
      { layer: "bundled", kind: "plugin", name: "echo" },
      { layer: "global", kind: "plugin", name: "my-echo" },
    ]);
    expect(world.engine.listTools().find((t) => t.id === "echo")?.origin).toEqual(bound?.origin);
    const session = await world.session();
    expect(outputOf(await session.call("echo", { n: 1 }))).toEqual({ from: "project", args: { n: 1 } });
  });

  it("refuses a plugin named after a locked built-in tool, and keeps the built-in", async () => {
    world = await openPluginWorld({
      arrange: (w) =>
        writePlugin(w.globalDir, "my-read", plugin("read", "return 'mine';")).then(() => undefined),
    });
    const info = toolInfo(world.engine.registry.get("read") as never);
    expect(info.origin).toEqual({ layer: "builtin", kind: "builtin" });
    const status = world.manager.status().find((s) => s.name === "my-read");
    expect(status?.state).toBe("disabled");
    expect(status?.reason).toMatch(
      /field "name" is "read", one of Lathe's locked built-in tools, which a plugin cannot replace/,
    );
  });

  it("does not load an untrusted project's plugins, and says how to trust it", async () => {
    world = await openPluginWorld({
      arrange: (w) =>
        writePlugin(w.projectDir, "local", plugin("local_tool", "return 1;")).then(() => undefined),
    });
    expect(world.engine.registry.get("local_tool")).toBeUndefined();
    const status = world.manager.status().find((s) => s.name === "local");
    expect(status?.state).toBe("disabled");
    expect(status?.reason).toContain(`not trusted`);
    expect(status?.fix).toContain(`lathe trust --root ${world.root}`);
    // Read, never run: the disabled entry carries the tool id the folder declares.
    expect(world.engine.registry.disabledTool("local_tool")?.origin).toEqual({
      layer: "project",
      kind: "plugin",
      name: "local",
    });
  });
});

describe("PluginManager: trust pins", () => {
  it("loads pinned project plugins and disables one that changed or was added since, saying why", async () => {
    world = await openPluginWorld({
      trusted: true,
      arrange: (w) =>
        writePlugin(w.projectDir, "stamp", plugin("stamp", "return 'v1';")).then(() => undefined),
    });
    expect(await describeProjectPlugins(world.root, world.latheHome)).toMatchObject([
      { name: "stamp", pinned: "new" },
    ]);
    const pinned = await pinProjectPlugins(world.root, world.latheHome);
    expect(pinned).toMatchObject([
      { name: "stamp", pinned: "match", dir: path.join(world.projectDir, "stamp") },
    ]);
    await world.manager.reload();
    const session = await world.session();
    expect(outputOf(await session.call("stamp", {}))).toBe("v1");

    // MCPoison: the approved plugin is swapped for something else.
    await writeFile(
      path.join(world.projectDir, "stamp", "index.js"),
      "export async function execute() { return 'v2 evil'; }",
    );
    await writePlugin(world.projectDir, "extra", plugin("extra", "return 1;"));
    expect(await describeProjectPlugins(world.root, world.latheHome)).toMatchObject([
      { name: "extra", pinned: "new" },
      { name: "stamp", pinned: "changed" },
    ]);
    await world.manager.reload();
    expect(world.engine.registry.get("stamp")).toBeUndefined();
    const byName = Object.fromEntries(world.manager.status().map((s) => [s.name, s]));
    expect(byName.stamp?.reason).toBe(
      `tool.yaml/TOOL.md/index.js of stamp changed since you trusted this project, so it is not loaded until you review it and trust the project again.`,
    );
    expect(byName.stamp?.fix).toBe(
      `review ${path.join(world.projectDir, "stamp")}, then run \`lathe trust --root ${world.root}\` (or approve it in the app's Plugins panel)`,
    );
    // The model is told what happened and what the user must do, not "Unknown tool".
    expect(errorOf(await session.call("stamp", {}))).toBe(
      `Tool "stamp" (project plugin "stamp") is disabled, so it was not run. ${byName.stamp?.reason} To enable it again, the user must ${byName.stamp?.fix}. Tell the user; calling it again fails the same way until then.`,
    );
    expect(byName.extra?.reason).toMatch(/was added after you trusted this project/);

    await pinProjectPlugins(world.root, world.latheHome);
    await world.manager.reload();
    expect(outputOf(await session.call("stamp", {}))).toBe("v2 evil");
    expect(outputOf(await session.call("extra", {}))).toBe(1);
  });

  it("refuses to pin for a project that is not trusted", async () => {
    world = await openPluginWorld();
    await expect(pinProjectPlugins(world.root, world.latheHome)).rejects.toThrow(/not trusted/);
  });
});

describe("PluginManager: reload between turns", () => {
  it("queues folder changes and applies them only when asked", async () => {
    world = await openPluginWorld({
      manager: { watch: true },
      arrange: (w) =>
        writePlugin(w.globalDir, "counter", plugin("counter", "return 'old';")).then(() => undefined),
    });
    const session = await world.session();
    expect(outputOf(await session.call("counter", {}))).toBe("old");
    await writeFile(
      path.join(world.globalDir, "counter", "index.js"),
      "export async function execute() { return 'new'; }",
    );
    await waitFor(() => world?.manager.hasPendingChanges() === true, "the change to be queued");
    // Mid-turn: still the old code.
    expect(outputOf(await session.call("counter", {}))).toBe("old");
    await world.manager.applyPendingChanges();
    expect(world.manager.hasPendingChanges()).toBe(false);
    expect(outputOf(await session.call("counter", {}))).toBe("new");

    await writePlugin(world.globalDir, "added", plugin("added", "return 'hi';"));
    await rm(path.join(world.globalDir, "counter"), { recursive: true });
    await waitFor(() => world?.manager.hasPendingChanges() === true, "the second change to be queued");
    await world.manager.applyPendingChanges();
    expect(errorOf(await session.call("counter", {}))).toMatch(/Unknown tool "counter"/);
    expect(outputOf(await session.call("added", {}))).toBe("hi");
    expect(world.manager.status().map((s) => s.name)).toEqual(["added"]);
  });

  it("notices a tools directory that appears after loading", async () => {
    world = await openPluginWorld({ manager: { watch: true } });
    await writePlugin(world.globalDir, "late", plugin("late", "return 'here';"));
    await waitFor(() => world?.manager.hasPendingChanges() === true, "the new directory to be noticed");
    await world.manager.applyPendingChanges();
    const session = await world.session();
    expect(outputOf(await session.call("late", {}))).toBe("here");
  });

  it("keeps an unchanged plugin's warm isolate across a reload", async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writePlugin(
          w.globalDir,
          "warm",
          plugin("warm", "globalThis.n = (globalThis.n ?? 0) + 1; return globalThis.n;"),
        );
        await writePlugin(w.globalDir, "other", plugin("other", "return 0;"));
      },
    });
    const session = await world.session();
    expect(outputOf(await session.call("warm", {}))).toBe(1);
    await writeFile(
      path.join(world.globalDir, "other", "index.js"),
      "export async function execute() { return 1; }",
    );
    await world.manager.reload();
    expect(outputOf(await session.call("warm", {}))).toBe(2);
    expect(outputOf(await session.call("other", {}))).toBe(1);
  });

  it("drains a call in flight before unloading, and the call completes", async () => {
    world = await openPluginWorld({
      arrange: (w) =>
        writePlugin(
          w.globalDir,
          "slow",
          plugin("slow", "const end = Date.now() + 300; while (Date.now() < end) {} return 'finished';"),
        ).then(() => undefined),
    });
    const session = await world.session();
    const inFlight = session.call("slow", {});
    await new Promise((r) => setTimeout(r, 50));
    await rm(path.join(world.globalDir, "slow"), { recursive: true });
    await world.manager.reload();
    expect(outputOf(await inFlight)).toBe("finished");
    expect(world.engine.registry.get("slow")).toBeUndefined();
  });

  it("tells a call that arrives while the plugin reloads that it is being reloaded", async () => {
    world = await openPluginWorld({
      arrange: (w) =>
        writePlugin(
          w.globalDir,
          "slow",
          plugin(
            "slow",
            "if (args.quick) return 'old'; const end = Date.now() + 600; while (Date.now() < end) {} return 'finished';",
            { input_schema: { type: "object", properties: { quick: { type: "boolean" } } } },
          ),
        ).then(() => undefined),
    });
    const session = await world.session();
    const inFlight = session.call("slow", {});
    await waitFor(() => world?.manager.status()[0]?.isolate?.calls === 1, "the first call to start");
    await writeFile(
      path.join(world.globalDir, "slow", "index.js"),
      "export async function execute() { return 'new'; }",
    );
    const reloading = world.manager.reload();
    await waitFor(() => world?.manager.status()[0]?.state === "deactivated", "the old version to drain");
    const during = errorOf(await session.call("slow", { quick: true }));
    expect(during).toBe(
      `slow is being reloaded because its plugin folder (${path.join(world.globalDir, "slow")}) changed or was removed; call it again after this turn.`,
    );
    expect(outputOf(await inFlight)).toBe("finished");
    await reloading;
    expect(outputOf(await session.call("slow", {}))).toBe("new");
  });
});

describe("PluginManager: loading cost", () => {
  // What loading 50 plugins costs is measured in `npm run bench` (plugins.bench.ts), beside the
  // same tools defined in-process; this test holds what must not change: no isolate starts.
  it("loads 50 plugins, starting no isolate", async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        for (let i = 0; i < 50; i++) {
          await writePlugin(
            w.globalDir,
            `p${i}`,
            plugin(`tool_${i}`, `return { i: ${i}, args };`, {
              input_schema: {
                type: "object",
                properties: { q: { type: "string" }, n: { type: "integer" } },
                required: ["q"],
              },
              output_schema: { type: "object", properties: { i: { type: "integer" } } },
            }),
          );
        }
      },
    });
    const manager = new PluginManager({
      registry: world.engine.registry,
      root: world.root,
      latheHome: world.latheHome,
      bundledDir: path.join(world.base, "none"),
      projectTrusted: false,
      watch: false,
    });
    // The world's manager holds the names; free them, then load all 50 cold.
    await world.manager.close();
    await manager.load();
    expect(manager.status().filter((s) => s.state === "active")).toHaveLength(50);
    expect(manager.status().every((s) => s.isolate?.running === false)).toBe(true);
    await manager.close();
  });

  it("closes idempotently and unregisters everything", async () => {
    world = await openPluginWorld({
      arrange: (w) => writePlugin(w.globalDir, "x", plugin("x_tool", "return 1;")).then(() => undefined),
    });
    const session = await world.session();
    await session.call("x_tool", {});
    await world.manager.close();
    await world.manager.close();
    expect(world.engine.registry.get("x_tool")).toBeUndefined();
    expect(world.manager.status()).toEqual([]);
    expect(await readFile(path.join(world.globalDir, "x", "index.js"), "utf8")).toContain("return 1");
  });

  it("tells a call that arrives while it closes that Lathe is closing", async () => {
    world = await openPluginWorld({
      arrange: (w) =>
        writePlugin(
          w.globalDir,
          "x",
          plugin(
            "x_tool",
            "if (args.quick) return 0; const end = Date.now() + 400; while (Date.now() < end) {} return 1;",
            {
              input_schema: { type: "object", properties: { quick: { type: "boolean" } } },
            },
          ),
        ).then(() => undefined),
    });
    const session = await world.session();
    const inFlight = session.call("x_tool", {});
    await waitFor(() => world?.manager.status()[0]?.isolate?.calls === 1, "the call to start");
    const closing = world.manager.close();
    await waitFor(() => world?.manager.status()[0]?.state === "deactivated", "the plugin to drain");
    expect(errorOf(await session.call("x_tool", { quick: true }))).toBe(
      "x_tool was not run: Lathe is closing and has unloaded its plugins.",
    );
    expect(outputOf(await inFlight)).toBe(1);
    await closing;
  });
});
