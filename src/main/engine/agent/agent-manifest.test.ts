import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentCatalog } from "./agent-catalog.ts";
import { parseAgentManifest } from "./parse-agent-manifest.ts";
import { defaultAgent } from "./default-agent.ts";

const REVIEWER = `---
id: reviewer
description: Reviews changes and never edits.
model: ollama:qwen2.5-coder:7b
tools:
  allow: [read, glob, grep]
  deny: [bash]
requires:
  fs:
    read: ["{workspace}/**"]
permissions:
  - { permission: write, action: deny }
budgets:
  maxRounds: 12
  maxToolCalls: 30
  maxCallsPerTool: { grep: 5 }
---
You review code. Report at most five concrete issues.
`;

describe("agent manifests", () => {
  it("reads the front matter and takes the body as the system prompt", () => {
    const agent = parseAgentManifest(REVIEWER, "/agents/reviewer.md", "global");
    expect(agent).toEqual({
      id: "reviewer",
      description: "Reviews changes and never edits.",
      model: "ollama:qwen2.5-coder:7b",
      systemPrompt: "You review code. Report at most five concrete issues.",
      tools: { allow: ["read", "glob", "grep"], deny: ["bash"] },
      requires: { fs: { read: ["{workspace}/**"] } },
      permissions: [{ permission: "write", pattern: "*", action: "deny" }],
      budgets: { maxRounds: 12, maxToolCalls: 30, maxCallsPerTool: { grep: 5 } },
      layer: "global",
      source: "/agents/reviewer.md",
    });
  });

  it("defaults the id to the file name, every tool, and the default budgets", () => {
    const agent = parseAgentManifest("---\ndescription: Helper.\n---\nHelp.\n", "/x/helper.md", "project");
    expect(agent).toMatchObject({
      id: "helper",
      model: undefined,
      tools: { allow: ["*"], deny: [] },
      permissions: [],
      budgets: { maxRounds: 50, maxToolCalls: 200, maxCallsPerTool: {} },
    });
  });

  it("reads a relative gguf: model against the manifest's folder, not the current one", () => {
    const root = path.join(os.tmpdir(), "project");
    const file = path.join(root, ".lathe", "agents", "local.md");
    const agent = parseAgentManifest(
      "---\ndescription: L.\nmodel: gguf:../models/q.gguf\n---\nGo.\n",
      file,
      "project",
    );
    expect(agent.model).toBe(`gguf:${path.join(root, ".lathe", "models", "q.gguf")}`);
    for (const spec of ["gguf:/m/q.gguf", "gguf:~/q.gguf", "ollama:llama3.2"]) {
      const other = parseAgentManifest(`---\ndescription: L.\nmodel: "${spec}"\n---\nGo.\n`, file, "project");
      expect(other.model).toBe(spec);
    }
  });

  it.each([
    ["no front matter", "Just a prompt.", ["has no front matter", 'start the file with a line "---"']],
    ["broken YAML", "---\ndescription: [unclosed\n---\nHi", ["the front matter is not valid YAML"]],
    ["no description", "---\nid: a\n---\nHi", ["description", "Fix these fields"]],
    ["an unknown field", "---\ndescription: d\ncolour: red\n---\nHi", ['Unrecognized key: "colour"']],
    ["a bad budget", "---\ndescription: d\nbudgets: { maxRounds: 0 }\n---\nHi", ["budgets.maxRounds"]],
    ["a bad model", "---\ndescription: d\nmodel: llama\n---\nHi", ["model", "PROVIDER:MODEL"]],
    // One number for every tool: the message gives the shape, with an example to copy.
    [
      "one number as the per-tool budget",
      "---\ndescription: d\nbudgets: { maxCallsPerTool: 2 }\n---\nHi",
      ["budgets.maxCallsPerTool: is 2", "maxCallsPerTool: { grep: 10 }", "maxToolCalls"],
    ],
    [
      "a list as the per-tool budget",
      "---\ndescription: d\nbudgets: { maxCallsPerTool: [grep] }\n---\nHi",
      ["budgets.maxCallsPerTool: is a list", "maxCallsPerTool: { grep: 10 }"],
    ],
    [
      "a per-tool budget that is not a number",
      "---\ndescription: d\nbudgets: { maxCallsPerTool: { grep: many } }\n---\nHi",
      ["budgets.maxCallsPerTool.grep"],
    ],
    [
      "a bad rule",
      "---\ndescription: d\npermissions: [{ permission: write, action: maybe }]\n---\nHi",
      ["permissions.0.action"],
    ],
    ["a bad tool pattern", "---\ndescription: d\ntools: { deny: ['rm -rf'] }\n---\nHi", ["tools.deny.0"]],
    ["no system prompt", "---\ndescription: d\n---\n   \n", ["has no system prompt"]],
  ])("refuses a manifest with %s, naming the file, the field and the fix", (_name, text, says) => {
    let message = "";
    try {
      parseAgentManifest(text, "/agents/broken.md", "global");
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("/agents/broken.md");
    for (const s of says) expect(message).toContain(s);
  });

  it("ships a built-in default agent that sees every tool", () => {
    const agent = defaultAgent();
    expect(agent).toMatchObject({
      id: "default",
      layer: "builtin",
      source: "built-in",
      tools: { allow: ["*"], deny: [] },
    });
    expect(agent.systemPrompt).toContain("envelope");
  });
});

describe("agent discovery", () => {
  let base: string;
  let home: string;
  let root: string;
  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), "lathe-agents-"));
    home = path.join(base, "home");
    root = path.join(base, "ws");
    await mkdir(path.join(home, "agents"), { recursive: true });
    await mkdir(path.join(root, ".lathe", "agents"), { recursive: true });
  });
  afterEach(async () => rm(base, { recursive: true, force: true }));

  it("finds the user's and a trusted project's agents; the project's shadow the user's", async () => {
    await writeFile(path.join(home, "agents", "reviewer.md"), REVIEWER);
    await writeFile(
      path.join(root, ".lathe", "agents", "reviewer.md"),
      "---\ndescription: The project's reviewer.\n---\nReview.",
    );
    await writeFile(
      path.join(root, ".lathe", "agents", "docs.md"),
      "---\ndescription: Writes docs.\n---\nWrite docs.",
    );
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: true });
    expect(catalog.agents().map((a) => a.id)).toEqual(["default", "docs", "reviewer"]);
    expect(catalog.get("reviewer")).toMatchObject({
      description: "The project's reviewer.",
      layer: "project",
    });
    expect(catalog.notices).toEqual([]);
  });

  it("ignores an untrusted project's agents and says how to trust the folder", async () => {
    await writeFile(
      path.join(root, ".lathe", "agents", "yolo.md"),
      "---\ndescription: d\npermissions: [{permission: '*', action: allow}]\n---\nDo anything.",
    );
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: false });
    expect(catalog.agents().map((a) => a.id)).toEqual(["default"]);
    expect(() => catalog.get("yolo")).toThrow(/There is no agent "yolo"/);
    expect(catalog.notices[0]).toContain(`lathe trust --root ${root}`);
  });

  it("keeps the other agents when one manifest is broken, and gives its error when it is asked for", async () => {
    await writeFile(path.join(home, "agents", "broken.md"), "---\nid: broken\n---\nNo description.");
    await writeFile(path.join(home, "agents", "reviewer.md"), REVIEWER);
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: false });
    expect(catalog.agents().map((a) => a.id)).toEqual(["default", "reviewer"]);
    expect(catalog.problems()).toHaveLength(1);
    expect(() => catalog.get("broken")).toThrow(/broken\.md is not a valid agent manifest/);
  });

  it.each([
    {
      encoding: "UTF-8 with a BOM",
      bytes: (t: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t)]),
    },
    {
      encoding: "UTF-16 LE with its BOM (Windows Notepad)",
      bytes: (t: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, "utf16le")]),
    },
    { encoding: "latin1", bytes: (t: string) => Buffer.from(t, "latin1") },
  ])("reads a manifest saved as $encoding, as the skill tool reads a skill", async ({ bytes }) => {
    await writeFile(
      path.join(home, "agents", "critic.md"),
      bytes("---\ndescription: Critique à la française.\n---\nBe brief."),
    );
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: false });
    expect(catalog.problems()).toEqual([]);
    expect(catalog.get("critic")).toMatchObject({ description: "Critique à la française." });
  });

  it("lets a user's manifest replace the built-in default", async () => {
    await writeFile(
      path.join(home, "agents", "default.md"),
      "---\ndescription: Mine.\ntools: { allow: [read] }\n---\nOnly read.",
    );
    const catalog = await loadAgentCatalog({ root, latheHome: home, projectTrusted: false });
    expect(catalog.get("default")).toMatchObject({
      description: "Mine.",
      layer: "global",
      tools: { allow: ["read"] },
    });
  });
});
