import semver from "semver";
import type { Document } from "yaml";
import { z } from "zod";
import { assertPatternsCompile } from "../capability/path-scope.ts";
import { assertCompilable } from "../tools/argument-validator.ts";
import { checkOutputSchema } from "./plugin-output.ts";
import type { JsonSchema, ToolKind } from "../tools/contract.ts";
import { RequirementSetSchema, type RequirementSet } from "../tools/requirement-set.ts";
import { HostPatternError, parseHostPattern } from "../capability/host-pattern.ts";
import { LOCKED_TOOL_IDS } from "../tools/locked-tools.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { PluginLoadError } from "./plugin-load-error.ts";
import { DEFAULT_ENTRY, isPlainEntry, parseYamlDocument } from "./plugin-source.ts";
import { strictSchema } from "./strict-schema.ts";

/** A validated tool.yaml, with defaults filled in. */
export interface PluginManifest {
  name: string;
  version: string;
  description: string;
  kind: ToolKind;
  /** The input schema as published: every object schema without `additionalProperties` made strict. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  requires: RequirementSet;
  readOnly: boolean;
  gated: boolean;
  timeoutMs: number;
  defer: boolean;
  entry: string;
  memoryMb: number;
  /** Whether the isolate gets (a bounded) WebAssembly; see wasm-guard.ts. */
  wasm: boolean;
  /** CPU budget of a call's synchronous stretch (never more than timeoutMs). */
  cpuMs: number;
}

const KINDS = ["read", "edit", "search", "execute", "fetch", "think", "other"] as const;
const TOOL_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const REQUIRES_KEYS =
  "fs: {read: [...], write: [...]}, net: {hosts: [...]}, shell: [{cmd, args}] and capabilities";

/** How to fix each field, quoted in every message about it. */
const FIXES: Record<string, string> = {
  name: 'use 1-64 letters, digits, "_" or "-", starting with a letter, e.g. `name: word_count` (it is the tool id the model calls)',
  version: "write a semantic version MAJOR.MINOR.PATCH, e.g. `version: 1.0.0`",
  description:
    "write one or two sentences saying what the tool does (when to use it and examples go in TOOL.md)",
  kind: `use one of ${KINDS.join(", ")} (it picks the icon hosts show), or leave it out`,
  input_schema:
    "give a JSON Schema with `type: object`, e.g. `input_schema: {type: object, properties: {path: {type: string}}, required: [path]}`",
  output_schema: "give a JSON Schema describing what execute returns, or leave it out",
  requires: `declare only ${REQUIRES_KEYS}; see docs/plugins.md`,
  readOnly: "write `readOnly: true` when the tool never changes anything, else `readOnly: false`",
  gated: "write `gated: true` to put every call through approval, or `gated: false`",
  timeoutMs: `give whole milliseconds from ${PLUGIN_LIMITS.minTimeoutMs} to ${PLUGIN_LIMITS.maxTimeoutMs}, e.g. \`timeoutMs: 30000\``,
  defer: "write `defer: true` to keep the schema out of the model's first context, or `defer: false`",
  wasm: "write `wasm: true` when the plugin runs WebAssembly (its memories then need a maximum), or leave it out",
  entry: `name a .js or .mjs file inside the plugin folder, e.g. \`entry: ${DEFAULT_ENTRY}\``,
  limits: `write \`limits: {memoryMb: 32, cpuMs: 2000}\` (memoryMb: whole MB from ${PLUGIN_LIMITS.minMemoryMb} to ${PLUGIN_LIMITS.memoryMb}; cpuMs: from ${PLUGIN_LIMITS.minTimeoutMs} to ${PLUGIN_LIMITS.maxTimeoutMs})`,
};

/** Names authors reach for, and the field they mean. */
const ALIASES: Record<string, string> = {
  id: "name",
  inputSchema: "input_schema",
  parameters: "input_schema",
  schema: "input_schema",
  outputSchema: "output_schema",
  requirements: "requires",
  require: "requires",
  permissions: "requires",
  read_only: "readOnly",
  readonly: "readOnly",
  timeout: "timeoutMs",
  timeout_ms: "timeoutMs",
  main: "entry",
  deferred: "defer",
  webassembly: "wasm",
  WebAssembly: "wasm",
  memoryMb: "limits",
  memory: "limits",
};

const REQUIRES_ALIASES: Record<string, string> = {
  network: "net",
  http: "net",
  hosts: "net",
  files: "fs",
  filesystem: "fs",
  commands: "shell",
  exec: "shell",
};

const ManifestShape = z.strictObject({
  name: z.string(),
  version: z.string(),
  description: z.string(),
  kind: z.enum(KINDS).optional(),
  input_schema: z.record(z.string(), z.unknown()),
  output_schema: z.record(z.string(), z.unknown()).optional(),
  requires: z.unknown().optional(),
  readOnly: z.boolean().optional(),
  gated: z.boolean().optional(),
  timeoutMs: z.int().min(PLUGIN_LIMITS.minTimeoutMs).max(PLUGIN_LIMITS.maxTimeoutMs).optional(),
  defer: z.boolean().optional(),
  wasm: z.boolean().optional(),
  entry: z.string().optional(),
  limits: z
    .strictObject({
      memoryMb: z.int().min(PLUGIN_LIMITS.minMemoryMb).max(PLUGIN_LIMITS.memoryMb).optional(),
      cpuMs: z.int().min(PLUGIN_LIMITS.minTimeoutMs).max(PLUGIN_LIMITS.maxTimeoutMs).optional(),
    })
    .optional(),
});

function fieldName(pathParts: readonly PropertyKey[]): string {
  return pathParts.map(String).join(".");
}

function unknownKeyProblem(
  file: string,
  where: string,
  key: string,
  aliases: Record<string, string>,
  fix: string,
): PluginLoadError {
  const meant = aliases[key];
  const hint = meant ? ` (did you mean "${meant}"?)` : "";
  return new PluginLoadError(
    file,
    `field "${where === "" ? key : `${where}.${key}`}"`,
    `is not a known field${hint}`,
    fix,
  );
}

function zodProblem(file: string, issue: z.core.$ZodIssue): PluginLoadError {
  if (issue.code === "unrecognized_keys") {
    const where = fieldName(issue.path);
    const known =
      where === ""
        ? `known fields are ${Object.keys(FIXES).join(", ")}`
        : FIXES[where.split(".")[0] as string];
    return unknownKeyProblem(
      file,
      where,
      issue.keys[0] as string,
      ALIASES,
      `remove it or rename it; ${known}`,
    );
  }
  const field = fieldName(issue.path);
  const top = String(issue.path[0] ?? "");
  const missing = issue.code === "invalid_type" && issue.message.includes("received undefined");
  const problem = missing ? "is missing" : `is invalid (${issue.message.replace(/^Invalid input: /, "")})`;
  return new PluginLoadError(file, `field "${field}"`, problem, FIXES[top] ?? "see docs/plugins.md");
}

function parseYaml(file: string, doc: Document.Parsed): unknown {
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    const where = pos ? `line ${pos.line}, column ${pos.col}` : "the YAML";
    throw new PluginLoadError(
      file,
      where,
      `is not valid YAML (${(error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")})`,
      "correct the YAML syntax: indent with spaces, one `key: value` per line, quote strings that contain `: ` or start with `{`, `[`, `*` or `&`",
    );
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    throw new PluginLoadError(
      file,
      "the document",
      `cannot be read (${(err as Error).message})`,
      "write plain YAML without anchors and aliases (`&name`, `*name`)",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PluginLoadError(
      file,
      "the document",
      value === null || value === undefined ? "is empty" : "is not a mapping of fields",
      "write tool.yaml as `key: value` lines with at least name, version, description and input_schema (see docs/plugins.md)",
    );
  }
  return value;
}

function checkSchema(file: string, field: "input_schema", schema: JsonSchema): void {
  try {
    assertCompilable(schema);
  } catch (err) {
    throw new PluginLoadError(
      file,
      `field "${field}"`,
      `is not a valid JSON Schema (${(err as Error).message})`,
      FIXES[field] as string,
      {
        cause: err,
      },
    );
  }
}

function parseRequires(file: string, raw: unknown): RequirementSet {
  if (raw === undefined || raw === null) return {};
  const parsed = RequirementSetSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    if (issue.code === "unrecognized_keys") {
      const where = fieldName(["requires", ...issue.path]);
      const aliases = issue.path.length === 0 ? REQUIRES_ALIASES : {};
      throw unknownKeyProblem(file, where, issue.keys[0] as string, aliases, `remove it; ${FIXES.requires}`);
    }
    throw zodProblem(file, { ...issue, path: ["requires", ...issue.path] });
  }
  for (const entry of parsed.data.net?.hosts ?? []) {
    try {
      parseHostPattern(entry);
    } catch (err) {
      if (!(err instanceof HostPatternError)) throw err;
      throw new PluginLoadError(
        file,
        'field "requires.net.hosts"',
        `has a bad entry: ${err.message.replace(/\. Write .*$/, "")}`,
        'write a host with an optional port, e.g. "api.example.com", "api.example.com:8443", "*.example.com", "127.0.0.1:11434" or "[::1]:8080"',
      );
    }
  }
  for (const [index, command] of (parsed.data.shell ?? []).entries()) {
    if (command.cmd === "*") {
      throw new PluginLoadError(
        file,
        `field "requires.shell[${index}].cmd"`,
        'is "*", which would let the plugin run any program outside its isolate',
        'name each command the plugin runs, e.g. `{cmd: git, args: [log, {prefix: "--max-count="}]}`',
      );
    }
  }
  for (const access of ["read", "write"] as const) {
    try {
      assertPatternsCompile(parsed.data.fs?.[access]);
    } catch (err) {
      throw new PluginLoadError(
        file,
        `field "requires.fs.${access}"`,
        `has a bad path pattern (${(err as Error).message})`,
        'start patterns with {workspace}, {session}, {user-data} or {ad-hoc}, or make them relative to the workspace, e.g. "{workspace}/**"',
        { cause: err },
      );
    }
  }
  return parsed.data;
}

/**
 * Validate a plugin's tool.yaml. Throws PluginLoadError naming the file, the field and the fix
 * for the first problem found: YAML syntax, an unknown or mistyped field, a bad tool id, a
 * version that is not semver, an invalid JSON Schema, or a malformed `requires`.
 */
export function parseManifest(file: string, text: string | Document.Parsed): PluginManifest {
  const raw = parseYaml(file, typeof text === "string" ? parseYamlDocument(text) : text);
  const shaped = ManifestShape.safeParse(raw);
  if (!shaped.success) throw zodProblem(file, shaped.error.issues[0] as z.core.$ZodIssue);
  const m = shaped.data;

  if (!TOOL_ID.test(m.name))
    throw new PluginLoadError(
      file,
      'field "name"',
      `is "${m.name}", which is not a valid tool id`,
      FIXES.name as string,
    );
  if (LOCKED_TOOL_IDS.has(m.name)) {
    throw new PluginLoadError(
      file,
      'field "name"',
      `is "${m.name}", one of Lathe's locked built-in tools, which a plugin cannot replace`,
      `give the plugin a name of its own, e.g. \`name: my_${m.name}\``,
    );
  }
  if (semver.valid(m.version) === null) {
    throw new PluginLoadError(
      file,
      'field "version"',
      `is "${m.version}", which is not a semantic version`,
      FIXES.version as string,
    );
  }
  if (m.description.trim() === "")
    throw new PluginLoadError(file, 'field "description"', "is empty", FIXES.description as string);
  if (m.input_schema.type !== "object") {
    throw new PluginLoadError(
      file,
      'field "input_schema.type"',
      `is ${JSON.stringify(m.input_schema.type)}, but a tool takes an object of named arguments`,
      FIXES.input_schema as string,
    );
  }
  const inputSchema = strictSchema(m.input_schema);
  checkSchema(file, "input_schema", inputSchema);
  if (m.output_schema) {
    const problem = checkOutputSchema(m.output_schema);
    if (problem !== undefined) {
      throw new PluginLoadError(
        file,
        'field "output_schema"',
        `is not a valid JSON Schema (${problem})`,
        FIXES.output_schema as string,
      );
    }
  }
  const requires = parseRequires(file, m.requires);
  const entry = m.entry ?? DEFAULT_ENTRY;
  if (!isPlainEntry(entry)) {
    throw new PluginLoadError(
      file,
      'field "entry"',
      `is "${entry}", which is not a .js file inside the plugin folder`,
      FIXES.entry as string,
    );
  }
  const readOnly = m.readOnly ?? false;
  const timeoutMs = m.timeoutMs ?? PLUGIN_LIMITS.timeoutMs;
  return {
    name: m.name,
    version: m.version,
    description: m.description.trim(),
    kind: m.kind ?? "other",
    inputSchema,
    ...(m.output_schema ? { outputSchema: m.output_schema } : {}),
    requires,
    readOnly,
    gated: m.gated ?? !readOnly,
    timeoutMs,
    defer: m.defer ?? false,
    entry,
    memoryMb: m.limits?.memoryMb ?? PLUGIN_LIMITS.memoryMb,
    wasm: m.wasm ?? false,
    cpuMs: Math.min(m.limits?.cpuMs ?? timeoutMs, timeoutMs),
  };
}
