import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { TrustStore } from "../policy/trust-store.ts";
import type { EntryChecker } from "./entry-check.ts";
import { pluginIsolateOptions } from "./plugin-isolate-options.ts";
import { runtimeShape } from "./isolate-bootstrap.ts";
import { IsolateHost } from "./isolate-host.ts";
import {
  defaultBundledDir,
  discoverFolders,
  globalToolsDir,
  type PluginFolder,
  type PluginLayer,
} from "./plugin-discovery.ts";
import { hashPluginSource } from "./plugin-hash.ts";
import type { PluginLoadError } from "./plugin-load-error.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import { readPluginSource, type PluginSource } from "./plugin-source.ts";
import { checkPluginSource } from "./plugin-source-check.ts";
import { pinFix, pinRefusal } from "./project-plugins.ts";
import { undeclaredUses } from "./undeclared-member.ts";
import { knownFormats } from "../tools/json-schema-library.ts";
import { uncheckedFormats } from "./unchecked-formats.ts";
import { didYouMean } from "./did-you-mean.ts";

/** One problem `lathe plugin check` found: the file, where in it, what is wrong, how to fix it. */
interface PluginCheckProblem {
  file: string;
  where: string;
  problem: string;
  fix: string;
}

/** What `lathe plugin check <folder>` reports. */
export interface PluginCheckReport {
  dir: string;
  /** No problems: the plugin loads, and its module starts. */
  ok: boolean;
  /** The tools directory the folder is in; undefined when it is in none (Lathe would not load it). */
  layer?: PluginLayer;
  tool?: { name: string; version: string };
  problems: PluginCheckProblem[];
  /** What a plugin author should know: how this folder reloads, what it shadows, what it logged. */
  notes: string[];
}

interface PluginCheckOptions {
  latheHome: string;
  /** The bundled plugins (default: Lathe's `plugins/`), for what a plugin would shadow. */
  bundledDir?: string;
}

function fromLoadError(err: PluginLoadError): PluginCheckProblem {
  return { file: err.file, where: err.field, problem: err.problem, fix: err.fix };
}

async function sameDir(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([realpath(a).catch(() => a), realpath(b).catch(() => b)]);
  return ra === rb;
}

/** The layer a folder's tools directory belongs to, and the project root for the project layer. */
async function placeOf(
  dir: string,
  options: PluginCheckOptions,
): Promise<{ layer?: PluginLayer; root?: string }> {
  const parent = path.dirname(dir);
  if (await sameDir(parent, globalToolsDir(options.latheHome))) return { layer: "global" };
  if (await sameDir(parent, options.bundledDir ?? defaultBundledDir())) return { layer: "bundled" };
  if (path.basename(parent) === "tools" && path.basename(path.dirname(parent)) === ".lathe") {
    const root = path.dirname(path.dirname(parent));
    return { layer: "project", root: await realpath(root).catch(() => root) };
  }
  return {};
}

/** The tool name a plugin folder declares, without validating the rest. */
async function declaredName(dir: string): Promise<string | undefined> {
  // The manifest parser (YAML, JSON Schema, semver) loads with the first folder checked: an
  // engine that starts from cached manifests never needs it.
  const { parseYamlDocument } = await import("./plugin-manifest.ts");
  try {
    const doc = parseYamlDocument(await readFile(path.join(dir, "tool.yaml"), "utf8"));
    const name = doc.errors.length === 0 ? doc.get("name") : undefined;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** A project plugin loads only when the project is trusted and this content is pinned. */
function pinProblem(
  folder: PluginFolder,
  source: PluginSource,
  root: string,
  latheHome: string,
): PluginCheckProblem | undefined {
  const trust = new TrustStore(latheHome);
  const fix = pinFix(folder, root);
  if (!trust.isTrusted(root)) {
    return {
      file: folder.dir,
      where: "the project",
      problem: `is not trusted, so its plugins do not load`,
      fix,
    };
  }
  const reason = pinRefusal(folder, hashPluginSource(source), trust.pins(root), source.entryName);
  return reason === undefined ? undefined : { file: folder.dir, where: "the pin", problem: reason, fix };
}

/** `WebAssembly` used in a plugin that did not declare `wasm: true` (where it is undefined). */
function wasmProblems(source: PluginSource, manifest: PluginManifest): PluginCheckProblem[] {
  if (manifest.wasm || source.entry.text === undefined) return [];
  const lines = source.entry.text.split("\n");
  for (const [index, line] of lines.entries()) {
    const code = line.trim();
    if (code.startsWith("//") || code.startsWith("*") || !/\bWebAssembly\b/.test(code)) continue;
    return [
      {
        file: source.entry.file,
        where: `line ${index + 1}`,
        problem: "uses WebAssembly, which a plugin gets only when tool.yaml declares `wasm: true`",
        fix: "add `wasm: true` to tool.yaml (every memory then needs a maximum; see docs/plugins.md, Limits)",
      },
    ];
  }
  return [];
}

/**
 * `runtime` members the entry uses by name (`runtime.shell.run(…)`) that tool.yaml does not
 * grant: absent when it runs, so each such use fails. The first line of each member is reported.
 */
function memberProblems(source: PluginSource, manifest: PluginManifest): PluginCheckProblem[] {
  if (source.entry.text === undefined) return [];
  const shape = runtimeShape(manifest.requires);
  const found = new Map<string, PluginCheckProblem>();
  for (const [index, line] of source.entry.text.split("\n").entries()) {
    const code = line.trim();
    if (code.startsWith("//") || code.startsWith("*")) continue;
    for (const use of undeclaredUses(code, shape)) {
      if (found.has(use.member)) continue;
      found.set(use.member, {
        file: source.entry.file,
        where: `line ${index + 1}`,
        problem: `uses ${use.member}, which a plugin gets only when tool.yaml declares ${use.field}: it is undefined here, so the call fails`,
        fix: `declare it in tool.yaml (${use.example}), or stop using ${use.member}`,
      });
    }
  }
  return [...found.values()];
}

/** Start the plugin's isolate with the runtime its `requires` declares, as its first call would. */
async function loadProblems(
  source: PluginSource,
  manifest: PluginManifest,
  notes: string[],
): Promise<PluginCheckProblem[]> {
  const logged: string[] = [];
  const host = new IsolateHost(
    pluginIsolateOptions(manifest, source, (line, from) => {
      if (from === "plugin") logged.push(line);
    }),
  );
  try {
    await host.load();
    return [];
  } catch (err) {
    return [
      {
        file: source.entry.file,
        where: "the module's top-level code",
        problem: `fails when the isolate starts: ${(err as Error).message}`,
        fix: "keep top-level code to declarations; do the work inside `execute`, which gets `runtime`",
      },
    ];
  } finally {
    host.dispose();
    for (const line of logged) notes.push(`${source.entryName} logged while starting: ${line}`);
  }
}

function meant(format: string, known: ReadonlySet<string>): string {
  const near = didYouMean(format, [...known]);
  return near === undefined ? "" : ` (did you mean "${near}"?)`;
}

/**
 * A format a schema names that Lathe's validator does not know is legal, and not checked: said,
 * so that the author does not count on it ("input_schema.properties.id.format is "x-ticket-id", …").
 */
function formatNotes(manifest: PluginManifest): string[] {
  const known = knownFormats();
  const schemas: [string, unknown][] = [
    ["input_schema", manifest.inputSchema],
    ["output_schema", manifest.outputSchema],
  ];
  return schemas.flatMap(([field, schema]) =>
    uncheckedFormats(schema, known).map(
      ({ format, path: at }) =>
        `${field}.${at} is ${JSON.stringify(format)}, a format Lathe does not know: values there are not checked against it${meant(format, known)}.`,
    ),
  );
}

/** Other folders of the same tools directory declaring the same tool name: only one would load. */
async function twinProblems(folder: PluginFolder, name: string): Promise<PluginCheckProblem[]> {
  const siblings = await discoverFolders({ layer: folder.layer, dir: path.dirname(folder.dir) });
  const twins: PluginCheckProblem[] = [];
  for (const sibling of siblings) {
    if (sibling.name === folder.name || (await declaredName(sibling.dir)) !== name) continue;
    twins.push({
      file: path.join(folder.dir, "tool.yaml"),
      where: 'field "name"',
      problem: `is "${name}", which ${sibling.dir} declares too; only one tool of a name loads per tools directory`,
      fix: "give one of them another name",
    });
  }
  return twins;
}

/** The layers a plugin of this layer shadows, and their plugins of the same tool name. */
async function shadowNotes(layer: PluginLayer, name: string, options: PluginCheckOptions): Promise<string[]> {
  const earlier: { layer: PluginLayer; dir: string }[] = [];
  if (layer !== "bundled") earlier.push({ layer: "bundled", dir: options.bundledDir ?? defaultBundledDir() });
  if (layer === "project") earlier.push({ layer: "global", dir: globalToolsDir(options.latheHome) });
  const notes: string[] = [];
  for (const tools of earlier) {
    for (const other of await discoverFolders(tools).catch(() => [])) {
      if ((await declaredName(other.dir)) === name)
        notes.push(`It shadows the ${tools.layer} plugin ${other.dir} of the same name.`);
    }
  }
  return notes;
}

function placeNote(layer: PluginLayer | undefined, dir: string, latheHome: string, root?: string): string {
  const globalDir = globalToolsDir(latheHome);
  switch (layer) {
    case "global":
      return `A global plugin: no pin. The app reloads it between two turns after every change, and each \`lathe call\` reads it afresh; \`lathe call <tool> '<args>' --verbose\` prints its logs.`;
    case "project":
      return `A project plugin: pinned when you trust ${root}, so after every edit it stays disabled until you run \`lathe trust --root ${root}\` again. Develop it in ${path.join(globalDir, path.basename(dir))} (reloaded on change, no pin) and move it here when it is done.`;
    case "bundled":
      return "A bundled plugin: it ships with Lathe.";
    default:
      return `This folder is in no tools directory, so Lathe does not load it: put it (or a symlink to it) in ${globalDir}/ (reloaded on change, no pin) or in <project>/.lathe/tools/ (pinned by \`lathe trust\`).`;
  }
}

/**
 * Validate a plugin folder exactly as the loader would — tool.yaml, TOOL.md, the entry module
 * (syntax, imports, `execute`), schemas, host entries, shell requirements, locked names, and for
 * a project plugin its trust and pin — then go one step further than loading: start its isolate
 * with the runtime it declares (top-level code runs, `execute` must be a function), look for
 * WebAssembly without `wasm: true`, and for another folder of the same tools directory with the
 * same tool name. Every problem is reported, each with its fix. Throws when `dir` is no folder.
 */
export async function checkPluginFolder(
  dir: string,
  options: PluginCheckOptions,
): Promise<PluginCheckReport> {
  const resolved = path.resolve(dir);
  const info = await stat(resolved).catch(() => undefined);
  if (!info?.isDirectory()) {
    const what = info === undefined ? "does not exist" : "is a file, not a folder";
    throw new Error(
      `${resolved} ${what}. Pass the plugin's folder (the one holding tool.yaml, TOOL.md and index.js).`,
    );
  }
  const place = await placeOf(resolved, options);
  const folder: PluginFolder = {
    layer: place.layer ?? "global",
    name: path.basename(resolved),
    dir: resolved,
  };
  const source = await readPluginSource(folder);
  // Loaded when asked for, not at the top: engine/index.ts re-exports this file, and
  // entry-check.ts loads isolated-vm (a native addon) that only an entry check needs.
  let checker: EntryChecker | undefined;
  let checked;
  try {
    checked = await checkPluginSource(
      source,
      async () => (checker ??= new (await import("./entry-check.ts")).EntryChecker()),
    );
  } finally {
    checker?.dispose();
  }
  const problems = checked.problems.map(fromLoadError);
  const notes = [placeNote(place.layer, resolved, options.latheHome, place.root)];
  if (place.layer === "project" && place.root !== undefined) {
    const pin = pinProblem(folder, source, place.root, options.latheHome);
    if (pin) problems.push(pin);
  }
  const { manifest } = checked;
  if (manifest) {
    notes.push(...formatNotes(manifest));
    problems.push(...(await loadProblems(source, manifest, notes)));
    problems.push(...wasmProblems(source, manifest));
    problems.push(...memberProblems(source, manifest));
    if (place.layer !== undefined) {
      problems.push(...(await twinProblems(folder, manifest.name)));
      notes.push(...(await shadowNotes(place.layer, manifest.name, options)));
    }
  }
  return {
    dir: resolved,
    ok: problems.length === 0,
    ...(place.layer !== undefined ? { layer: place.layer } : {}),
    ...(manifest ? { tool: { name: manifest.name, version: manifest.version } } : {}),
    problems,
    notes,
  };
}
