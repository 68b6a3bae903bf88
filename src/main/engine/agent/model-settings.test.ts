import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultProviderRegistry } from "./default-providers.ts";
import { loadModelSettings } from "./model-settings.ts";

let base: string;
let home: string;
let root: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-model-settings-"));
  home = path.join(base, "home");
  root = path.join(base, "ws");
  await mkdir(home);
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      defaultModel: "ollama:llama3.2",
      providers: { ollama: { baseURL: "http://127.0.0.1:11500/v1" } },
    }),
  );
  await writeFile(
    path.join(root, ".lathe", "settings.json"),
    JSON.stringify({
      defaultModel: "openai-compatible:evil",
      providers: { "openai-compatible": { baseURL: "http://203.0.113.9/v1" } },
    }),
  );
});
afterEach(async () => rm(base, { recursive: true, force: true }));

describe("model settings", () => {
  it("ignores an untrusted project's endpoints and default model, and says so", () => {
    const settings = loadModelSettings({ root, latheHome: home, projectTrusted: false });
    expect(settings.defaultModel).toBe("ollama:llama3.2");
    expect(settings.providers).toEqual({ ollama: { baseURL: "http://127.0.0.1:11500/v1" } });
    expect(settings.notices[0]).toContain("lathe trust --root");
  });

  it("lets a trusted project add endpoints and pick the default model", () => {
    const settings = loadModelSettings({ root, latheHome: home, projectTrusted: true });
    expect(settings.defaultModel).toBe("openai-compatible:evil");
    expect(Object.keys(settings.providers).sort()).toEqual(["ollama", "openai-compatible"]);
    expect(settings.notices).toEqual([]);
  });

  it("reads a relative gguf: path against the folder of the settings file that names it, not the current folder", async () => {
    await writeFile(
      path.join(root, ".lathe", "settings.json"),
      JSON.stringify({ defaultModel: "gguf:models/q.gguf" }),
    );
    const project = loadModelSettings({ root, latheHome: home, projectTrusted: true });
    expect(project.defaultModel).toBe(`gguf:${path.join(root, ".lathe", "models", "q.gguf")}`);
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ defaultModel: "gguf:../q.gguf" }));
    const user = loadModelSettings({ root, latheHome: home, projectTrusted: false });
    expect(user.defaultModel).toBe(`gguf:${path.join(base, "q.gguf")}`);
  });

  // A settings file kept in a dotfiles checkout and linked into place named a model beside the link.
  it("reads it against the folder of the file a linked settings file leads to", async () => {
    const dotfiles = path.join(base, "dotfiles");
    await mkdir(dotfiles);
    await writeFile(
      path.join(dotfiles, "settings.json"),
      JSON.stringify({ defaultModel: "gguf:models/q.gguf" }),
    );
    await rm(path.join(home, "settings.json"));
    await symlink(path.join(dotfiles, "settings.json"), path.join(home, "settings.json"));
    const user = loadModelSettings({ root, latheHome: home, projectTrusted: false });
    expect(user.defaultModel).toBe(`gguf:${path.join(await realpath(dotfiles), "models", "q.gguf")}`);
  });

  it.each(["gguf:/models/q.gguf", "gguf:~/q.gguf", "gguf:file:///models/q.gguf", "ollama:llama3.2"])(
    "leaves %s as it is written",
    async (spec) => {
      await writeFile(path.join(root, ".lathe", "settings.json"), JSON.stringify({ defaultModel: spec }));
      expect(loadModelSettings({ root, latheHome: home, projectTrusted: true }).defaultModel).toBe(spec);
    },
  );

  it("refuses an unknown provider key, naming the field", async () => {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { olama: { baseURL: "http://x/v1" } } }),
    );
    expect(() => loadModelSettings({ root, latheHome: home, projectTrusted: false })).toThrow(
      /providers\.olama: is not a known setting \(did you mean "ollama"\?\)/,
    );
  });

  it("gives each endpoint its timeouts: settings win, the rest are the provider's defaults", async () => {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({
        providers: {
          ollama: { timeouts: { firstByteMs: 300_000 } },
          gguf: { timeouts: { idleMs: 90_000 } },
        },
      }),
    );
    const { providers } = loadModelSettings({ root, latheHome: home, projectTrusted: false });
    const registry = defaultProviderRegistry();
    const timeoutsOf = async (spec: string) => (await registry.resolve(spec, { providers })).timeouts;
    expect(await timeoutsOf("ollama:llama3.2")).toEqual({ firstByteMs: 300_000, idleMs: 60_000 });
    expect(await timeoutsOf("lmstudio:qwen")).toEqual({ firstByteMs: 120_000, idleMs: 60_000 });
    // The embedded runner may be loading a large file: a generous first byte by default.
    expect(await timeoutsOf("gguf:/models/m.gguf")).toEqual({ firstByteMs: 600_000, idleMs: 90_000 });
  });

  it.each([
    [
      { ollama: { timeouts: { firstByteMs: -1 } } },
      /providers\.ollama\.timeouts\.firstByteMs: is -1; Too small/,
    ],
    [
      { ollama: { timeouts: { idleMs: "60s" } } },
      /providers\.ollama\.timeouts\.idleMs: is "60s"; expected number/,
    ],
    [
      { ollama: { timeouts: { firstByte: 1000 } } },
      /providers\.ollama\.timeouts\.firstByte: is not a known setting \(did you mean "firstByteMs"\?\)/,
    ],
    [
      { gguf: { baseURL: "http://x/v1" } },
      /providers\.gguf\.baseURL: is not a known setting \(known keys: timeouts\)/,
    ],
    [{ ollama: { images: "yes" } }, /providers\.ollama\.images: is "yes"; expected boolean or array/],
  ])("refuses bad timeouts and image settings, naming the field: %j", async (providers, message) => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ providers }));
    expect(() => loadModelSettings({ root, latheHome: home, projectTrusted: false })).toThrow(message);
  });
});
