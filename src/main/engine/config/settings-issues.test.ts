import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { loadSettings } from "./lathe-settings.ts";

// What a person reads (`lathe …` prints it as is) after mistyping their settings: the file, each
// field, what was written there and what would be valid.

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-settings-issues-"));
  file = path.join(dir, "settings.json");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function messageFor(settings: unknown): string {
  try {
    loadSettings(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(settings)} was accepted`);
}

describe("a settings file that is fine", () => {
  it("keeps shell entries that name one program, a path of its own, or any program", async () => {
    const shell = [{ cmd: "cargo" }, { cmd: "docker", args: ["ps"] }, { cmd: "./gradlew" }, { cmd: "*" }];
    await writeFile(file, JSON.stringify({ shell }));
    expect(loadSettings(file).shell).toEqual(shell);
  });
});

describe("a mistyped settings file", () => {
  it.each<[string, unknown, string[]]>([
    [
      "a misspelt top-level key",
      { permisions: [] },
      ['permisions: is not a known setting (did you mean "permissions"?)'],
    ],
    [
      "a misspelt rule action",
      { permissions: [{ permission: "bash", pattern: "ls", action: "allw" }] },
      ['permissions.0.action: is "allw"; expected one of "allow"|"deny"|"ask" (did you mean "allow"?)'],
    ],
    [
      "an MCP server with a misspelt command",
      { mcpServers: { files: { comand: "node" } } },
      [
        "mcpServers.files.command: is missing (expected string)",
        'mcpServers.files.comand: is not a known setting (did you mean "command"?)',
      ],
    ],
    [
      "a rule without its action",
      { permissions: [{ permission: "bash", pattern: "ls" }] },
      ['permissions.0.action: is missing; expected one of "allow"|"deny"|"ask"'],
    ],
    [
      "a list of MCP servers instead of an object",
      { mcpServers: [] },
      ["mcpServers: is []; expected an object of named entries, received array"],
    ],
    [
      "an MCP server with an empty command",
      { mcpServers: { files: { command: "" } } },
      ['mcpServers.files.command: is ""; must not be empty'],
    ],
    [
      "an MCP server whose args is a string",
      { mcpServers: { files: { command: "node", args: "a b" } } },
      ['mcpServers.files.args: is "a b"; expected array, received string'],
    ],
    [
      "an HTTP MCP server with a misspelt key",
      { mcpServers: { remote: { url: "https://mcp.example.com/mcp", header: {} } } },
      ['mcpServers.remote.header: is not a known setting (did you mean "headers"?)'],
    ],
    [
      "an MCP server with both command and url",
      { mcpServers: { both: { command: "node", url: "https://mcp.example.com/mcp" } } },
      [
        "mcpServers.both.url: is not a known setting (known keys: command, args, env, cwd, defer, deferTools, disabled, allowNetwork, allowRead, allowEnv)",
      ],
    ],
    [
      "an MCP server name with a space",
      { mcpServers: { "my files": { command: "node" } } },
      ['mcpServers.my files: the name "my files" is invalid: use letters, digits, _ or - (at most 64)'],
    ],
    [
      "a search provider without its url",
      { web: { search: { providers: [{ type: "searxng" }] } } },
      ["web.search.providers.0.url: is missing (expected string)"],
    ],
    [
      "an unknown search provider",
      { web: { search: { providers: [{ type: "google" }] } } },
      ['web.search.providers.0.type: is "google"; expected "brave"'],
    ],
    [
      "images as a word",
      { providers: { ollama: { images: "yes" } } },
      ['providers.ollama.images: is "yes"; expected boolean or array'],
    ],
    [
      "a misspelt timeout",
      { providers: { ollama: { timeouts: { firstByte: 1000 } } } },
      ['providers.ollama.timeouts.firstByte: is not a known setting (did you mean "firstByteMs"?)'],
    ],
    [
      "a misspelt sandbox key",
      { sandbox: { allowwrite: [] } },
      ['sandbox.allowwrite: is not a known setting (did you mean "allowWrite"?)'],
    ],
    [
      "a hook with cmd for command",
      { hooks: [{ cmd: "x" }] },
      [
        "hooks.0.command: is missing (expected string)",
        "hooks.0.cmd: is not a known setting (known keys: command, tools, timeoutMs)",
      ],
    ],
    [
      "a shell entry that is a command line (it would never match)",
      { shell: [{ cmd: "git log" }] },
      [
        'shell.0.cmd: is "git log"; has a space: "cmd" names one program, never a command line, so it could never match; write {"cmd": "git", "args": ["log"]} (or leave "args" out to allow any arguments)',
      ],
    ],
    [
      "a shell entry with shell syntax",
      { shell: [{ cmd: "make && make install" }] },
      [
        'shell.0.cmd: is "make && make install"; has shell syntax: "cmd" names one program, so it could never match; write the program\'s name alone, e.g. {"cmd": "cargo"}, one entry per program',
      ],
    ],
    [
      "a shell entry joined with a semicolon",
      { shell: [{ cmd: "cargo" }, { cmd: "make;ls" }] },
      [
        'shell.1.cmd: is "make;ls"; has shell syntax: "cmd" names one program, so it could never match; write the program\'s name alone, e.g. {"cmd": "cargo"}, one entry per program',
      ],
    ],
    [
      "a shell entry with a system path",
      { shell: [{ cmd: "/usr/bin/docker" }] },
      [
        'shell.0.cmd: is "/usr/bin/docker"; names a program in /usr/bin, and those are matched by their name alone, so it could never match; write {"cmd": "docker"}',
      ],
    ],
  ])("%s: names the file, the field, the value and what would do", async (_name, settings, lines) => {
    await writeFile(file, JSON.stringify(settings));
    const message = messageFor(settings);
    expect(message).toBe(
      [
        `${file} is not valid Lathe settings:`,
        ...lines.map((line) => `  - ${line}`),
        `Fix these fields (see the README's "Settings" section) and try again.`,
      ].join("\n"),
    );
  });
});
