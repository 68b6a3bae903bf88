import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleState } from "../bin/cli-bundle.mjs";
import { buildCli, type BuildInfo } from "../scripts/build-cli.ts";
import { collected, envelopeOf, LATHE_BIN, PACKAGE_ROOT, runLathe, type Run } from "./support/lathe-cli.ts";
import { plugin, writePlugin } from "./support/plugin-test-kit.ts";

// The CLI bundle (scripts/build-cli.ts), built here into a folder of its own: it answers
// --version, tools and call read exactly as the sources do, its offload worker is found beside
// it; and bin/lathe.mjs runs the sources, with a one-line notice, when no up-to-date bundle is
// there.

const VERSION = (
  JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }
).version;

/**
 * Runs the bundle's `main` like run-bundle.mjs, then names on stderr every package it loaded,
 * every file of the bundle (its name without the content hash: `engine-[hash].js` is "engine"),
 * and every public Node module loaded by then ("http", not its internal parts). With
 * `viaDaemonClient`, it first asks the daemon's client beside the entry, as bin/lathe.mjs does
 * (LATHE_DAEMON=off in the tests: the client hands the command back).
 */
const tracedRunner = (viaDaemonClient: boolean): string => `import { registerHooks } from "node:module";
const loaded = new Set();
const files = new Set();
const bundle = new URL(".", process.argv[2]).href;
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const match = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
    if (match) loaded.add(match[1]);
    if (result.url.startsWith(bundle)) files.add(result.url.slice(bundle.length).replace(/(-[\\w-]{8})?\\.js$/, ""));
    return result;
  },
});
${
  viaDaemonClient
    ? `const { runInDaemon } = await import(new URL("daemon-client.js", process.argv[2]).href);
if ((await runInDaemon(process.argv.slice(3), process.argv[1])) !== undefined) throw new Error("ran in a daemon");
`
    : ""
}const { main } = await import(process.argv[2]);
const code = await main(process.argv.slice(3));
process.stderr.write("loaded packages: " + JSON.stringify([...loaded].sort()) + "\\n");
process.stderr.write("loaded files: " + JSON.stringify([...files].sort()) + "\\n");
const builtins = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13));
process.stderr.write("loaded builtins: " + JSON.stringify(builtins.filter((m) => !/^(internal\\/|_)/.test(m)).sort()) + "\\n");
process.exit(code);
`;

let outDir: string;
let info: BuildInfo;
let work: string;
let home: string;

beforeAll(async () => {
  // Inside the package, as out/cli is: the bundle finds node_modules and package.json above it.
  outDir = path.join(PACKAGE_ROOT, "out", `cli-test-${process.pid}`);
  info = await buildCli(outDir);
  work = await mkdtemp(path.join(os.tmpdir(), "lathe-bundle-"));
  home = path.join(work, "home");
  await mkdir(path.join(work, "ws"));
  await writeFile(
    path.join(work, "run-bundle.mjs"),
    "const { main } = await import(process.argv[2]);\nprocess.exit(await main(process.argv.slice(3)));\n",
  );
  await writeFile(path.join(work, "run-bundle-traced.mjs"), tracedRunner(false));
  await writeFile(path.join(work, "run-launcher-traced.mjs"), tracedRunner(true));
  await writeFile(path.join(work, "ws", "small.txt"), "one\ntwo\nthree\n");
  // Large enough to be decoded on an offload worker (read.ts: READ_INLINE_BYTES).
  await writeFile(path.join(work, "ws", "large.txt"), "a line of text\n".repeat(30_000));
}, 120_000);

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

/** Run the bundle's `main` in a child process, as bin/lathe.mjs would. */
function runBundle(
  args: readonly string[],
  { runner = "run-bundle.mjs", latheHome = home }: { runner?: string; latheHome?: string } = {},
): Promise<Run> {
  const entry = pathToFileURL(path.join(outDir, "lathe.js")).href;
  const env: NodeJS.ProcessEnv = { ...process.env, LATHE_HOME: latheHome };
  delete env.LATHE_DEBUG;
  return collected(
    spawn(process.execPath, [path.join(work, runner), entry, ...args], {
      cwd: path.join(work, "ws"),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

/** Run the bundle with tracedRunner; what it names on stderr as loaded: bundle files or packages. */
async function traced(
  args: string[],
  latheHome: string,
  what: "files" | "packages" | "builtins",
  runner = "run-bundle-traced.mjs",
): Promise<string[]> {
  const run = await runBundle(args, { runner, latheHome });
  expect(run.code, run.stderr).toBe(0);
  const line = new RegExp(`^loaded ${what}: (.*)$`, "m").exec(run.stderr);
  return JSON.parse(line?.[1] ?? "null") as string[];
}

describe("the CLI bundle", () => {
  it("is built with its offload worker, process spawner and source maps, and records what it was built from", () => {
    for (const file of [
      "lathe.js",
      "offload-worker.js",
      "spawner-main.js",
      "lathe.js.map",
      "build-info.json",
    ])
      expect(existsSync(path.join(outDir, file)), file).toBe(true);
    expect(info.inputs).toEqual(
      expect.arrayContaining(["package.json", "src/main/cli/main.ts", "src/main/engine/engine.ts"]),
    );
    expect(info.inputs.some((f) => f.includes("node_modules/zod"))).toBe(false);
  });

  it("is ASCII in every file, so Node decodes and V8 scans each as one-byte text", async () => {
    const chunks = (await readdir(outDir)).filter((file) => file.endsWith(".js"));
    expect(chunks.length).toBeGreaterThan(5);
    for (const file of chunks) {
      const bytes = await readFile(path.join(outDir, file));
      const at = bytes.findIndex((byte) => byte > 0x7f);
      expect(at === -1 ? "" : `${file} at byte ${at}`).toBe("");
    }
  });

  it("loads the engine as one chunk, and none of it for --help", async () => {
    const tracedHome = path.join(work, "traced-files-home");
    const files = (args: string[]) => traced(args, tracedHome, "files");
    // Each file Node loads costs about half a millisecond whatever its size: a start that opens an
    // engine loads the entry, the engine chunk and the few small files the entry shares with it.
    // What the process spawner's child loads too (zod, the sidecar files' naming) is one chunk of
    // its own, "shared": the child loads it without the engine.
    // "lathe-home" (where LATHE_HOME is) is shared with the daemon's client, which the launcher
    // loads first for these commands.
    // "one-line-path" holds what the entry shares with the engine: LatheError, how a path is
    // shown on one line (the CLI's tables and the engine's sidecars) and a count written ("1 byte").
    const core = [
      "engine",
      "lathe",
      "lathe-home",
      "one-line-path",
      "rolldown-runtime",
      "shared",
      "write-inspect",
    ];
    await files(["tools"]);
    expect(await files(["tools"])).toEqual(core);
    expect(await files(["call", "read", JSON.stringify({ path: "small.txt" })])).toEqual(core);
    expect(await files(["--help"])).toEqual(["lathe", "one-line-path"]);
  });

  it("leaves the shell policy out of the engine chunk: the first call that starts a process loads it", async () => {
    // Its command tables and disk checks are a third of what the engine chunk was, and only a call
    // that starts a process asks them (call-policy.ts): tools and call read no longer load them.
    const engine = (await readdir(outDir)).find((name) => /^engine-[\w-]+\.js$/.test(name)) as string;
    const { sources } = JSON.parse(await readFile(path.join(outDir, `${engine}.map`), "utf8")) as {
      sources: string[];
    };
    const shellPolicy = /policy\/(shell\/read-only-commands|shell\/file-writers|option-like-file-names)\.ts$/;
    // A positive control: the map names the engine's own modules as these are named.
    expect(sources.some((source) => source.endsWith("policy/call-policy.ts"))).toBe(true);
    expect(sources.filter((source) => shellPolicy.test(source))).toEqual([]);
    const files = (args: string[]) => traced(args, path.join(work, "traced-shell-policy-home"), "files");
    expect(await files(["tools"])).not.toContain("shell-policy");
    expect(await files(["call", "bash", '{"command":"true"}', "--mode", "yolo"])).toContain("shell-policy");
  });

  it("loads no native addon, model SDK or MCP client a command does not use", async () => {
    const tracedHome = path.join(work, "traced-home");
    const loaded = (args: string[]) => traced(args, tracedHome, "packages");
    const heavy = ["isolated-vm", "node-pty", "node-llama-cpp", "@modelcontextprotocol/sdk", "ai"];
    // The first start checks the bundled plugins (their schemas with the meta-schema's validator
    // compiled ahead of time: no JSON Schema compiler) and the sandbox, and keeps the answers;
    // the next lists plugins from their cached manifests: no isolate, no sandbox, no SQLite.
    const first = await loaded(["tools"]);
    expect(first).toContain("isolated-vm");
    expect(first).not.toContain("ajv");
    expect(await loaded(["tools"])).toEqual([]);
    const read = await loaded(["call", "read", JSON.stringify({ path: "small.txt" })]);
    expect(read.filter((name) => heavy.includes(name))).toEqual([]);
    expect(read).toContain("better-sqlite3");
  });

  it("loads no node:http for a command that makes no HTTP request", async () => {
    // node:http (its client, server and agent) takes milliseconds to load: a command that opens an
    // engine and calls no web tool, model or HTTP MCP server has no use for it.
    const builtins = (args: string[]) => traced(args, path.join(work, "traced-builtins-home"), "builtins");
    const tools = await builtins(["tools"]);
    // A positive control: the list names what a start does load.
    expect(tools).toContain("fs");
    expect(tools).not.toContain("http");
    expect(await builtins(["call", "read", JSON.stringify({ path: "small.txt" })])).not.toContain("http");
  });

  it("loads no node:child_process, node:readline or node:perf_hooks for tools or call read, launcher included", async () => {
    // child_process (with dgram and net under it), tty and readline take milliseconds to load: the
    // daemon's client needs them only to start a daemon or to hand a terminal over, the engine
    // only to start a process, `lathe batch` only to read its lines. (net itself is loaded here
    // anyway: stdout and stderr are pipes.) perf_hooks came with a call's clock (monotonic-ms.ts).
    const slow = ["child_process", "dgram", "readline", "tty", "perf_hooks"];
    const home = path.join(work, "traced-launcher-home");
    const builtins = (args: string[]) => traced(args, home, "builtins", "run-launcher-traced.mjs");
    await builtins(["tools"]);
    // A positive control: a bash call starts the process spawner, and that loads child_process.
    const bash = await builtins(["call", "bash", '{"command":"true"}', "--mode", "yolo"]);
    expect(bash).toContain("child_process");
    expect((await builtins(["tools"])).filter((name) => slow.includes(name))).toEqual([]);
    const read = await builtins(["call", "read", JSON.stringify({ path: "small.txt" })]);
    expect(read.filter((name) => slow.includes(name))).toEqual([]);
  });

  it("prints the version", async () => {
    const run = await runBundle(["--version"]);
    expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("lists the same tools, with the same schemas, as the sources", async () => {
    const bundled = await runBundle(["tools", "--json"]);
    const sources = await runLathe(["tools", "--json"], {
      home,
      cwd: path.join(work, "ws"),
      env: { LATHE_CLI: "source" },
    });
    expect(bundled.code).toBe(0);
    expect(sources.code).toBe(0);
    const tools = JSON.parse(bundled.stdout) as Array<{ id: string; parameters: unknown }>;
    expect(tools.map((t) => t.id)).toEqual(expect.arrayContaining(["read", "bash", "word_count"]));
    expect(tools).toEqual(JSON.parse(sources.stdout));
  });

  it.each([
    ["a number as the path", "read", '{"path":5}'],
    ["no path", "read", "{}"],
    ["an offset below 1", "read", '{"path":"small.txt","offset":0}'],
    ["an unknown property", "read", '{"path":"small.txt","bogus":1}'],
    ["an output mode not in the enum", "grep", '{"pattern":"x","output_mode":"lines"}'],
    ["a bad status in a nested list", "todo", '{"todos":[{"content":"a","status":"later"}]}'],
  ])(
    "refuses %s with the sources' message (its validator compiled ahead of time)",
    async (_name, tool, args) => {
      const bundled = envelopeOf(await runBundle(["call", tool, args]));
      const sources = envelopeOf(
        await runLathe(["call", tool, args], {
          home,
          cwd: path.join(work, "ws"),
          env: { LATHE_CLI: "source" },
        }),
      );
      expect(bundled.type).toBe("error");
      expect(bundled.error_text).toMatch(/^Invalid arguments for /);
      expect(bundled.error_text).toBe(sources.error_text);
    },
  );

  it("checks plugins' schemas as the sources do (the meta-schema's validator compiled ahead of time)", async () => {
    // A home of its own, its manifest cache emptied before each run: every schema is checked.
    const schemaHome = path.join(work, "schema-home");
    const tools = path.join(schemaHome, "tools");
    const valid = { type: "object", properties: { q: { type: "string", minLength: 1 } } };
    const invalid: Array<[string, unknown]> = [
      ["properties_not_an_object", { type: "object", properties: 5 }],
      ["required_not_a_list", { type: "object", required: "q" }],
      ["negative_min_length", { type: "object", properties: { q: { type: "string", minLength: -1 } } }],
      ["nested_items_wrong", { type: "object", properties: { q: { type: "array", items: 5 } } }],
      // The meta-schema asks only for a string: the regex itself failed every call instead.
      ["pattern_no_regex", { type: "object", properties: { q: { type: "string", pattern: "(" } } }],
      // Only compiling finds what a $ref points to: a $ref to nothing failed every call instead.
      ["ref_to_nothing", { type: "object", properties: { q: { $ref: "#/$defs/Query" } } }],
    ];
    await writePlugin(tools, "fine", plugin("fine", "return {};", { input_schema: valid }));
    for (const [name, schema] of invalid)
      await writePlugin(tools, name, plugin(name, "return {};", { input_schema: schema }));
    await writePlugin(
      tools,
      "output_ref_to_nothing",
      plugin("output_ref_to_nothing", "return {};", {
        input_schema: valid,
        output_schema: { type: "object", properties: { n: { $ref: "#/$defs/Count" } } },
      }),
    );
    await writePlugin(
      tools,
      "output_schema_wrong",
      plugin("output_schema_wrong", "return {};", {
        input_schema: valid,
        output_schema: { type: "object", properties: { n: { type: "integer", minimum: "one" } } },
      }),
    );
    const bundled = await runBundle(["tools", "--json"], { latheHome: schemaHome });
    await rm(path.join(schemaHome, "cache"), { recursive: true, force: true });
    const sources = await runLathe(["tools", "--json"], {
      home: schemaHome,
      cwd: path.join(work, "ws"),
      env: { LATHE_CLI: "source" },
    });
    expect(bundled.code, bundled.stderr).toBe(0);
    const byId = new Map(
      (JSON.parse(bundled.stdout) as Array<{ id: string; enabled: boolean; reason?: string }>).map((t) => [
        t.id,
        t,
      ]),
    );
    expect(byId.get("fine")).toMatchObject({ enabled: true });
    for (const [name] of invalid) {
      expect(byId.get(name)).toMatchObject({
        enabled: false,
        reason: expect.stringMatching(/field "input_schema" is not a valid JSON Schema \(schema\//),
      });
    }
    expect(byId.get("output_ref_to_nothing")).toMatchObject({
      enabled: false,
      reason: expect.stringContaining('output_schema/properties/n/$ref points to "#/$defs/Count"'),
    });
    expect(byId.get("output_schema_wrong")).toMatchObject({
      enabled: false,
      reason: expect.stringContaining("output_schema/properties/n/minimum must be number"),
    });
    expect(JSON.parse(bundled.stdout)).toEqual(JSON.parse(sources.stdout));
  });

  it("reads a small file in process and a large one on its offload worker", async () => {
    const small = envelopeOf(await runBundle(["call", "read", '{"path":"small.txt"}']));
    expect(small).toMatchObject({ type: "output", data: { content: expect.stringContaining("two") } });
    const large = envelopeOf(await runBundle(["call", "read", '{"path":"large.txt","limit":2}']));
    expect(large).toMatchObject({ type: "output", data: { total_lines: 30_000 } });
  });

  it("runs a bash command through its process spawner, found beside the chunk", async () => {
    const run = await runBundle(["call", "bash", '{"command":"echo from-the-spawner"}', "--mode", "yolo"]);
    expect(envelopeOf(run), run.stderr).toMatchObject({
      type: "output",
      data: { output: "from-the-spawner\n", exit_code: 0 },
    });
  });
});

describe("bin/lathe.mjs without an up-to-date bundle", () => {
  let fake: string;

  /** A copy of the launcher in a package of its own, with the real sources and dependencies. */
  beforeAll(async () => {
    fake = await mkdtemp(path.join(os.tmpdir(), "lathe-launcher-"));
    await mkdir(path.join(fake, "bin"));
    for (const file of ["lathe.mjs", "cli-bundle.mjs"])
      await copyFile(path.join(PACKAGE_ROOT, "bin", file), path.join(fake, "bin", file));
    await copyFile(path.join(PACKAGE_ROOT, "package.json"), path.join(fake, "package.json"));
    for (const link of ["src", "node_modules", "plugins"])
      await symlink(path.join(PACKAGE_ROOT, link), path.join(fake, link));
    // A git checkout: only there does the launcher compare the bundle with the sources.
    await mkdir(path.join(fake, ".git"));
  });
  afterAll(async () => {
    await rm(fake, { recursive: true, force: true });
  });

  function launch(args: readonly string[]): Promise<Run> {
    return runLathe(args, {
      home,
      cwd: path.join(work, "ws"),
      bin: path.join(fake, "bin", "lathe.mjs"),
      env: { LATHE_CLI: undefined },
    });
  }

  it("runs the sources with a one-line notice when no bundle is built", async () => {
    const run = await launch(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: lathe /);
    expect(run.stderr).toBe(
      "lathe: the CLI bundle is not built; running from the TypeScript sources, which starts slower (`npm run build:cli` builds it)\n",
    );
  });

  it("says a LATHE_CLI it does not know is ignored, rather than choosing silently", async () => {
    const run = await runLathe(["--help"], {
      home,
      cwd: path.join(work, "ws"),
      bin: path.join(fake, "bin", "lathe.mjs"),
      env: { LATHE_CLI: "sources" },
    });
    expect(run.code).toBe(0);
    expect(run.stderr.split("\n")[0]).toBe(
      'lathe: LATHE_CLI=sources is neither "source" nor "bundle", so it is ignored',
    );
  });

  it("runs the sources, naming the newer file, when a source changed after the build", async () => {
    const dir = path.join(fake, "out", "cli");
    await mkdir(dir, { recursive: true });
    // A bundle that would fail loudly if it ran.
    await writeFile(path.join(dir, "lathe.js"), 'throw new Error("the stale bundle ran");\n');
    // The launcher asks the bundle's daemon client first; this one never has a daemon.
    await writeFile(
      path.join(dir, "daemon-client.js"),
      "export const runInDaemon = async () => undefined;\n",
    );
    const builtAt = Date.now() - 60_000;
    await writeFile(
      path.join(dir, "build-info.json"),
      JSON.stringify({ format: 1, builtAt, inputs: ["package.json"] }),
    );
    const copied = path.join(fake, "package.json");
    await utimes(copied, new Date(), new Date());
    expect(bundleState(fake, dir)).toEqual({ state: "stale", changed: "package.json" });
    const run = await launch(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: lathe /);
    expect(run.stderr).toBe(
      "lathe: the CLI bundle is older than package.json; running from the TypeScript sources, which starts slower (`npm run build:cli` builds it)\n",
    );
    // Older than the build again: the bundle is used (and here it says so by failing).
    await utimes(copied, new Date(builtAt - 1_000), new Date(builtAt - 1_000));
    expect(bundleState(fake, dir)).toEqual({ state: "fresh" });
    const bundled = await launch(["--help"]);
    expect(bundled.code).toBe(1);
    expect(bundled.stderr).toContain("the stale bundle ran");
  });

  it.each([["--version"], ["-V"]])(
    "answers %s alone before choosing the code: no bundle, stale or not, is checked or run",
    async (flag) => {
      // The stale bundle of the test above would fail loudly if it ran; here none is looked at.
      const dir = path.join(fake, "out", "cli");
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, "lathe.js"), 'throw new Error("the bundle ran");\n');
      await writeFile(path.join(dir, "build-info.json"), "not JSON");
      const run = await launch([flag]);
      expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
      // With anything else on the line, the CLI runs (and here the sources, with the notice).
      const usage = await launch([flag, "tools"]);
      expect(usage.stderr).toContain("the CLI bundle is not built");
    },
  );

  it("notices an edited source however deep, and a deleted one, from either form of the root", async () => {
    const checkout = await mkdtemp(path.join(os.tmpdir(), "lathe-checkout-"));
    try {
      const dir = path.join(checkout, "out", "cli");
      await mkdir(dir, { recursive: true });
      await mkdir(path.join(checkout, ".git"));
      await mkdir(path.join(checkout, "src", "main", "engine"), { recursive: true });
      const deep = path.join(checkout, "src", "main", "engine", "deep.ts");
      await writeFile(deep, "export {};\n");
      await writeFile(path.join(dir, "lathe.js"), "");
      const builtAt = Date.now() + 60_000;
      const inputs = ["src/main/engine/deep.ts"];
      await writeFile(path.join(dir, "build-info.json"), JSON.stringify({ format: 1, builtAt, inputs }));
      for (const root of [checkout, `${checkout}${path.sep}`])
        expect(bundleState(root, dir)).toEqual({ state: "fresh" });
      // Edited in place (the folder's own time does not change): stale, naming the file.
      await utimes(deep, new Date(builtAt + 1_000), new Date(builtAt + 1_000));
      for (const root of [checkout, `${checkout}${path.sep}`])
        expect(bundleState(root, dir)).toEqual({ state: "stale", changed: "src/main/engine/deep.ts" });
      await rm(deep);
      expect(bundleState(checkout, dir)).toEqual({ state: "stale", changed: "src/main/engine/deep.ts" });
    } finally {
      await rm(checkout, { recursive: true, force: true });
    }
  });

  it("uses a built bundle as it is outside a git checkout (an installed Lathe)", async () => {
    const installed = await mkdtemp(path.join(os.tmpdir(), "lathe-installed-"));
    try {
      const dir = path.join(installed, "out", "cli");
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(installed, "package.json"), "{}");
      await writeFile(path.join(dir, "lathe.js"), "");
      await writeFile(
        path.join(dir, "build-info.json"),
        JSON.stringify({ format: 1, builtAt: 0, inputs: ["package.json"] }),
      );
      expect(bundleState(installed, dir)).toEqual({ state: "fresh" });
      await mkdir(path.join(installed, ".git"));
      expect(bundleState(installed, dir)).toEqual({ state: "stale", changed: "package.json" });
    } finally {
      await rm(installed, { recursive: true, force: true });
    }
  });

  it("is what the other CLI tests run: the bundle when it is up to date, else the sources", () => {
    expect(process.env.LATHE_CLI).toBe(bundleState().state === "fresh" ? "bundle" : "source");
    expect(LATHE_BIN).toBe(path.join(PACKAGE_ROOT, "bin", "lathe.mjs"));
  });
});
