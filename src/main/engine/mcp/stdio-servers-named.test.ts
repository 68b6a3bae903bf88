import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configuredMcpServers } from "./mcp-approval.ts";
import { isStdio } from "./mcp-command-line.ts";
import { namesStdioServers } from "./stdio-servers-named.ts";

// `lathe run` starts the process spawner before loading the engine's code when this says the
// settings name stdio servers: it must agree with the engine's own reading wherever that reading
// succeeds, so a run with none starts no spawner and one with some does not wait for it.

let dir: string;
let root: string;
let home: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-stdio-named-"));
  root = path.join(dir, "ws");
  home = path.join(dir, "home");
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  await mkdir(home, { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function settings(where: "user" | "project", value: unknown): Promise<void> {
  const file =
    where === "user" ? path.join(home, "settings.json") : path.join(root, ".lathe", "settings.json");
  await writeFile(file, typeof value === "string" ? value : JSON.stringify(value));
}

/** What the engine's reading (with the settings' schema) says. */
function engineSays(): boolean {
  return configuredMcpServers(root, home).some((server) => isStdio(server.config));
}

describe("namesStdioServers", () => {
  it("says no with no settings at all, as the engine does", () => {
    expect(namesStdioServers(root, home)).toBe(false);
    expect(engineSays()).toBe(false);
  });

  const cases: Array<[string, unknown, unknown, boolean]> = [
    ["a user's stdio server", { mcpServers: { a: { command: "node" } } }, undefined, true],
    ["a project's stdio server", undefined, { mcpServers: { a: { command: "node", args: ["x"] } } }, true],
    ["only an HTTP server", { mcpServers: { a: { url: "http://127.0.0.1:3000/mcp" } } }, undefined, false],
    ["a disabled stdio server", { mcpServers: { a: { command: "node", disabled: true } } }, undefined, false],
    [
      "a user's stdio server the project replaces with an HTTP one",
      { mcpServers: { a: { command: "node" } } },
      { mcpServers: { a: { url: "http://127.0.0.1:3000/mcp" } } },
      false,
    ],
    [
      "a user's stdio server the project disables",
      { mcpServers: { a: { command: "node" } } },
      { mcpServers: { a: { command: "node", disabled: true } } },
      false,
    ],
    [
      "a user's stdio server beside a project's disabled one",
      { mcpServers: { a: { command: "node" } } },
      { mcpServers: { b: { command: "node", disabled: true } } },
      true,
    ],
    ["settings without servers", { defaultModel: "ollama:llama3.2" }, {}, false],
  ];
  for (const [what, user, project, expected] of cases) {
    it(`says ${expected ? "yes" : "no"} for ${what}, as the engine does`, async () => {
      if (user !== undefined) await settings("user", user);
      if (project !== undefined) await settings("project", project);
      expect(namesStdioServers(root, home)).toBe(expected);
      expect(engineSays()).toBe(expected);
    });
  }

  it("says no for settings the engine refuses, which the run then reports as always", async () => {
    await settings("user", '{"mcpServers": {"a": {"command": "node"},}}');
    expect(namesStdioServers(root, home)).toBe(false);
    expect(() => engineSays()).toThrow(/settings\.json/);
    await settings("user", "[]");
    expect(namesStdioServers(root, home)).toBe(false);
    await rm(path.join(home, "settings.json"));
    await symlink("/dev/zero", path.join(home, "settings.json"));
    expect(namesStdioServers(root, home)).toBe(false);
  });
});
