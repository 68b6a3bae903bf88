// The installers' packaging config, checked offline (electron-builder itself needs Electron's
// binary): electron-builder's own loader and schema accept it, every piece of machine code a
// production dependency ships ends up outside app.asar, the bundled plugins ship where the app
// looks for them, and the three platforms' targets, icons and Linux depends are there.
import { existsSync, openSync, readFileSync, readSync, closeSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { appPaths } from "../src/main/electron/app-paths.ts";

const repo = path.resolve(import.meta.dirname, "..");
const CONFIG_FILE = "build/electron-builder.yml";

// electron-builder's internals, loaded the way electron-builder loads them (not hoisting-dependent).
const fromBuilder = createRequire(createRequire(import.meta.url).resolve("electron-builder/package.json"));
const fromAppBuilderLib = createRequire(fromBuilder.resolve("app-builder-lib/package.json"));
const { getConfig, validateConfiguration } = fromBuilder("app-builder-lib/out/util/config/config.js") as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: unknown): Promise<Config>;
  validateConfiguration(config: unknown, debugLogger: unknown): Promise<void>;
};
const { DebugLogger } = fromBuilder("builder-util") as { DebugLogger: new (enabled: boolean) => unknown };
const FpmTarget = (
  fromBuilder("app-builder-lib/out/targets/FpmTarget.js") as { default: { prototype: object } }
).default;
const { Minimatch } = fromAppBuilderLib("minimatch") as {
  Minimatch: new (pattern: string, options: { dot: boolean }) => { match(file: string): boolean };
};

interface FileSet {
  from?: string;
  to?: string;
  filter?: string | string[];
}
interface Target {
  target: string[];
  icon?: string;
  [key: string]: unknown;
}
interface Config {
  files: (string | FileSet)[];
  asarUnpack: string[];
  extraResources: (string | FileSet)[];
  npmRebuild?: boolean;
  buildDependenciesFromSource?: boolean;
  linux: Target & { maintainer?: string };
  deb: { depends: string[] };
  mac: Target & { hardenedRuntime?: boolean; entitlements?: string; entitlementsInherit?: string };
  win: Target;
  publish: { provider: string };
}

const config = parse(readFileSync(path.join(repo, CONFIG_FILE), "utf8")) as Config;
const packageJson = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as {
  main: string;
  dependencies: Record<string, string>;
};

const matchers = (patterns: readonly string[]) => patterns.map((p) => new Minimatch(p, { dot: true }));
const matchesAny = (file: string, patterns: readonly string[]) =>
  matchers(patterns).some((m) => m.match(file));
/** What `files` keeps out of the package (electron-builder applies only its exclusions to node_modules). */
const excluded = config.files
  .filter((p): p is string => typeof p === "string" && p.startsWith("!"))
  .map((p) => p.slice(1));

// ---- the machine code production dependencies ship ----------------------------------------

const NATIVE_EXTENSIONS = [".node", ".so", ".dylib", ".dll", ".exe"];
const TEXT_EXTENSIONS = new Set([
  ".js",
  ".cjs",
  ".mjs",
  ".ts",
  ".mts",
  ".cts",
  ".json",
  ".md",
  ".map",
  ".txt",
]);
const MAGIC = [
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]), // ELF
  Buffer.from([0xcf, 0xfa, 0xed, 0xfe]), // Mach-O 64-bit
  Buffer.from([0xce, 0xfa, 0xed, 0xfe]), // Mach-O 32-bit
  Buffer.from([0xca, 0xfe, 0xba, 0xbe]), // Mach-O universal
  Buffer.from([0x4d, 0x5a]), // PE (MZ)
];

function isMachineCode(file: string): boolean {
  const ext = path.extname(file);
  if (NATIVE_EXTENSIONS.includes(ext) || /\.so\.\d/.test(path.basename(file))) return true;
  if (TEXT_EXTENSIONS.has(ext)) return false;
  const head = Buffer.alloc(4);
  const fd = openSync(file, "r");
  try {
    const read = readSync(fd, head, 0, 4, 0);
    return MAGIC.some((magic) => read >= magic.length && head.subarray(0, magic.length).equals(magic));
  } finally {
    closeSync(fd);
  }
}

/** A package's own files (its nested node_modules are packages of their own), relative to the repo. */
function packageFiles(packageDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(repo, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== "node_modules") walk(relative);
      else if (entry.isFile()) found.push(relative);
    }
  };
  walk(packageDir);
  return found;
}

/** Every file of machine code in an installed production package that the package keeps. */
function shippedMachineCode(): Map<string, string[]> {
  const lock = JSON.parse(readFileSync(path.join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const byPackage = new Map<string, string[]>();
  for (const [dir, entry] of Object.entries(lock.packages)) {
    if (dir === "" || entry.dev === true || !existsSync(path.join(repo, dir))) continue;
    const native = packageFiles(dir).filter(
      (file) => !matchesAny(file, excluded) && isMachineCode(path.join(repo, file)),
    );
    if (native.length > 0) byPackage.set(dir, native);
  }
  return byPackage;
}

function notUnpacked(byPackage: Map<string, string[]>, asarUnpack: readonly string[]): string[] {
  return [...byPackage.values()].flat().filter((file) => !matchesAny(file, asarUnpack));
}

describe("build/electron-builder.yml", () => {
  it("is accepted by electron-builder's own loader and schema", async () => {
    const loaded = await getConfig(repo, CONFIG_FILE, null);
    await expect(validateConfiguration(loaded, new DebugLogger(false))).resolves.toBeUndefined();
    // The same check refuses a misspelt option, so the line above can fail.
    const misspelt = { ...loaded, asarUnpacked: loaded.asarUnpack };
    await expect(validateConfiguration(misspelt, new DebugLogger(false))).rejects.toThrow(/asarUnpacked/);
  });

  it("ships the built app, and package.json's entry point is in it", () => {
    expect(config.files).toEqual(expect.arrayContaining(["out/**", "package.json"]));
    expect(
      matchesAny(
        packageJson.main,
        config.files.filter((p): p is string => typeof p === "string"),
      ),
    ).toBe(true);
    expect(matchesAny(packageJson.main, excluded)).toBe(false);
  });

  it(
    "unpacks from app.asar every piece of machine code a production dependency ships",
    { timeout: 60_000 },
    () => {
      const byPackage = shippedMachineCode();
      // The scan sees the native modules the app depends on (so an empty result cannot pass).
      const packages = [...byPackage.keys()];
      for (const name of ["better-sqlite3", "node-pty", "isolated-vm"]) {
        expect(packageJson.dependencies).toHaveProperty(name);
        expect(packages).toContain(`node_modules/${name}`);
      }
      expect(packageJson.dependencies).toHaveProperty("node-llama-cpp");
      expect(packages.some((dir) => dir.startsWith("node_modules/@node-llama-cpp/"))).toBe(true);
      expect(byPackage.get("node_modules/@anthropic-ai/sandbox-runtime")).toEqual(
        expect.arrayContaining([expect.stringMatching(/vendor\/seccomp\/x64\/apply-seccomp$/)]),
      );

      expect(notUnpacked(byPackage, config.asarUnpack)).toEqual([]);

      // Without the sandbox runtime's line, its helpers would be left inside the archive.
      const withoutVendor = config.asarUnpack.filter((p) => !p.includes("sandbox-runtime"));
      expect(notUnpacked(byPackage, withoutVendor)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/apply-seccomp$/),
          expect.stringMatching(/srt-win\.exe$/),
        ]),
      );
    },
  );

  it("unpacks the native modules whole, so loaders and helpers find their files beside them", () => {
    for (const name of ["better-sqlite3", "node-pty", "isolated-vm"]) {
      expect(matchesAny(`node_modules/${name}/package.json`, config.asarUnpack)).toBe(true);
    }
    expect(
      matchesAny(
        "node_modules/@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/libllama.dylib",
        config.asarUnpack,
      ),
    ).toBe(true);
    expect(matchesAny("node_modules/@node-llama-cpp/win-x64/bins/win-x64/llama.dll", config.asarUnpack)).toBe(
      true,
    );
  });

  it("rebuilds the native modules for Electron's ABI before packaging", () => {
    expect(config.npmRebuild).not.toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
  });

  it("ships every bundled plugin beside app.asar, where the packaged app looks for them", () => {
    const sets = config.extraResources.filter((set): set is FileSet => typeof set === "object");
    const plugins = sets.find((set) => set.from === "plugins");
    if (!plugins?.to) throw new Error("no extraResources entry ships plugins/");
    const filter = [plugins.filter ?? "**/*"].flat();
    const files = packageFiles("plugins").map((file) => file.slice("plugins/".length));
    expect(files).toEqual(expect.arrayContaining(["word_count/tool.yaml", "word_count/index.js"]));
    expect(files.filter((file) => !matchesAny(file, filter))).toEqual([]);

    const resourcesPath = path.resolve("/opt/Lathe/resources");
    const app = appPaths({
      env: {},
      userData: "/home/me/.config/Lathe",
      logs: "/home/me/.config/Lathe/logs",
      isPackaged: true,
      resourcesPath,
      appPath: path.join(resourcesPath, "app.asar"),
    });
    expect(app.bundledPluginsDir).toBe(path.join(resourcesPath, plugins.to));
  });

  it("builds AppImage and deb on Linux, dmg on macOS and an NSIS installer on Windows", () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(["AppImage", "deb"]));
    expect(config.mac.target).toContain("dmg");
    expect(config.win.target).toContain("nsis");
    expect(config.linux.maintainer).toMatch(/<.+@.+>/);
  });

  it("makes the deb depend on the OS sandbox's packages without dropping Electron's own", () => {
    expect(config.deb.depends).toEqual(expect.arrayContaining(["bubblewrap", "socat", "ripgrep"]));
    // Setting `depends` replaces electron-builder's list: every package of it must be repeated.
    const defaults = (
      FpmTarget.prototype as { getDefaultDepends(target: string): string[] }
    ).getDefaultDepends("deb");
    expect(defaults.length).toBeGreaterThan(0);
    expect(config.deb.depends).toEqual(expect.arrayContaining(defaults));
  });

  it("has an icon for every platform", () => {
    expect(config.mac.icon).toMatch(/\.icns$/);
    expect(
      readFileSync(path.join(repo, config.mac.icon ?? ""))
        .subarray(0, 4)
        .toString("latin1"),
    ).toBe("icns");
    expect(config.win.icon).toMatch(/\.ico$/);
    expect([...readFileSync(path.join(repo, config.win.icon ?? "")).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    const linuxIcons = path.join(repo, config.linux.icon ?? "");
    expect(statSync(linuxIcons).isDirectory()).toBe(true);
    expect(readdirSync(linuxIcons)).toEqual(expect.arrayContaining(["256x256.png", "512x512.png"]));
  });

  it("signs macOS builds with a hardened runtime that lets V8 and the native modules work", () => {
    expect(config.mac.hardenedRuntime).toBe(true);
    for (const file of [config.mac.entitlements, config.mac.entitlementsInherit]) {
      const plist = readFileSync(path.join(repo, file ?? ""), "utf8");
      for (const key of ["allow-jit", "allow-unsigned-executable-memory", "disable-library-validation"]) {
        expect(plist).toMatch(new RegExp(`<key>com\\.apple\\.security\\.cs\\.${key}</key>\\s*<true/>`));
      }
    }
  });

  it("publishes to GitHub releases", () => {
    expect(config.publish.provider).toBe("github");
  });
});
