// `npm run build:cli` (also part of `npm run build`, and run by `npm install` through `prepare`):
// bundles the `lathe` CLI into out/cli/ so it starts without stripping TypeScript and without
// resolving hundreds of small dependency files. bin/lathe.mjs runs the bundle when it is built
// and fresh (see bin/cli-bundle.mjs), else the sources.
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RolldownMagicString, RolldownPlugin } from "rolldown";

const ROOT = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

/**
 * Packages left in node_modules, loaded at run time: native addons (their loaders look for a
 * compiled file beside their own code) and packages that find programs or files relative to
 * themselves (sandbox-runtime's vendored seccomp helpers). Everything else is plain JavaScript
 * and bundled, tree-shaken, so a start reads a few files rather than hundreds.
 */
const EXTERNAL_PACKAGES = [
  "better-sqlite3",
  "isolated-vm",
  "node-pty",
  "node-llama-cpp",
  "@anthropic-ai/sandbox-runtime",
  // Loaded only for model calls allowed more than 300 s of silence (model-fetch.ts); its licence
  // comments are not ASCII, and bundled it would be a second copy of an HTTP stack for nothing.
  "undici",
  // ws requires these optional native speed-ups inside a try; they are not installed.
  "bufferutil",
  "utf-8-validate",
];

/** Files whose change makes a built bundle stale besides its own sources (see bin/cli-bundle.mjs). */
const EXTRA_INPUTS = ["package.json", "package-lock.json", "node_modules/.package-lock.json"];

export interface BuildInfo {
  /** Format of this file. */
  format: 1;
  /** When the build started (ms since the epoch): a source changed after it makes the bundle stale. */
  builtAt: number;
  /** The files it was built from, relative to the package root (sources, package files). */
  inputs: string[];
}

/** `import … from "node:x";` as rolldown writes it at the top of a chunk (one import per line). */
const BUILTIN_IMPORT = /^import (.+) from "(node:[\w/]+)";$/gm;
const CLAUSE = /^(?:([\w$]+)(?:, )?)?(?:\{ ([^}]*) \}|\* as ([\w$]+))?$/;

/**
 * Node modules that cost milliseconds to load and that a dependency may import whole for a rare
 * path (commander imports child_process for subcommands run as programs): such an import becomes
 * an object that loads the module on first use.
 */
const SLOW_TO_LOAD = new Set(
  [
    "child_process",
    "worker_threads",
    "http",
    "https",
    "http2",
    "zlib",
    "net",
    "tls",
    "dgram",
    "dns",
    "readline",
    // Its streams (net.Socket) load node:net and node:stream: a start that asks isatty loads it then.
    "tty",
    "vm",
    "inspector",
    "cluster",
  ].map((name) => `node:${name}`),
);

/**
 * The same bindings from `process.getBuiltinModule`, which hands over Node's module as it is.
 * An ESM `import` of a Node built-in builds a facade that reads every export — running the lazy
 * getters too: `import http from "node:http"` loads undici and http2 (its WebSocket export),
 * `import fs from "node:fs"` its streams — tens of milliseconds of modules nothing uses.
 */
export function builtinBindings(clause: string, specifier: string): string {
  const parts = CLAUSE.exec(clause);
  if (!parts) throw new Error(`build-cli: cannot rewrite \`import ${clause} from "${specifier}"\``);
  const [, whole, named, namespace] = parts;
  const module = `globalThis.process.getBuiltinModule(${JSON.stringify(specifier)})`;
  const destructured = named
    ?.split(",")
    .map((binding) => binding.trim().replace(/^([\w$]+) as ([\w$]+)$/, "$1: $2"))
    .join(", ");
  const name = whole ?? namespace;
  if (name && destructured) return `const ${name} = ${module}, { ${destructured} } = ${name};`;
  if (name && SLOW_TO_LOAD.has(specifier)) {
    return `const ${name} = new Proxy({}, { get: (_, key) => ${module}[key] });`;
  }
  if (name) return `const ${name} = ${module};`;
  if (destructured) return `const { ${destructured} } = ${module};`;
  throw new Error(`build-cli: cannot rewrite \`import ${clause} from "${specifier}"\``);
}

/** Rewrites every chunk's imports of Node built-ins (see builtinBindings), keeping the source maps. */
function builtinsWithoutFacades(MagicString: typeof RolldownMagicString): RolldownPlugin {
  return {
    name: "lathe:builtins-without-facades",
    renderChunk(code) {
      const edited = new MagicString(code);
      for (const match of code.matchAll(BUILTIN_IMPORT)) {
        const [line, clause, specifier] = match as unknown as [string, string, string];
        edited.overwrite(match.index, match.index + line.length, builtinBindings(clause, specifier));
      }
      return edited;
    },
  };
}

const CATALOG_MODULE = path.join(ROOT, "src/main/engine/builtin/builtin-catalog.ts");

/**
 * The built-ins' published parameters, generated here from their zod schemas exactly as the
 * engine generates them at run time (see defineBuiltin), by tool id. Their dependencies (the
 * skill catalog) are only used when a tool runs, so none is made.
 */
export async function builtinParameters(): Promise<Record<string, unknown>> {
  const { builtinTools } = await import("../src/main/engine/builtin/builtin-tools.ts");
  const { toolSearchTool } = await import("../src/main/engine/builtin/tool-search.ts");
  const { EMPTY_SETTINGS } = await import("../src/main/engine/config/lathe-settings.ts");
  const unused = {} as never;
  const tools = [
    ...builtinTools({ web: EMPTY_SETTINGS.web, settingsFile: "", skills: unused }),
    toolSearchTool(),
  ];
  return Object.fromEntries(tools.map((tool) => [tool.id, tool.parameters]));
}

/**
 * builtin-catalog.ts as the bundle carries it: the table above, and ajv's standalone code for a
 * validator of each schema, compiled with the options the engine compiles with.
 */
export async function builtinCatalogModule(): Promise<string> {
  const parameters = await builtinParameters();
  const { jsonSchemaLibrary } = await import("../src/main/engine/tools/json-schema-library.ts");
  const { ARGUMENT_VALIDATION } = await import("../src/main/engine/tools/argument-validator.ts");
  const { Ajv2020, addFormats } = jsonSchemaLibrary();
  const ajv = new Ajv2020({ ...ARGUMENT_VALIDATION, code: { source: true, esm: true } });
  addFormats(ajv);
  const exports: Record<string, string> = {};
  for (const [id, schema] of Object.entries(parameters)) {
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    ajv.addSchema(rest, `lathe:builtin:${id}`);
    exports[`validate_${id.replace(/\W/g, "_")}`] = `lathe:builtin:${id}`;
  }
  // A CommonJS module: its default export is the function (module.exports).
  const { default: standaloneCode } = (await import("ajv/dist/standalone/index.js")) as unknown as {
    default: (ajv: unknown, refs: Record<string, string>) => string;
  };
  const validators = Object.keys(exports)
    .map((name, i) => `${JSON.stringify(Object.keys(parameters)[i])}: ${name}`)
    .join(", ");
  return [
    "// Generated by scripts/build-cli.ts from the built-ins' zod schemas (see builtin-catalog.ts).",
    standaloneCode(ajv, exports),
    `export const BUILTIN_PARAMETERS = ${JSON.stringify(parameters)};`,
    `export const BUILTIN_VALIDATORS = { ${validators} };`,
    "",
  ].join("\n");
}

const SCHEMA_CHECK_MODULE = path.join(ROOT, "src/main/engine/tools/json-schema-check.ts");

/**
 * json-schema-check.ts as the bundle carries it: ajv's standalone code for the JSON Schema
 * 2020-12 meta-schema, compiled with the options schema-check.ts checks schemas with.
 */
export async function schemaCheckModule(): Promise<string> {
  const { jsonSchemaLibrary } = await import("../src/main/engine/tools/json-schema-library.ts");
  const { META_SCHEMA, SCHEMA_CHECKING } = await import("../src/main/engine/tools/schema-check.ts");
  const { Ajv2020, addFormats } = jsonSchemaLibrary();
  const ajv = new Ajv2020({ ...SCHEMA_CHECKING, code: { source: true, esm: true } });
  addFormats(ajv);
  const { default: standaloneCode } = (await import("ajv/dist/standalone/index.js")) as unknown as {
    default: (ajv: unknown, refs: Record<string, string>) => string;
  };
  return [
    "// Generated by scripts/build-cli.ts from ajv's JSON Schema 2020-12 meta-schema (see json-schema-check.ts).",
    standaloneCode(ajv, { validate_json_schema: META_SCHEMA }),
    "export const JSON_SCHEMA_CHECK = validate_json_schema;",
    "",
  ].join("\n");
}

/** Fills builtin-catalog.ts and json-schema-check.ts (see those modules). */
function builtinCatalog(): RolldownPlugin {
  return {
    name: "lathe:builtin-catalog",
    async load(id) {
      const file = path.resolve(id);
      if (file === CATALOG_MODULE) return builtinCatalogModule();
      if (file === SCHEMA_CHECK_MODULE) return schemaCheckModule();
      return null;
    },
  };
}

const ENGINE_DOOR = path.join(ROOT, "src/main/engine/index.ts");
const ZOD = /[\\/]node_modules[\\/]zod[\\/]/;
/** Modules the engine and the spawner's child both load besides zod (see the "shared" chunk). */
const SHARED_MODULES = new Set(
  [
    "src/main/engine/session/partial-file.ts",
    "src/main/engine/spawner/program-lookup.ts",
    "src/main/engine/errors/error-message.ts",
    "src/main/engine/spawner/process-exists.ts",
    // The spawner makes its temp folder as the engine does (named after its owner, for the sweep).
    "src/main/engine/temp/owned-temp-dir.ts",
    "src/main/engine/temp/temp-folder-name.ts",
    "src/main/engine/temp/process-start.ts",
    // The spawner's sandbox side (spawner-confine.ts) finds a program's path as the engine does,
    // and walks the workspace for the git repositories a command planted (planted-repos.ts):
    // without these here, its first confined command loaded the whole engine chunk.
    "src/main/engine/sandbox/program-path.ts",
    "src/main/engine/capability/workspace-walker.ts",
    "src/main/engine/capability/canonical-path.ts",
    "src/main/engine/capability/folder-listings.ts",
    "src/main/engine/capability/path-limits.ts",
    "src/main/engine/git/git-config-file.ts",
    "src/main/engine/git/inert-git-config.ts",
    "src/main/engine/git/git-pointer.ts",
    // The same look runs around a confined MCP server's calls (the MCP chunk imports it).
    "src/main/engine/sandbox/planted-repos.ts",
    "src/main/engine/sandbox/file-identity.ts",
    // What the look reads besides: included config files, bare repositories, ignored folders.
    "src/main/engine/git/config-includes.ts",
    "src/main/engine/git/bare-repository.ts",
    "src/main/engine/sandbox/ignored-repositories.ts",
    // zod's light build with its English messages: the spawner's message schemas use it too.
    "src/main/engine/config/zod-mini.ts",
  ].map((file) => path.join(ROOT, file)),
);
/** The gitignore matcher the workspace walk uses, in the shared chunk with it. */
const IGNORE = /[\\/]node_modules[\\/]ignore[\\/]/;

/** Modules of the policy only a call that starts a process loads (see the "shell-policy" chunk). */
const SHELL_POLICY =
  /[\\/]src[\\/]main[\\/]engine[\\/]policy[\\/](shell[\\/]|command-disk-reason\.ts$|option-like-file-names\.ts$|no-dash-file\.ts$|repository-programs\.ts$|special-file-links\.ts$|version-manager-shims\.ts$|workspace-path-programs\.ts$|known-script-runners\.ts$|nodenv-shim\.ts$)/;

/** Whether a module goes into the "shell-policy" chunk (see the chunk groups below). */
function isShellPolicy(id: string): boolean {
  return SHELL_POLICY.test(path.resolve(id));
}

/** Whether a module goes into the "shared" chunk (see the chunk groups below). */
function isShared(id: string): boolean {
  return ZOD.test(id) || IGNORE.test(id) || SHARED_MODULES.has(path.resolve(id));
}

/**
 * Which modules go into the one `engine` chunk: everything the engine's door (index.ts) imports
 * statically, save what the CLI's entry or the offload worker load without it. A command that
 * opens an engine (`lathe tools`, `lathe call`) then loads that chunk and the entry's few rather
 * than a score of small shared ones: each module Node loads costs about half a millisecond,
 * whatever its size. Parts only some commands use (the agent, MCP clients, `lathe serve`, the
 * shell parser, HTML conversion) stay in chunks of their own, loaded on first use. The set is
 * filled when the module graph is known (buildEnd), before chunks are made.
 */
function engineChunk(entries: readonly string[]): { plugin: RolldownPlugin; has: (id: string) => boolean } {
  const members = new Set<string>();
  const plugin: RolldownPlugin = {
    name: "lathe:engine-chunk",
    buildEnd() {
      const reach = (from: string): Set<string> => {
        const seen = new Set<string>();
        const stack = [from];
        while (stack.length > 0) {
          const id = stack.pop() as string;
          if (seen.has(id)) continue;
          seen.add(id);
          stack.push(...(this.getModuleInfo(id)?.importedIds ?? []));
        }
        return seen;
      };
      const elsewhere = new Set(entries.flatMap((entry) => [...reach(entry)]));
      for (const id of reach(ENGINE_DOOR))
        if (!elsewhere.has(id) && !isExternal(id) && !isShared(id)) members.add(id);
    },
  };
  return { plugin, has: (id) => members.has(id) };
}

function isExternal(id: string): boolean {
  if (id.startsWith("node:")) return true;
  return EXTERNAL_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`));
}

/** Build the CLI bundle into `outDir` (default out/cli); resolves to what build-info.json records. */
export async function buildCli(
  outDir = path.join(ROOT, "out", "cli"),
  entries: Record<string, string> = {
    lathe: "src/main/cli/main.ts",
    // The offload pool's worker threads load this file beside the chunk that holds offload.ts.
    "offload-worker": "src/main/engine/offload/offload-worker.ts",
    // The process spawner's child runs this file, beside the chunk that holds process-spawner.ts.
    "spawner-main": "src/main/engine/spawner/spawner-main.ts",
    // The sandbox library's wrappers import this file in the spawner (sandbox-library-hooks.ts).
    "sandbox-library-lookups": "src/main/engine/sandbox/sandbox-library-lookups.ts",
    // The launcher loads this first for the quick commands, to hand them to a running daemon.
    "daemon-client": "src/main/cli/daemon/daemon-client.ts",
  },
): Promise<BuildInfo> {
  const { build, RolldownMagicString } = await import("rolldown");
  const builtAt = Date.now();
  const inputs = Object.fromEntries(
    Object.entries(entries).map(([name, file]) => [name, path.join(ROOT, file)]),
  );
  const engine = engineChunk(Object.values(inputs));
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const output = await build({
    cwd: ROOT,
    input: inputs,
    platform: "node",
    // The entries' exports are only main (lathe.js) and the worker's message handler.
    preserveEntrySignatures: "allow-extension",
    external: isExternal,
    plugins: [builtinCatalog(), builtinsWithoutFacades(RolldownMagicString), engine.plugin],
    logLevel: "warn",
    onLog(level, log, handler) {
      // A dynamic import of a module that is also imported statically stays in its chunk: that
      // is expected where a heavy module is shared; any other warning is shown.
      if (log.code === "INEFFECTIVE_DYNAMIC_IMPORT") return;
      handler(level, log);
    },
    output: {
      dir: outDir,
      format: "esm",
      sourcemap: true,
      // Every chunk all ASCII (text escaped as \uXXXX, doc comments dropped: the source maps lead
      // to them): Node then decodes and V8 scans each file as one-byte text, and there is less
      // of it to read; a few milliseconds at every start.
      charset: "ascii",
      comments: { legal: true, annotation: true, jsdoc: false },
      // Chunks sit beside the entries, so offload.ts finds offload-worker.js beside itself (and
      // process-spawner.ts spawner-main.js).
      entryFileNames: "[name].js",
      chunkFileNames: "[name]-[hash].js",
      // Only the members themselves: what the entries load is import-closed and stays out of the
      // group, so the chunks never import each other in a circle.
      codeSplitting: {
        groups: [
          { name: "engine", test: engine.has, includeDependenciesRecursively: false },
          // What the engine and the spawner's child both load cannot sit in the engine chunk:
          // zod (their protocol), the sidecar files' naming (partial-file.ts, for the pty output
          // the spawner writes), finding a program on PATH (program-lookup.ts, for MCP servers)
          // errorMessage and processExists, the owned temp folders, and what the spawner's sandbox
          // side uses (program paths, the workspace walk, git configs), together in one chunk, so
          // a start loads one file for them and the spawner never loads the engine's.
          { name: "shared", test: isShared },
          // The shell tables and disk checks the policy loads for the first call that starts a
          // process (call-policy.ts), together: one file to load then, not half a dozen.
          { name: "shell-policy", test: isShellPolicy },
        ],
      },
    },
  });
  const sources = new Set<string>(EXTRA_INPUTS);
  for (const item of output.output) {
    if (item.type !== "chunk") continue;
    for (const id of item.moduleIds) {
      if (!path.isAbsolute(id)) continue;
      const relative = path.relative(ROOT, id);
      if (!relative.startsWith("..") && !relative.split(path.sep).includes("node_modules"))
        sources.add(relative.split(path.sep).join("/"));
    }
  }
  // Only files that exist: one that is missing later (deleted, renamed) then means stale.
  const present = [...sources].filter((file) => existsSync(path.join(ROOT, file)));
  const info: BuildInfo = { format: 1, builtAt, inputs: present.sort() };
  await writeFile(path.join(outDir, "build-info.json"), `${JSON.stringify(info, null, 1)}\n`);
  return info;
}

/** Whether the bundler can be loaded (an install without devDependencies has none). */
async function bundlerInstalled(): Promise<boolean> {
  try {
    await import("rolldown");
    return true;
  } catch {
    return false;
  }
}

// `node scripts/build-cli.ts [OUT_DIR] [--if-possible]`. With --if-possible (npm's `prepare`), an
// install without the bundler skips the build with a notice: `lathe` then runs from the sources.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outArg = args.find((a) => !a.startsWith("--"));
  if (args.includes("--if-possible") && !(await bundlerInstalled())) {
    console.log(
      "lathe: rolldown is not installed, so the CLI bundle was not built; `lathe` runs from its sources.",
    );
  } else {
    const started = performance.now();
    const info = await buildCli(outArg ? path.resolve(outArg) : undefined);
    console.log(
      `built the lathe CLI bundle from ${info.inputs.length} files in ${Math.round(performance.now() - started)} ms`,
    );
  }
}
