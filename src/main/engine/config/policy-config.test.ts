import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { loadPolicyConfig } from "./policy-config.ts";
import { TrustStore } from "../policy/trust-store.ts";

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-policy-config-"));
  root = path.join(base, "project");
  home = path.join(base, "lathe-home");
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  await mkdir(home, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const projectSettings = {
  permissions: [
    { permission: "bash", pattern: "*", action: "allow" },
    { permission: "fs.write", pattern: "**/.env", action: "deny" },
  ],
  hooks: [{ command: "echo hi" }],
  approvals: { mode: "yolo" },
  shell: [{ cmd: "curl" }],
};

describe("loadPolicyConfig", () => {
  it("says that disabledPlugins in a project's settings is ignored, and where it works", async () => {
    await writeFile(
      path.join(root, ".lathe/settings.json"),
      JSON.stringify({ disabledPlugins: ["word_count"] }),
    );
    new TrustStore(home).trust(root);
    const config = loadPolicyConfig({ root, latheHome: home });
    expect(config.projectTrusted).toBe(true);
    expect(config.notices).toEqual([
      `${path.join(root, ".lathe/settings.json")} lists disabledPlugins (word_count), which only your own settings can do, so the plugins still load: move the entries to ${path.join(home, "settings.json")}, or turn the plugins off under Plugins in the app.`,
    ]);
  });

  it("keeps only the deny rules of an untrusted project and says so once", async () => {
    await writeFile(path.join(root, ".lathe/settings.json"), JSON.stringify(projectSettings));
    const config = loadPolicyConfig({ root, latheHome: home });
    expect(config.projectTrusted).toBe(false);
    expect(config.rules).toEqual([
      expect.objectContaining({ permission: "fs.write", action: "deny", scope: "project" }),
    ]);
    expect(config.hooks).toEqual([]);
    expect(config.mode).toBeUndefined();
    expect(config.shell).toEqual([]);
    expect(config.notices).toHaveLength(1);
    expect(config.notices[0]).toMatch(/1 allow\/ask rule, 1 hook, extra shell commands, approval settings/);
    expect(config.notices[0]).toContain(`lathe trust --root ${root}`);
  });

  it.each([
    [{ approvals: { mode: "yolo" } }, "approval settings in", "are ignored"],
    [{ web: { fetch: { allowPrivateHosts: ["localhost:3000"] } } }, "web settings in", "are ignored"],
    [{ hooks: [{ command: "true" }] }, "1 hook in", "is ignored"],
    [
      {
        hooks: [{ command: "true" }, { command: "echo hi" }],
      },
      "2 hooks in",
      "are ignored",
    ],
  ])("says %j of an untrusted project %s … %s, in agreement", async (settings, what, verb) => {
    await writeFile(path.join(root, ".lathe/settings.json"), JSON.stringify(settings));
    const config = loadPolicyConfig({ root, latheHome: home });
    expect(config.notices).toHaveLength(1);
    expect(config.notices[0]).toContain(what);
    expect(config.notices[0]).toMatch(new RegExp(`settings\\.json ${verb}`));
  });

  it("takes everything from a trusted project", async () => {
    await writeFile(path.join(root, ".lathe/settings.json"), JSON.stringify(projectSettings));
    new TrustStore(home).trust(root);
    const config = loadPolicyConfig({ root, latheHome: home });
    expect(config.projectTrusted).toBe(true);
    expect(config.rules).toHaveLength(2);
    expect(config.hooks).toHaveLength(1);
    expect(config.mode).toBe("yolo");
    expect(config.shell).toEqual([{ cmd: "curl" }]);
    expect(config.notices).toEqual([]);
  });

  it("orders scopes manifest, project, user", async () => {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ permissions: [{ permission: "read", action: "allow" }] }),
    );
    await writeFile(
      path.join(root, ".lathe/settings.json"),
      JSON.stringify({ permissions: [{ permission: "bash", action: "deny" }] }),
    );
    const config = loadPolicyConfig({
      root,
      latheHome: home,
      manifestRules: [{ permission: "write", pattern: "*", action: "deny" }],
    });
    expect(config.rules.map((r) => r.scope)).toEqual(["manifest", "project", "user"]);
    expect(config.rules[2]).toMatchObject({ pattern: "*" });
  });

  it.each([
    ["not JSON", "{permissions: [", /is not valid JSON/],
    [
      "an unknown action",
      JSON.stringify({ permissions: [{ permission: "bash", action: "maybe" }] }),
      /permissions\.0\.action/,
    ],
    [
      "an unknown key",
      JSON.stringify({ permisions: [] }),
      /permisions: is not a known setting \(did you mean "permissions"\?\)/,
    ],
    ["a hook without a command", JSON.stringify({ hooks: [{}] }), /hooks\.0\.command/],
  ])("refuses user settings with %s, naming the file and the field", async (_name, text, message) => {
    await writeFile(path.join(home, "settings.json"), text);
    expect(() => loadPolicyConfig({ root, latheHome: home })).toThrow(ConfigError);
    expect(() => loadPolicyConfig({ root, latheHome: home })).toThrow(message);
    expect(() => loadPolicyConfig({ root, latheHome: home })).toThrow(path.join(home, "settings.json"));
  });
});

describe("TrustStore", () => {
  it("records trust by real path and can revoke it", () => {
    const store = new TrustStore(home);
    expect(store.isTrusted(root)).toBe(false);
    store.trust(root);
    expect(new TrustStore(home).isTrusted(root)).toBe(true);
    expect(store.revoke(root)).toBe(true);
    expect(store.isTrusted(root)).toBe(false);
  });
});
