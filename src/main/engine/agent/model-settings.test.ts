import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

  it("refuses an unknown provider key, naming the field", async () => {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { olama: { baseURL: "http://x/v1" } } }),
    );
    expect(() => loadModelSettings({ root, latheHome: home, projectTrusted: false })).toThrow(
      /providers: Unrecognized key: "olama"/,
    );
  });
});
