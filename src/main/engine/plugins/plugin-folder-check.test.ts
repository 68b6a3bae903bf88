import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TrustStore } from "../policy/trust-store.ts";
import { checkPluginFolder } from "./plugin-folder-check.ts";
import { globalToolsDir, projectToolsDir } from "./plugin-discovery.ts";
import { pinProjectPlugins } from "./project-plugins.ts";
import { manifestFields, plugin, writePlugin } from "../../../../test/support/plugin-test-kit.ts";

// `lathe plugin check <folder>`: the loader's own checks, every problem with its fix, plus what
// only running the module shows (top-level code, `execute` not a function) and what a plugin
// author needs to know (pins, hot reload, shadowing).

let base: string;
let latheHome: string;
let bundledDir: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-plugin-check-")));
  latheHome = path.join(base, "home");
  bundledDir = path.join(base, "bundled");
  root = path.join(base, "project");
  await mkdir(bundledDir, { recursive: true });
  await mkdir(root, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const check = (dir: string) => checkPluginFolder(dir, { latheHome, bundledDir });

describe("checkPluginFolder", () => {
  it("passes a good global plugin, and says it reloads without a pin", async () => {
    const dir = await writePlugin(globalToolsDir(latheHome), "greet", plugin("greet", "return 'hi';"));
    const report = await check(dir);
    expect(report).toMatchObject({
      dir,
      ok: true,
      layer: "global",
      tool: { name: "greet", version: "1.0.0" },
    });
    expect(report.problems).toEqual([]);
    expect(report.notes[0]).toMatch(/^A global plugin: no pin\. The app reloads it/);
  });

  it("lists every problem of tool.yaml and the entry file, each with its fix", async () => {
    const dir = await writePlugin(globalToolsDir(latheHome), "broken", {
      yaml: {
        ...manifestFields("broken", { version: "one", timeout: 5 }),
        requires: { shell: [{ cmd: "git log" }] },
      },
      js: "import fs from 'node:fs';\nexport async function execute() { return 1; }\n",
    });
    const report = await check(dir);
    expect(report.ok).toBe(false);
    expect(report.tool).toBeUndefined();
    expect(report.problems.map((p) => [path.basename(p.file), p.where])).toEqual([
      ["tool.yaml", 'field "timeout"'],
      ["tool.yaml", 'field "version"'],
      ["tool.yaml", 'field "requires.shell[0].cmd"'],
      ["index.js", 'import "node:fs"'],
    ]);
    for (const p of report.problems) expect(p.fix).not.toBe("");
  });

  it("reports a syntax error with its line and column", async () => {
    const dir = await writePlugin(globalToolsDir(latheHome), "typo", {
      yaml: manifestFields("typo"),
      js: "export async function execute() {\n  return {;\n}\n",
    });
    const [problem] = (await check(dir)).problems;
    expect(problem).toMatchObject({
      where: "line 2, column 11",
      problem: expect.stringMatching(/syntax error/),
    });
  });

  it("starts the isolate: top-level code that throws, and an `execute` that is not a function", async () => {
    const throws = await writePlugin(globalToolsDir(latheHome), "throws", {
      yaml: manifestFields("throws"),
      js: "console.log('starting');\nconst cfg = JSON.parse('{');\nexport async function execute() { return 1; }\n",
    });
    const report = await check(throws);
    expect(report.problems).toEqual([
      {
        file: path.join(throws, "index.js"),
        where: "the module's top-level code",
        problem: expect.stringMatching(
          new RegExp(
            `^fails when the isolate starts: throws failed to start: .*JSON.* \\(thrown at ${throws}/index\\.js:2:\\d+\\)$`,
          ),
        ),
        fix: expect.stringMatching(/do the work inside `execute`/),
      },
    ]);
    expect(report.notes).toContain("index.js logged while starting: starting");

    const notFunction = await writePlugin(globalToolsDir(latheHome), "odd", {
      yaml: manifestFields("odd"),
      js: "export let execute = 1;\n",
    });
    expect((await check(notFunction)).problems[0]?.problem).toMatch(/`execute` export is not a function/);
  });

  it("finds WebAssembly used without `wasm: true`, and accepts it with the flag", async () => {
    const body = "// WebAssembly in a comment is fine\nreturn typeof WebAssembly;";
    const without = await writePlugin(globalToolsDir(latheHome), "wasmy", plugin("wasmy", body));
    expect((await check(without)).problems).toEqual([
      expect.objectContaining({ where: "line 3", problem: expect.stringMatching(/declares `wasm: true`/) }),
    ]);
    const withFlag = await writePlugin(
      globalToolsDir(latheHome),
      "wasmy2",
      plugin("wasmy2", body, { wasm: true }),
    );
    expect((await check(withFlag)).ok).toBe(true);
  });

  it("finds runtime members used without declaring them, and accepts them once declared", async () => {
    const body = [
      "// runtime.net in a comment is fine",
      "const log = await runtime.shell.run('git', ['log']);",
      "const text = await runtime.fs.readText('a.txt');",
      "await runtime.fs.writeText('b.txt', text + log.output);",
    ].join("\n");
    const without = await writePlugin(
      globalToolsDir(latheHome),
      "undeclared",
      plugin("undeclared", body, { requires: { fs: { read: ["{workspace}/**"] } } }),
    );
    expect((await check(without)).problems).toEqual([
      {
        file: path.join(without, "index.js"),
        where: "line 3",
        problem:
          "uses runtime.shell, which a plugin gets only when tool.yaml declares requires.shell: it is undefined here, so the call fails",
        fix: "declare it in tool.yaml (requires: {shell: [{cmd: <program>, args: [...]}]}), or stop using runtime.shell",
      },
      expect.objectContaining({
        where: "line 5",
        problem: expect.stringMatching(/^uses runtime\.fs\.writeText, .* requires\.fs\.write:/),
      }),
    ]);
    const declared = await writePlugin(
      globalToolsDir(latheHome),
      "declared",
      plugin("declared", body, {
        readOnly: false,
        requires: {
          fs: { read: ["{workspace}/**"], write: ["{workspace}/**"] },
          shell: [{ cmd: "git", args: ["log"] }],
        },
      }),
    );
    expect((await check(declared)).problems).toEqual([]);
  });

  it("finds another folder of the same tools directory declaring the same tool, and notes what it shadows", async () => {
    const first = await writePlugin(globalToolsDir(latheHome), "a", plugin("same", "return 1;"));
    await writePlugin(globalToolsDir(latheHome), "b", plugin("same", "return 2;"));
    await writePlugin(bundledDir, "same", plugin("same", "return 0;"));
    const report = await check(first);
    expect(report.problems).toEqual([
      expect.objectContaining({
        where: 'field "name"',
        problem: `is "same", which ${path.join(globalToolsDir(latheHome), "b")} declares too; only one tool of a name loads per tools directory`,
      }),
    ]);
    expect(report.notes).toContain(
      `It shadows the bundled plugin ${path.join(bundledDir, "same")} of the same name.`,
    );
  });

  it("refuses a locked built-in's name", async () => {
    const dir = await writePlugin(globalToolsDir(latheHome), "myread", plugin("read", "return 1;"));
    expect((await check(dir)).problems[0]?.problem).toMatch(/one of Lathe's locked built-in tools/);
  });

  it("holds a project plugin to its project's trust and pin, and says where to develop instead", async () => {
    const dir = await writePlugin(projectToolsDir(root), "local", plugin("local", "return 1;"));
    const untrusted = await check(dir);
    expect(untrusted).toMatchObject({ ok: false, layer: "project" });
    expect(untrusted.problems).toEqual([
      expect.objectContaining({
        where: "the project",
        problem: "is not trusted, so its plugins do not load",
      }),
    ]);
    expect(untrusted.notes[0]).toContain(`Develop it in ${path.join(globalToolsDir(latheHome), "local")}`);

    new TrustStore(latheHome).trust(root);
    await pinProjectPlugins(root, latheHome);
    expect((await check(dir)).ok).toBe(true);

    await writeFile(path.join(dir, "index.js"), "export async function execute() { return 2; }\n");
    expect((await check(dir)).problems).toEqual([
      expect.objectContaining({
        where: "the pin",
        problem: expect.stringMatching(/changed since you trusted this project/),
        fix: expect.stringContaining(`lathe trust --root ${root}`),
      }),
    ]);
  });

  it("says a folder outside every tools directory is not loaded, and where to put it", async () => {
    const dir = await writePlugin(path.join(base, "src"), "draft", plugin("draft", "return 1;"));
    const report = await check(dir);
    expect(report).toMatchObject({ ok: true });
    expect(report.layer).toBeUndefined();
    expect(report.notes[0]).toMatch(/^This folder is in no tools directory, so Lathe does not load it/);
  });

  it("throws for a path that does not exist", async () => {
    await expect(check(path.join(base, "nothing"))).rejects.toThrow(
      /nothing does not exist\. Pass the plugin's folder/,
    );
  });
});

describe("a plugin file that cannot be used as it is", () => {
  const big = (bytes: number) => `# ${"x".repeat(bytes)}\n`;
  it.each([
    [
      "a tool.yaml over 256 KB",
      "tool.yaml",
      (dir: string) => writeFile(path.join(dir, "tool.yaml"), big(256 * 1024)),
      /^is \d+ bytes, more than the 256 KB \(262144 bytes\) a plugin's tool\.yaml may be$/,
      /^shorten tool\.yaml: .* \(at most 256 KB\)$/,
    ],
    [
      "a TOOL.md over 16 KB",
      "TOOL.md",
      (dir: string) => writeFile(path.join(dir, "TOOL.md"), big(16 * 1024)),
      /^is \d+ bytes, more than the 16 KB \(16384 bytes\) a plugin's TOOL\.md may be$/,
      /^shorten TOOL\.md to when to use the tool, when not, and a few examples \(at most 16 KB\)$/,
    ],
    [
      "an entry file over 1 MB",
      "index.js",
      (dir: string) =>
        writeFile(
          path.join(dir, "index.js"),
          `export async function execute() { return 1; }\n${big(1024 * 1024)}`,
        ),
      /^is \d+ bytes, more than the 1 MB \(1048576 bytes\) a plugin's entry file may be$/,
      /^make index\.js smaller: bundle only what the tool needs, minified \(at most 1 MB\)$/,
    ],
    [
      "a tool.yaml that is a folder",
      "tool.yaml",
      async (dir: string) => {
        await rm(path.join(dir, "tool.yaml"));
        await mkdir(path.join(dir, "tool.yaml"));
      },
      /^cannot be read \(not a regular file, or no permission\)$/,
      /^make tool\.yaml a regular file that you can read \(check its type and permissions\)$/,
    ],
  ])("%s says so, with the limit and a fix that fits", async (_name, file, spoil, problem, fix) => {
    const dir = await writePlugin(globalToolsDir(latheHome), "greet", plugin("greet", "return 'hi';"));
    await spoil(dir);
    const report = await check(dir);
    const found = report.problems.find((p) => p.file === path.join(dir, file));
    expect(found?.problem).toMatch(problem);
    expect(found?.fix).toMatch(fix);
    expect(found?.fix).not.toMatch(/^add /);
  });
});
