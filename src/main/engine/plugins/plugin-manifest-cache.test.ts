import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TrustStore } from "../policy/trust-store.ts";
import { PluginManager } from "./plugin-manager.ts";
import { PluginManifestCache, pluginManifestCache } from "./plugin-manifest-cache.ts";
import { parseManifest } from "./plugin-manifest.ts";
import { pinProjectPlugins } from "./project-plugins.ts";
import {
  manifestFields,
  openPluginWorld,
  plugin,
  writePlugin,
  type PluginWorld,
} from "../../../../test/support/plugin-test-kit.ts";

let world: PluginWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** The cache's files, each parsed (or the text when it is not JSON). */
async function cacheEntries(latheHome: string): Promise<Array<{ file: string; value: unknown }>> {
  const dir = pluginManifestCache(latheHome).dir;
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".json"));
  return Promise.all(
    names.map(async (name) => {
      const text = await readFile(path.join(dir, name), "utf8");
      try {
        return { file: path.join(dir, name), value: JSON.parse(text) as unknown };
      } catch {
        return { file: path.join(dir, name), value: text };
      }
    }),
  );
}

/** The cache file holding the manifest of tool `name`. */
async function manifestEntry(latheHome: string, name: string): Promise<{ file: string; value: unknown }> {
  const found = (await cacheEntries(latheHome)).find(
    (e) => (e.value as { manifest?: { name?: string } }).manifest?.name === name,
  );
  if (!found) throw new Error(`no cached manifest for ${name}`);
  return found;
}

/** A second manager on the same folders and $LATHE_HOME, as the next `lathe` process would make. */
async function reload(w: PluginWorld): Promise<PluginManager> {
  await w.manager.close();
  const manager = new PluginManager({
    registry: w.engine.registry,
    root: w.engine.root,
    latheHome: w.latheHome,
    bundledDir: w.bundledDir,
    projectTrusted: w.engine.policy.projectTrusted,
    watch: false,
  });
  await manager.load();
  w.manager = manager;
  return manager;
}

function description(w: PluginWorld, id: string): string | undefined {
  return w.engine.listTools().find((t) => t.id === id)?.description;
}

describe("the plugin manifest cache", () => {
  it("keeps what loading concluded, keyed by content, and a later start uses it", async () => {
    world = await openPluginWorld({
      arrange: async ({ globalDir }) => {
        await writePlugin(globalDir, "greet", plugin("greet", "return 1;"));
      },
    });
    expect(description(world, "greet")).toMatch(/^The greet test tool\./);
    // One manifest and one passed entry check were kept.
    const entries = await cacheEntries(world.latheHome);
    expect(entries.map((e) => Object.keys(e.value as object).sort())).toEqual(
      expect.arrayContaining([
        ["key", "manifest"],
        ["entryChecked", "key"],
      ]),
    );
    // Proof that the next start reads the cache rather than the YAML: an entry edited by hand wins.
    const cached = await manifestEntry(world.latheHome, "greet");
    const value = cached.value as { manifest: { description: string } };
    value.manifest.description = "Described by the cache.";
    await writeFile(cached.file, JSON.stringify(value));
    await reload(world);
    expect(description(world, "greet")).toMatch(/^Described by the cache\./);
  });

  it("misses when tool.yaml changes: the new text is validated and kept under its own key", async () => {
    world = await openPluginWorld({
      arrange: async ({ globalDir }) => {
        await writePlugin(globalDir, "greet", plugin("greet", "return 1;"));
      },
    });
    const before = (await cacheEntries(world.latheHome)).length;
    await writePlugin(world.globalDir, "greet", {
      yaml: manifestFields("greet", { description: "Greets, changed." }),
    });
    await reload(world);
    expect(description(world, "greet")).toMatch(/^Greets, changed\./);
    expect((await cacheEntries(world.latheHome)).length).toBe(before + 1);
  });

  it("ignores a corrupt entry, validates the files again and writes the entry anew", async () => {
    world = await openPluginWorld({
      arrange: async ({ globalDir }) => {
        await writePlugin(globalDir, "greet", plugin("greet", "return 1;"));
      },
    });
    const cached = await manifestEntry(world.latheHome, "greet");
    for (const garbage of ["{not json", JSON.stringify({ key: "x", manifest: { name: "greet" } }), ""]) {
      await writeFile(cached.file, garbage);
      await reload(world);
      expect(description(world, "greet")).toMatch(/^The greet test tool\./);
      expect(JSON.parse(await readFile(cached.file, "utf8"))).toMatchObject({ manifest: { name: "greet" } });
    }
  });

  it("keeps no failure: a broken plugin is validated and reported again at every start", async () => {
    world = await openPluginWorld({
      arrange: async ({ globalDir }) => {
        await writePlugin(globalDir, "broken", {
          yaml: manifestFields("broken", { version: "one" }),
          js: "export async function execute() {}",
        });
      },
    });
    const reason = () => world?.engine.registry.disabledTools().find((d) => d.id === "broken")?.reason;
    expect(reason()).toMatch(/field "version"/);
    expect(await cacheEntries(world.latheHome)).toEqual([]);
    await reload(world);
    expect(reason()).toMatch(/field "version"/);
  });

  it("checks a changed entry file again even when its tool.yaml is cached", async () => {
    world = await openPluginWorld({
      arrange: async ({ globalDir }) => {
        await writePlugin(globalDir, "greet", plugin("greet", "return 1;"));
      },
    });
    await writePlugin(world.globalDir, "greet", { js: "export async function execute( {" });
    await reload(world);
    expect(description(world, "greet")).toBeUndefined();
    expect(world.engine.registry.disabledTools().find((d) => d.id === "greet")?.reason).toMatch(
      /JavaScript syntax error/,
    );
  });

  it("never decides a pin: a project plugin changed after it was pinned is refused, cache or not", async () => {
    world = await openPluginWorld({
      trusted: true,
      arrange: async ({ projectDir }) => {
        await writePlugin(projectDir, "proj", plugin("proj", "return 1;"));
      },
    });
    expect(description(world, "proj")).toBeUndefined(); // trusted, not pinned yet
    await pinProjectPlugins(world.root, world.latheHome);
    await reload(world);
    expect(description(world, "proj")).toMatch(/^The proj test tool\./);
    // Same tool.yaml (a cache hit), a different entry: the pin compares the files' hash.
    await writePlugin(world.projectDir, "proj", { js: "export async function execute() { return 2; }" });
    await reload(world);
    expect(description(world, "proj")).toBeUndefined();
    expect(world.engine.registry.disabledTools().find((d) => d.id === "proj")?.reason).toMatch(
      /changed since you trusted this project/,
    );
    expect(new TrustStore(world.latheHome).isTrusted(world.root)).toBe(true);
  });
});

describe("PluginManifestCache", () => {
  it("gives back exactly what parseManifest returned, for exactly the same text", async () => {
    world = await openPluginWorld();
    const cache = new PluginManifestCache(path.join(world.base, "cache"));
    const text =
      "name: t\nversion: 1.0.0\ndescription: T.\ninput_schema: {type: object, properties: {a: {type: string}}}\n";
    const manifest = parseManifest("/x/tool.yaml", text);
    expect(cache.manifest(text)).toBeUndefined();
    cache.rememberManifest(text, manifest);
    expect(cache.manifest(text)).toEqual(manifest);
    expect(cache.manifest(`${text}\n`)).toBeUndefined();
    expect(cache.entryChecked("export async function execute() {}")).toBe(false);
    cache.rememberEntryChecked("export async function execute() {}");
    expect(cache.entryChecked("export async function execute() {}")).toBe(true);
    expect(cache.entryChecked("export async function execute() { }")).toBe(false);
  });

  it("does not keep a manifest JSON would not give back unchanged (.inf in a schema)", async () => {
    world = await openPluginWorld();
    const cache = new PluginManifestCache(path.join(world.base, "cache"));
    const text =
      "name: t\nversion: 1.0.0\ndescription: T.\ninput_schema: {type: object, properties: {n: {type: number, maximum: .inf}}}\n";
    cache.rememberManifest(text, parseManifest("/x/tool.yaml", text));
    expect(cache.manifest(text)).toBeUndefined();
  });
});

describe("the plugin cache's folder", () => {
  let home: string | undefined;
  afterEach(async () => {
    if (home !== undefined) await rm(home, { recursive: true, force: true });
    home = undefined;
  });
  const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

  it("is made readable by its owner alone, as the other folders Lathe makes in its home", async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "lathe-cache-mode-"));
    const cache = pluginManifestCache(home);
    cache.rememberEntryChecked("export default {};\n");
    expect(cache.entryChecked("export default {};\n")).toBe(true);
    expect(await modeOf(path.join(home, "cache"))).toBe(0o700);
    expect(await modeOf(cache.dir)).toBe(0o700);
    const [entry] = await cacheEntries(home);
    expect(await modeOf(entry?.file ?? "")).toBe(0o600);
  });

  it("keeps the mode of a folder the person made", async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "lathe-cache-mode-"));
    const cache = pluginManifestCache(home);
    await mkdir(cache.dir, { recursive: true, mode: 0o755 });
    cache.rememberEntryChecked("export default {};\n");
    expect(cache.entryChecked("export default {};\n")).toBe(true);
    expect(await modeOf(cache.dir)).toBe(0o755);
  });
});

// A cache that cannot be written costs only the next start's checks, but a person whose plugins
// are checked afresh at every start should be able to find out why: Lathe says it once, as a
// note in the plugin log (the CLI's stderr, the app's plugin log, logs/plugins/<name>.log).
describe("a plugin cache that cannot be written", () => {
  /** Lathe's notes in the world's plugin log that name the cache folder. */
  const cacheNotes = (w: PluginWorld): string[] =>
    w.logs
      .filter((e) => e.source === "lathe" && e.line.includes(pluginManifestCache(w.latheHome).dir))
      .map((e) => e.line);

  async function twoPlugins(block: (cacheDir: string) => Promise<void>): Promise<PluginWorld> {
    return openPluginWorld({
      arrange: async ({ globalDir, latheHome }) => {
        await writePlugin(globalDir, "one", plugin("one", "return 1;"));
        await writePlugin(globalDir, "two", plugin("two", "return 2;"));
        await block(pluginManifestCache(latheHome).dir);
      },
    });
  }

  it("a read-only cache folder: the plugins load, and Lathe says once that it cannot keep the checks", async () => {
    let writable = false;
    world = await twoPlugins(async (dir) => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o500);
      // The positive control: the folder really refuses a new file (root writes anyway).
      writable = await writeFile(path.join(dir, "probe"), "x").then(
        () => true,
        () => false,
      );
    });
    if (writable) {
      console.log("skipped the read-only cache folder: this user (root) writes into a read-only folder");
      return;
    }
    expect(description(world, "one")).toBeDefined();
    expect(description(world, "two")).toBeDefined();
    const notes = cacheNotes(world);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/could not keep .* EACCES.*checked again at every start/);
  });

  it("a file where the cache folder goes: the plugins load, and Lathe says once why the cache is not kept", async () => {
    world = await twoPlugins(async (dir) => {
      await mkdir(path.dirname(dir), { recursive: true });
      await writeFile(dir, "not a folder\n");
    });
    expect(description(world, "one")).toBeDefined();
    expect(description(world, "two")).toBeDefined();
    expect(await readFile(pluginManifestCache(world.latheHome).dir, "utf8")).toBe("not a folder\n");
    const notes = cacheNotes(world);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/could not keep .*(EEXIST|ENOTDIR).*checked again at every start/);
    // It goes to that plugin's log file too, where a person looks later.
    const plugin = world.logs.find((e) => e.line === notes[0])?.plugin ?? "";
    await world.manager.close();
    const file = await readFile(path.join(world.latheHome, "logs", "plugins", `${plugin}.log`), "utf8");
    expect(file).toContain("lathe: could not keep");
  });
});
