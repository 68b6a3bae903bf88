import { mkdir, mkdtemp, realpath, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plugin, writePlugin } from "../../../../test/support/plugin-test-kit.ts";
import { projectToolsDir } from "../plugins/plugin-discovery.ts";
import { serverPinKey } from "../mcp/mcp-pins.ts";
import { pinKey } from "../plugins/project-plugins.ts";
import { TrustStore } from "../policy/trust-store.ts";
import { trustProject } from "./trust-project.ts";

// `lathe trust` and the app's project.trust both come here; their own suites cover what each
// shows. This is what trusting records.

let base: string;
let root: string;
let latheHome: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-trust-project-")));
  root = path.join(base, "ws");
  latheHome = path.join(base, "home");
  await mkdir(root);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("trustProject", () => {
  it("makes a LATHE_HOME it is the first to need private (0700), as every other first use does", async () => {
    await trustProject(root, latheHome);
    expect((await stat(latheHome)).mode & 0o777).toBe(0o700);
    expect((await stat(new TrustStore(latheHome).file)).mode & 0o777).toBe(0o600);
  });

  it("records the trust and pins every project plugin as it is now", async () => {
    await writePlugin(projectToolsDir(root), "greet", plugin("greet", "return 'hi';"));
    const outcome = await trustProject(root, latheHome);

    const store = new TrustStore(latheHome);
    expect(store.isTrusted(root)).toBe(true);
    expect(outcome.trustFile).toBe(store.file);
    expect(outcome.pinnedPlugins.map((p) => [p.name, p.pinned])).toEqual([["greet", "match"]]);
    expect(store.pins(root)).toEqual({ [pinKey("greet")]: outcome.pinnedPlugins[0]?.hash });
    expect(outcome.mcpServers).toEqual([]);
  });

  it("approves the project's MCP servers: the command line is pinned even when the server cannot list its tools", async () => {
    await mkdir(path.join(root, ".lathe"), { recursive: true });
    const local = { command: process.execPath, args: ["-e", "process.exit(3)"] };
    await writeFile(path.join(root, ".lathe", "settings.json"), JSON.stringify({ mcpServers: { local } }));
    const outcome = await trustProject(root, latheHome);

    expect(outcome.mcpServers).toEqual([
      expect.objectContaining({ name: "local", layer: "project", tools: [], error: expect.any(String) }),
    ]);
    expect(Object.keys(new TrustStore(latheHome).pins(root))).toEqual([serverPinKey("local")]);
  });

  it("refuses to record anything when the trust file is malformed, naming the file", async () => {
    await mkdir(latheHome, { recursive: true });
    await writeFile(path.join(latheHome, "trust.json"), "{ not json");
    await expect(trustProject(root, latheHome)).rejects.toThrow(/trust\.json is not valid JSON/);
  });
});
