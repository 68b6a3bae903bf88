import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { TrustStore } from "../src/main/engine/policy/trust-store.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, PACKAGE_ROOT } from "./support/lathe-cli.ts";

// What a person does from the shell: drop a plugin folder into a project, trust the project,
// call the tool; configure an MCP server and call its tools — all through `node bin/lathe.mjs`.

const world = useCliWorld("lathe-ext-");

const lathe = (args: string[]) => world.lathe(args);

async function dropPlugin(version = "1.0.0", greeting = "hello"): Promise<void> {
  const dir = path.join(world.root, ".lathe/tools/greet");
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "tool.yaml"),
    [
      "name: greet",
      `version: ${version}`,
      "description: Greet someone by name.",
      "input_schema:",
      "  type: object",
      "  properties:",
      "    name: { type: string, minLength: 1, maxLength: 50 }",
      "  required: [name]",
      "requires: {}",
      "readOnly: true",
      "gated: false",
      "timeoutMs: 5000",
      "",
    ].join("\n"),
  );
  await writeFile(path.join(dir, "TOOL.md"), "Use greet to say hello to someone.\n");
  await writeFile(
    path.join(dir, "index.js"),
    `export async function execute(args) {\n  return { text: "${greeting}, " + args.name };\n}\n`,
  );
}

describe("a project plugin from the CLI", () => {
  it("loads only after the project is trusted, then runs; a later change disables it until trusted again", async () => {
    await dropPlugin();
    const before = JSON.parse((await lathe(["tools", "--json"])).stdout) as Array<{
      id: string;
      enabled: boolean;
      reason?: string;
      fix?: string;
    }>;
    // Listed, but disabled: the project is not trusted yet.
    expect(before.find((t) => t.id === "greet")).toEqual({
      id: "greet",
      enabled: false,
      origin: { layer: "project", kind: "plugin", name: "greet" },
      reason: "This project is not trusted, so its plugin greet is not loaded.",
      fix: `review ${path.join(world.root, ".lathe/tools/greet")}, then run \`lathe trust --root ${world.root}\``,
    });

    const trust = await lathe(["trust", "--root", world.root]);
    expect(trust.stdout).toMatch(/plugin\s+greet/);

    const tools = JSON.parse((await lathe(["tools", "--json"])).stdout) as Array<{
      id: string;
      origin: unknown;
    }>;
    expect(tools.find((t) => t.id === "greet")?.origin).toEqual({
      layer: "project",
      kind: "plugin",
      name: "greet",
    });

    const call = await lathe(["call", "greet", '{"name":"Ada"}']);
    expect(envelopeOf(call)).toMatchObject({ type: "output", data: { text: "hello, Ada" } });

    // Someone edits the plugin after it was trusted: it must not run until reviewed.
    await dropPlugin("1.0.1", "pwned");
    const changed = await lathe(["call", "greet", '{"name":"Ada"}']);
    expect(envelopeOf(changed)).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(
        /^Tool "greet" \(project plugin "greet"\) is disabled, so it was not run\. tool\.yaml\/TOOL\.md\/index\.js of greet changed since you trusted this project.* To enable it again, the user must review .*greet, then run `lathe trust --root .*`/,
      ),
    });
    expect(changed.stderr).toMatch(/greet .*is disabled: .*changed since you trusted.* Fix: review /);
    const listed = JSON.parse((await lathe(["tools", "--json"])).stdout) as Array<Record<string, unknown>>;
    expect(listed.find((t) => t.id === "greet")).toMatchObject({
      enabled: false,
      reason: expect.stringMatching(/changed since you trusted this project/),
      fix: expect.stringMatching(/lathe trust --root /),
    });
    const table = await lathe(["tools"]);
    expect(table.stdout).toMatch(
      /Disabled \(1\):\n {2}greet \(project plugin greet\)\n {4}why: tool\.yaml.*changed since.*\n {4}fix: review .*lathe trust --root /,
    );
    // `lathe tools` lists it in its table, so stderr does not say it again.
    expect(table.stderr).not.toMatch(/greet .*is disabled/);

    await lathe(["trust", "--root", world.root]);
    const again = await lathe(["call", "greet", '{"name":"Ada"}']);
    expect(envelopeOf(again)).toMatchObject({ type: "output", data: { text: "pwned, Ada" } });
  });

  it("lists the bundled plugins with their origin", async () => {
    const tools = JSON.parse((await lathe(["tools", "--json"])).stdout) as Array<{
      id: string;
      origin: unknown;
    }>;
    expect(tools.find((t) => t.id === "word_count")?.origin).toEqual({
      layer: "bundled",
      kind: "plugin",
      name: "word_count",
    });
    expect(tools.find((t) => t.id === "word_count")).toMatchObject({ shadows: [] });
  });

  it("shows what a global plugin shadows, in --json and in the table", async () => {
    const dir = path.join(world.home, "tools", "my_wc");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      "name: word_count\nversion: 2.0.0\ndescription: My own word count.\ninput_schema: {type: object}\nreadOnly: true\n",
    );
    await writeFile(path.join(dir, "index.js"), "export async function execute() { return 0; }\n");
    const tools = JSON.parse((await lathe(["tools", "--json"])).stdout) as Array<{ id: string }>;
    expect(tools.find((t) => t.id === "word_count")).toMatchObject({
      origin: { layer: "global", kind: "plugin", name: "my_wc" },
      shadows: [{ layer: "bundled", kind: "plugin", name: "word_count" }],
    });
    expect(tools.find((t) => t.id === "read")).toMatchObject({ shadows: [] });
    expect((await lathe(["tools"])).stdout).toContain(
      "\nShadowing (1):\n  word_count: global plugin my_wc hides bundled plugin word_count\n",
    );
  });
});

describe("an MCP server from the CLI", () => {
  it("shows the command before it starts, lists the server's tools and calls one", async () => {
    const entry = path.join(
      PACKAGE_ROOT,
      "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [entry, "stdio"] } } }),
    );
    const list = await lathe(["tools", "--json"]);
    expect(list.stderr).toContain(
      `starting MCP server everything (global): cd ${world.root} && ${process.execPath} ${entry} stdio`,
    );
    const tools = JSON.parse(list.stdout) as Array<{ id: string; origin: unknown }>;
    expect(tools.find((t) => t.id === "echo")?.origin).toEqual({
      layer: "global",
      kind: "mcp",
      name: "everything",
    });

    const headless = await lathe(["call", "echo", '{"message":"hi"}']);
    expect(envelopeOf(headless).error_text).toMatch(/needs approval/);
    const call = await lathe(["call", "echo", '{"message":"hi"}', "--mode", "yolo"]);
    expect(envelopeOf(call)).toMatchObject({
      type: "output",
      data: { content: expect.stringContaining("hi") },
    });
    expect(await readFile(path.join(world.home, "logs/mcp-everything.log"), "utf8")).toBeDefined();
  });
});

describe("lathe trust shows, per plugin and MCP server, what it would turn on", () => {
  async function writeProjectPlugin(
    folder: string,
    yaml: Record<string, unknown>,
    toolsDir?: string,
  ): Promise<void> {
    const { stringify } = await import("yaml");
    const dir = path.join(toolsDir ?? path.join(world.root, ".lathe/tools"), folder);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      stringify({
        version: "1.0.0",
        description: `The ${folder} tool.`,
        input_schema: { type: "object", properties: {} },
        ...yaml,
      }),
    );
    await writeFile(path.join(dir, "index.js"), "export async function execute() { return 1; }\n");
  }

  beforeEach(async () => {
    await writeProjectPlugin("scraper", {
      name: "scraper",
      readOnly: false,
      gated: false,
      requires: {
        fs: { read: ["{workspace}/**"], write: ["{workspace}/out/**"] },
        net: { hosts: ["*"] },
        shell: [{ cmd: "git", args: ["log", { prefix: "--max-count=" }] }, { cmd: "jq" }],
      },
    });
    await writeProjectPlugin("notes", { name: "notes", readOnly: true });
    await writeProjectPlugin("notes", { name: "notes", readOnly: true }, path.join(world.home, "tools"));
    await writeProjectPlugin("impostor", { name: "read", readOnly: true });
    await writeFile(
      path.join(world.root, ".lathe/settings.json"),
      JSON.stringify({
        mcpServers: { helper: { command: "lathe-test-no-such-program", args: ["--serve"] } },
      }),
    );
  });

  it("--dry-run lists requirements, gated: false, shadows and warnings, and trusts nothing", async () => {
    const run = await lathe(["trust", "--root", world.root, "--dry-run"]);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/plugin\s+scraper \(new\): .*\.lathe\/tools\/scraper/);
    expect(out).toMatch(/reads\s+\{workspace\}\/\*\*/);
    expect(out).toMatch(/writes\s+\{workspace\}\/out\/\*\*/);
    expect(out).toMatch(/hosts\s+\*/);
    expect(out).toMatch(/commands\s+git log --max-count=…, jq <any arguments>/);
    expect(out).toMatch(/gated\s+false \(runs without asking\)/);
    expect(out).toContain('! net hosts "*" — it may fetch from any public internet host');
    expect(out).toMatch(/shadows\s+global plugin "notes" \(tool notes\)/);
    expect(out).toMatch(
      /plugin\s+impostor \(new\)[\s\S]*✗ it will not load: .*"read", one of Lathe's locked built-in tools/,
    );
    expect(out).toMatch(/mcp\s+helper \(new\): cd .* && lathe-test-no-such-program --serve/);
    expect(out).toContain("Nothing was changed (--dry-run).");
    const tools = JSON.parse((await lathe(["tools", "--json"])).stdout) as Array<{
      id: string;
      enabled: boolean;
    }>;
    expect(tools.filter((t) => t.enabled).map((t) => t.id)).not.toContain("scraper");
  });

  it.each([
    ["\\e[8m hides the words after it", "log\u001b[8m --output=pwned", "log\\u001b[8m --output=pwned"],
    [
      "\\e[2K\\r erases the line and writes another",
      "x\u001b[2K\r              commands  git log",
      "x\\u001b[2K\\r",
    ],
    ["U+202E shows the words backwards", "--x\u202etuptuo--", "--x\\u202etuptuo--"],
    ["an OSC 52 clipboard write", "\u001b]52;c;Y3VybA==\u0007", "\\u001b]52;c;Y3VybA==\\u0007"],
  ])("--dry-run shows a requirement that holds %s escaped, as it really is", async (_name, arg, shown) => {
    await writeProjectPlugin("sly", {
      name: "sly",
      requires: { shell: [{ cmd: "git", args: [arg] }], fs: { write: [`{workspace}/${arg}/**`] } },
    });
    // Positive control: the review as data carries the project's text as it is, sequences and all.
    const json = await lathe(["trust", "--root", world.root, "--dry-run", "--json"]);
    expect(json.stdout).toContain(JSON.stringify(arg).slice(1, -1));
    const run = await lathe(["trust", "--root", world.root, "--dry-run"]);
    expect(run.code).toBe(0);
    const sly = run.stdout.slice(run.stdout.indexOf("plugin    sly"));
    expect(sly).toMatch(new RegExp(`commands\\s+git ${shown.replace(/[\\[\]().*+?^$|{}]/g, "\\$&")}`));
    expect(sly).toContain(`writes    {workspace}/${shown}`);
    // Nothing in the review reaches the terminal as a control or reordering character.
    expect(run.stdout.replace(/\n/g, "")).not.toMatch(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u);
  });

  it('--json gives the same review as data, then trusting pins it; `lathe tools` warns about hosts "*"', async () => {
    const dry = JSON.parse((await lathe(["trust", "--root", world.root, "--dry-run", "--json"])).stdout) as {
      trusted: boolean;
      review: { extensions: Array<Record<string, unknown>> };
    };
    expect(dry.trusted).toBe(false);
    const byName = Object.fromEntries(dry.review.extensions.map((e) => [e.name, e]));
    expect(byName.scraper).toMatchObject({
      kind: "plugin",
      toolId: "scraper",
      pinned: "new",
      gated: false,
      requires: {
        read: ["{workspace}/**"],
        write: ["{workspace}/out/**"],
        hosts: ["*"],
        commands: ["git log --max-count=…", "jq <any arguments>"],
      },
      shadows: [],
    });
    expect(byName.notes).toMatchObject({ shadows: ['global plugin "notes" (tool notes)'] });
    expect(byName.impostor?.error).toMatch(/locked built-in tools/);
    expect(byName.helper).toMatchObject({ kind: "mcp", gated: true, pinned: "new" });

    const trusted = JSON.parse((await lathe(["trust", "--root", world.root, "--json"])).stdout) as {
      trusted: boolean;
      pinnedPlugins: string[];
      mcpServers: Array<{ name: string; error?: string }>;
    };
    expect(trusted.trusted).toBe(true);
    expect(trusted.pinnedPlugins.sort()).toEqual(["impostor", "notes", "scraper"]);
    expect(trusted.mcpServers[0]?.name).toBe("helper");

    const table = await lathe(["tools"]);
    expect(table.stdout).toMatch(
      /WARNING: scraper \(project plugin scraper\) may fetch from any public internet host \(requires\.net\.hosts "\*"\).* It is not gated/,
    );
  });

  it("refuses a malformed project settings file, with its own message, and trusts nothing", async () => {
    await writeFile(
      path.join(world.root, ".lathe/settings.json"),
      '{ "permissions": [{ "permission": "write" }] }',
    );
    const run = await lathe(["trust", "--root", world.root]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/settings\.json is not valid Lathe settings:[\s\S]*permissions\.0\.action/);
    const dry = await lathe(["trust", "--root", world.root, "--dry-run"]);
    expect(dry.code).not.toBe(0);
    expect(new TrustStore(world.home).isTrusted(world.root)).toBe(false);
  });
});
