import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EMPTY_SETTINGS, loadSettings, SettingsSchema } from "./lathe-settings.ts";

describe("EMPTY_SETTINGS (what a missing settings file means)", () => {
  it("is exactly what the settings schema makes of {}", () => {
    expect(EMPTY_SETTINGS).toStrictEqual(SettingsSchema.parse({}));
  });

  it("is what loadSettings answers for a file that does not exist", () => {
    expect(loadSettings("/nonexistent/lathe/settings.json")).toStrictEqual(SettingsSchema.parse({}));
  });
});

describe("loadSettings", () => {
  it("reads a file an editor saved with a byte-order mark (Windows Notepad) as any other", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lathe-settings-bom-"));
    try {
      const file = path.join(dir, "settings.json");
      const text = JSON.stringify({ defaultModel: "ollama:m" });
      // The control: JSON.parse itself refuses the mark.
      expect(() => JSON.parse(`\uFEFF${text}`) as unknown).toThrow(SyntaxError);
      writeFileSync(file, `\uFEFF${text}`);
      expect(loadSettings(file).defaultModel).toBe("ollama:m");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loadSettings in a project whose .lathe is a plain file", () => {
  it("answers empty settings (there can be no .lathe/settings.json) instead of failing on ENOTDIR", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lathe-settings-dotfile-"));
    try {
      // Another tool's own dotfile, as a person may well have one.
      writeFileSync(path.join(dir, ".lathe"), "not Lathe's\n");
      expect(loadSettings(path.join(dir, ".lathe", "settings.json"))).toStrictEqual(EMPTY_SETTINGS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loadSettings on a file people broke", () => {
  // Each case, read before, lost settings silently or said nothing a person could act on.
  it.each([
    [
      "the deny rules of a first permissions block a second one would drop",
      (file: string) =>
        writeFileSync(
          file,
          '{\n  "permissions": [{ "permission": "read", "pattern": "secrets/**", "action": "deny" }],\n  "permissions": []\n}\n',
        ),
      /settings\.json is not valid JSON: line 3, column 3: "permissions" is written a second time \(first on line 2\)/,
    ],
    [
      "a trailing comma in a list, which JSON.parse reports without a line",
      (file: string) => writeFileSync(file, '{\n  "shell": [\n    { "cmd": "make" },\n  ]\n}\n'),
      /settings\.json is not valid JSON: line 3, column 22: a comma after the last entry/,
    ],
    [
      "a link to a file that is gone (a dotfiles folder not mounted)",
      (file: string) => symlinkSync(path.join(path.dirname(file), "dotfiles", "lathe.json"), file),
      /settings\.json is a symbolic link to .*dotfiles\/lathe\.json, which does not exist: restore that file, or remove the link/,
    ],
    ["a folder", (file: string) => mkdirSync(file), /settings\.json is a folder, not a file: move it aside/],
    [
      "an empty file",
      (file: string) => writeFileSync(file, ""),
      /settings\.json is not valid JSON: it is empty: write \{\}/,
    ],
    // A folder cloned with its .lathe/settings.json linked to a device: read as a file, /dev/zero
    // grew without end (4 GB in 30 s, every command in the folder hung) and a pipe waited forever.
    [
      "a link to /dev/zero",
      (file: string) => symlinkSync("/dev/zero", file),
      /settings\.json is not a plain file \(a device, a pipe or a socket, or a link to one\): replace it with a JSON file, or remove it/,
    ],
    [
      "a named pipe nobody writes to",
      (file: string) => execFileSync("mkfifo", [file]),
      /settings\.json is not a plain file/,
    ],
    [
      "a file of 50 MB",
      (file: string) => {
        writeFileSync(file, "{}");
        truncateSync(file, 50 * 1024 * 1024);
      },
      /settings\.json is 50\.0 MB, more than a settings file may be \(8\.0 MB\): remove what does not belong in it/,
    ],
    [
      "a link that leads back to itself",
      (file: string) => symlinkSync(file, file),
      /settings\.json is a symbolic link that leads back to itself/,
    ],
  ])("refuses %s, naming the file, the place and the fix", (_name, stage, message) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lathe-settings-broken-"));
    try {
      const file = path.join(dir, "settings.json");
      stage(file);
      expect(() => loadSettings(file)).toThrow(message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the settings schema, built on first use", () => {
  it.each([
    ["an unknown key", { colour: "blue" }, /colour/],
    ["a bad approval mode", { approvals: { mode: "sometimes" } }, /approvals\.mode|mode/],
    ["a hook without a command", { hooks: [{ tools: ["bash"] }] }, /command/],
    ["a bad MCP server", { mcpServers: { one: { nope: true } } }, /mcpServers/],
    ["a bad sandbox host", { sandbox: { allowNetwork: ["exa mple.com"] } }, /allowNetwork|host/],
    [
      "a private host written as a URL",
      { web: { fetch: { allowPrivateHosts: ["http://localhost:3000"] } } },
      /allowPrivateHosts.*has a scheme/s,
    ],
    [
      "a private host with a path",
      { web: { fetch: { allowPrivateHosts: ["127.0.0.1:8080/api"] } } },
      /allowPrivateHosts.*not a bare host/s,
    ],
    [
      "any host as a private host",
      { web: { fetch: { allowPrivateHosts: ["*"] } } },
      /allowPrivateHosts.*every loopback and private address/s,
    ],
    ["a permission rule without an action", { permissions: [{ permission: "bash" }] }, /action/],
    // z.url() alone takes these: "localhost:" read as the scheme; a run then failed with "fetch failed".
    [
      "a provider base URL without its scheme",
      { providers: { ollama: { baseURL: "localhost:11434/v1" } } },
      /use a full http:\/\/ or https:\/\/ URL/,
    ],
    [
      "an MCP server URL without its scheme",
      { mcpServers: { web: { url: "localhost:3000/mcp" } } },
      /use a full http:\/\/ or https:\/\/ URL/,
    ],
    [
      "a search provider on another scheme",
      { web: { search: { providers: [{ type: "searxng", url: "ftp://search.local" }] } } },
      /use a full http:\/\/ or https:\/\/ URL/,
    ],
    [
      "a provider timeout below its minimum",
      { providers: { ollama: { timeouts: { idleMs: 1 } } } },
      /idleMs|100/,
    ],
  ])("refuses %s", (_name, settings, message) => {
    const parsed = SettingsSchema.safeParse(settings);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(message);
  });

  it("fills the defaults of nested entries", () => {
    const parsed = SettingsSchema.parse({
      hooks: [{ command: "guard" }],
      mcpServers: { one: { command: "srv" } },
      permissions: [{ permission: "read", action: "allow" }],
    });
    expect(parsed.hooks).toEqual([{ command: "guard", timeoutMs: 10_000 }]);
    expect(parsed.mcpServers.one).toMatchObject({ command: "srv", args: [], env: {}, disabled: false });
    expect(parsed.permissions).toEqual([{ permission: "read", pattern: "*", action: "allow" }]);
  });
});
