import path from "node:path";
import semver from "semver";
import { parseDocument, type Document, type YAMLError } from "yaml";
import { z } from "zod";
import { assertPatternsCompile } from "../capability/path-scope.ts";
import { assertCompilable } from "../tools/argument-validator.ts";
import { checkOutputSchema } from "./plugin-output-schema.ts";
import type { JsonSchema, ToolKind } from "../tools/contract.ts";
import { RequirementSetSchema, type RequirementSet } from "../tools/requirement-set.ts";
import { HostPatternError, parseHostPattern } from "../capability/host-pattern.ts";
import { SYSTEM_BIN_DIRS } from "../policy/shell-requirements.ts";
import { lockedLookalike } from "../tools/locked-tools.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { didYouMean } from "./did-you-mean.ts";
import { PluginLoadError } from "./plugin-load-error.ts";
import { DEFAULT_ENTRY, isPlainEntry } from "./plugin-source.ts";
import { schemaTypos } from "./schema-typos.ts";
import { strictSchema } from "./strict-schema.ts";
import { TOOL_ID } from "../tools/tool-id.ts";
import { jsonShapeProblem, MAX_SCHEMA_DEPTH } from "../tools/json-shape.ts";
import { shapeFault } from "../tools/schema-check.ts";
import { nestedTooDeep, yamlErrorPlace, yamlTooDeep } from "../config/yaml-nesting.ts";

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

const ManifestShape = z.lazy(() =>
  z.strictObject({
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
  }),
);
type ManifestFields = z.output<typeof ManifestShape>;

/** The keys each nested mapping of tool.yaml knows, for "did you mean" (read from the schemas when first asked). */
function knownKeys(section: string): readonly string[] | undefined {
  if (section === "") return Object.keys(ManifestShape.unwrap().shape);
  if (section === "requires") return Object.keys(RequirementSetSchema.shape);
  return KNOWN_NESTED_KEYS[section];
}

const KNOWN_NESTED_KEYS: Record<string, readonly string[]> = {
  limits: ["memoryMb", "cpuMs"],
  "requires.fs": ["read", "write"],
  "requires.net": ["hosts"],
};

/** Shell syntax a `cmd` never needs: runtime.shell.run starts one program, without a shell. */
const SHELL_SYNTAX = /[|&;<>()$`"'*?[\]{}!~]/;

/** Parse tool.yaml as the manifest parser wants it (unique keys, error positions). */
export function parseYamlDocument(text: string): Document.Parsed {
  return parseDocument(text, { uniqueKeys: true, prettyErrors: true });
}

function fieldName(pathParts: readonly PropertyKey[]): string {
  return pathParts.map(String).join(".");
}

/**
 * A key no mapping of tool.yaml knows: "did you mean" from the usual slips (`aliases`), else the
 * nearest known key of that mapping; `known` says what the mapping holds.
 */
function unknownKeyProblem(
  file: string,
  where: string,
  key: string,
  aliases: Record<string, string>,
  known: string,
): PluginLoadError {
  const section = where.replace(/\.\d+/g, "");
  const candidates = section === "requires.shell" ? ["cmd", "args"] : (knownKeys(section) ?? []);
  const meant = aliases[key] ?? didYouMean(key, candidates);
  return new PluginLoadError(
    file,
    `field "${where === "" ? key : `${where}.${key}`}"`,
    `is not a known field${meant ? ` (did you mean "${meant}"?)` : ""}`,
    `${meant ? `rename it to "${meant}"` : "remove it or rename it"}; ${known}`,
  );
}

function zodProblems(file: string, issue: z.core.$ZodIssue): PluginLoadError[] {
  if (issue.code === "unrecognized_keys") {
    const where = fieldName(issue.path);
    const known =
      where === ""
        ? `known fields are ${Object.keys(FIXES).join(", ")}`
        : (FIXES[where.split(".")[0] as string] ?? "see docs/plugins.md");
    return issue.keys.map((key) => unknownKeyProblem(file, where, key, where === "" ? ALIASES : {}, known));
  }
  const field = fieldName(issue.path);
  const top = String(issue.path[0] ?? "");
  const missing = issue.code === "invalid_type" && issue.message.includes("received undefined");
  const problem = missing ? "is missing" : `is invalid (${issue.message.replace(/^Invalid input: /, "")})`;
  return [new PluginLoadError(file, `field "${field}"`, problem, FIXES[top] ?? "see docs/plugins.md")];
}

/** What to do about a tool.yaml nested past MAX_SCHEMA_DEPTH. */
const FLATTEN = `keep its schemas within ${MAX_SCHEMA_DEPTH} levels: describe a part that repeats once, under \`$defs\`, and point to it with \`$ref\``;

function yamlProblems(file: string, doc: Document.Parsed): PluginLoadError[] {
  const at = (error: YAMLError): string => yamlErrorPlace(error) ?? "the YAML";
  const exhausted = yamlTooDeep(doc.errors);
  if (exhausted !== undefined)
    return [
      new PluginLoadError(
        file,
        at(exhausted),
        nestedTooDeep("a tool.yaml's schemas", MAX_SCHEMA_DEPTH),
        FLATTEN,
      ),
    ];
  return doc.errors.map(
    (error) =>
      new PluginLoadError(
        file,
        at(error),
        `is not valid YAML (${(error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")})`,
        "correct the YAML syntax: indent with spaces, one `key: value` per line, quote strings that contain `: ` or start with `{`, `[`, `*` or `&`",
      ),
  );
}

/** The schemas of a tool.yaml nested deeper than MAX_SCHEMA_DEPTH (as an MCP tool's may not be). */
function tooDeep(file: string, raw: Record<string, unknown>): PluginLoadError[] {
  const problems: PluginLoadError[] = [];
  for (const field of ["input_schema", "output_schema"] as const) {
    const problem = jsonShapeProblem(raw[field], MAX_SCHEMA_DEPTH);
    if (problem !== undefined)
      problems.push(
        new PluginLoadError(file, `field "${field}"`, `${problem}, which Lathe does not read`, FLATTEN),
      );
  }
  return problems;
}

/** The document as a mapping of fields, or the problem that makes it none. */
function readFields(file: string, doc: Document.Parsed): Record<string, unknown> | PluginLoadError {
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    return new PluginLoadError(
      file,
      "the document",
      `cannot be read (${(err as Error).message})`,
      "write plain YAML without anchors and aliases (`&name`, `*name`)",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return new PluginLoadError(
      file,
      "the document",
      value === null || value === undefined ? "is empty" : "is not a mapping of fields",
      "write tool.yaml as `key: value` lines with at least name, version, description and input_schema (see docs/plugins.md)",
    );
  }
  return value as Record<string, unknown>;
}

function schemaProblems(
  file: string,
  field: "input_schema" | "output_schema",
  schema: JsonSchema,
  strict: boolean,
): PluginLoadError[] {
  return schemaTypos(schema, { strict }).map(
    (typo) => new PluginLoadError(file, `field "${field}.${typo.path}"`, typo.problem, typo.fix),
  );
}

/**
 * A schema Lathe refuses for its shape (a property named `__proto__`, more schemas than it
 * compiles): said with the fix for that problem, not the field's general one (`type: object`, …).
 */
function shapeProblems(
  file: string,
  field: "input_schema" | "output_schema",
  schema: JsonSchema,
): PluginLoadError[] {
  const { $schema: _ignored, ...rest } = schema;
  const fault = shapeFault(rest, field);
  return fault === undefined
    ? []
    : [new PluginLoadError(file, `field "${field}"`, `cannot be used: ${fault.problem}`, fault.fix)];
}

/** The host an entry written as a URL or with a path was probably meant to be. */
function hostOfUrlish(entry: string): string | undefined {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `http://${entry}`);
    if (url.hostname === "") return undefined;
    const suggestion = url.port === "" ? url.hostname : `${url.hostname}:${url.port}`;
    parseHostPattern(suggestion);
    return suggestion === entry ? undefined : suggestion;
  } catch {
    return undefined;
  }
}

function hostProblems(file: string, hosts: readonly string[]): PluginLoadError[] {
  const problems: PluginLoadError[] = [];
  for (const entry of hosts) {
    try {
      parseHostPattern(entry);
    } catch (err) {
      if (!(err instanceof HostPatternError)) throw err;
      const meant = hostOfUrlish(entry.trim());
      problems.push(
        new PluginLoadError(
          file,
          'field "requires.net.hosts"',
          `has a bad entry: ${err.message.replace(/\. Write .*$/, "")}${meant ? ` (did you mean "${meant}"?)` : ""}`,
          meant
            ? `write "${meant}" (a host with an optional port: no scheme, path or credentials)`
            : 'write a host with an optional port, e.g. "api.example.com", "api.example.com:8443", "*.example.com", "127.0.0.1:11434" or "[::1]:8080"',
        ),
      );
    }
  }
  return problems;
}

/** Why a declared `cmd` could never match what the plugin runs, or undefined when it is fine. */
function commandProblem(cmd: string): { problem: string; fix: string } | undefined {
  if (cmd === "*") {
    return {
      problem: 'is "*", which would let the plugin run any program outside its isolate',
      fix: 'name each command the plugin runs, e.g. `{cmd: git, args: [log, {prefix: "--max-count="}]}`',
    };
  }
  const words = cmd.trim().split(/\s+/);
  if (/\s/.test(cmd)) {
    const args = words.slice(1);
    return {
      problem: `is "${cmd}", which has a space: cmd names one program, never a command line, so this could never match`,
      fix:
        words.length > 1 && words[0] !== ""
          ? `write \`{cmd: ${words[0]}, args: [${args.join(", ")}]}\` (or leave args out to allow any arguments)`
          : "write the program's name alone, e.g. `cmd: git`",
    };
  }
  if (SHELL_SYNTAX.test(cmd)) {
    return {
      problem: `is "${cmd}", which has shell syntax; runtime.shell.run starts one program without a shell, so this could never match`,
      fix: "write the program's name alone, e.g. `cmd: git`, and declare each program the plugin runs",
    };
  }
  if (cmd.includes("/")) {
    const dir = path.posix.dirname(path.posix.normalize(cmd));
    if (SYSTEM_BIN_DIRS.has(dir)) {
      return {
        problem: `is "${cmd}": programs in ${dir} are matched by their name, so this path could never match`,
        fix: `write \`cmd: ${path.posix.basename(cmd)}\` and call runtime.shell.run("${path.posix.basename(cmd)}", …)`,
      };
    }
    if (cmd.split("/").some((part) => part === "..") || cmd.endsWith("/") || cmd.includes("//")) {
      return {
        problem: `is "${cmd}", which is not a plain path to a program`,
        fix: "write a program name (`git`) or a path without `..`, `//` or a trailing slash (`/opt/tools/lint`, `./gradlew`)",
      };
    }
  }
  return undefined;
}

function requiresProblems(
  file: string,
  raw: unknown,
): { requires: RequirementSet; problems: PluginLoadError[] } {
  if (raw === undefined || raw === null) return { requires: {}, problems: [] };
  const parsed = RequirementSetSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue): PluginLoadError[] => {
      if (issue.code === "unrecognized_keys") {
        const where = fieldName(["requires", ...issue.path]);
        const aliases = issue.path.length === 0 ? REQUIRES_ALIASES : {};
        return issue.keys.map((key) =>
          unknownKeyProblem(file, where, key, aliases, FIXES.requires as string),
        );
      }
      return zodProblems(file, { ...issue, path: ["requires", ...issue.path] });
    });
    return { requires: {}, problems };
  }
  const problems = hostProblems(file, parsed.data.net?.hosts ?? []);
  for (const [index, command] of (parsed.data.shell ?? []).entries()) {
    const wrong = commandProblem(command.cmd);
    if (wrong)
      problems.push(
        new PluginLoadError(file, `field "requires.shell[${index}].cmd"`, wrong.problem, wrong.fix),
      );
  }
  for (const access of ["read", "write"] as const) {
    for (const pattern of parsed.data.fs?.[access] ?? []) {
      try {
        assertPatternsCompile([pattern]);
      } catch (err) {
        problems.push(
          new PluginLoadError(
            file,
            `field "requires.fs.${access}"`,
            `has a bad path pattern (${(err as Error).message})`,
            'start patterns with {workspace}, {session}, {user-data} or {ad-hoc}, or make them relative to the workspace, e.g. "{workspace}/**"',
            { cause: err },
          ),
        );
      }
    }
  }
  return { requires: parsed.data, problems };
}

/** Each field of the shape parsed on its own, so one bad field does not hide the others. */
function shapeFields(
  file: string,
  raw: Record<string, unknown>,
): { fields: Partial<ManifestFields>; problems: PluginLoadError[] } {
  const shape = ManifestShape.unwrap().shape as Record<string, z.ZodType>;
  const problems: PluginLoadError[] = [];
  const known = Object.keys(FIXES).join(", ");
  for (const key of Object.keys(raw)) {
    if (!(key in shape))
      problems.push(unknownKeyProblem(file, "", key, ALIASES, `known fields are ${known}`));
  }
  const fields: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const parsed = schema.safeParse(raw[key]);
    if (parsed.success) fields[key] = parsed.data;
    else
      for (const issue of parsed.error.issues)
        problems.push(...zodProblems(file, { ...issue, path: [key, ...issue.path] }));
  }
  return { fields: fields as Partial<ManifestFields>, problems };
}

/** A tool.yaml checked from top to bottom: every problem found, and the manifest when there are none. */
interface ManifestCheck {
  manifest?: PluginManifest;
  problems: PluginLoadError[];
}

/**
 * Validate a plugin's tool.yaml and report every problem, each naming the file, the field and
 * the fix: YAML syntax, unknown fields (with "did you mean"), mistyped fields, a bad tool id or
 * one of the locked built-ins' names, a version that is not semver, an invalid JSON Schema or
 * one with a typo (`type: strng`, `requried`), and a `requires` that could never match (a host
 * written as a URL, a `cmd` with spaces or shell syntax, a bad path pattern).
 */
export function checkManifest(file: string, text: string | Document.Parsed): ManifestCheck {
  const doc = typeof text === "string" ? parseYamlDocument(text) : text;
  const yaml = yamlProblems(file, doc);
  if (yaml.length > 0) return { problems: yaml };
  const raw = readFields(file, doc);
  if (raw instanceof PluginLoadError) return { problems: [raw] };
  // Every check below walks the schemas; one nested past the limit is refused before any does.
  const deep = tooDeep(file, raw);
  if (deep.length > 0) return { problems: deep };
  const { fields: m, problems } = shapeFields(file, raw);

  if (m.name !== undefined) {
    if (!TOOL_ID.test(m.name)) {
      problems.push(
        new PluginLoadError(
          file,
          'field "name"',
          `is "${m.name}", which is not a valid tool id`,
          FIXES.name as string,
        ),
      );
    } else if (lockedLookalike(m.name) !== undefined) {
      const locked = lockedLookalike(m.name) as string;
      problems.push(
        new PluginLoadError(
          file,
          'field "name"',
          locked === m.name
            ? `is "${m.name}", one of Lathe's locked built-in tools, which a plugin cannot replace`
            : `is "${m.name}", which differs only in case, "_" or "-" from "${locked}", one of Lathe's locked built-in tools: a model that calls "${m.name}" means the built-in, so a plugin cannot take the name`,
          `give the plugin a name of its own, e.g. \`name: my_${locked}\``,
        ),
      );
    }
  }
  if (m.version !== undefined && semver.valid(m.version) === null) {
    problems.push(
      new PluginLoadError(
        file,
        'field "version"',
        `is "${m.version}", which is not a semantic version`,
        FIXES.version as string,
      ),
    );
  }
  if (m.description !== undefined && m.description.trim() === "")
    problems.push(new PluginLoadError(file, 'field "description"', "is empty", FIXES.description as string));

  let inputSchema: JsonSchema | undefined;
  if (m.input_schema !== undefined) {
    if (m.input_schema.type !== "object") {
      problems.push(
        new PluginLoadError(
          file,
          'field "input_schema.type"',
          `is ${JSON.stringify(m.input_schema.type)}, but a tool takes an object of named arguments`,
          FIXES.input_schema as string,
        ),
      );
    } else {
      const typos = schemaProblems(file, "input_schema", m.input_schema, true);
      problems.push(...typos);
      inputSchema = strictSchema(m.input_schema);
      // A typo already names the bad value; the validator's own message would only blur it.
      const shape = typos.length === 0 ? shapeProblems(file, "input_schema", inputSchema) : [];
      problems.push(...shape);
      if (typos.length === 0 && shape.length === 0) {
        try {
          assertCompilable(inputSchema);
        } catch (err) {
          problems.push(
            new PluginLoadError(
              file,
              'field "input_schema"',
              `is not a valid JSON Schema (${(err as Error).message})`,
              FIXES.input_schema as string,
              { cause: err },
            ),
          );
        }
      }
    }
  }
  if (m.output_schema !== undefined) {
    const typos = schemaProblems(file, "output_schema", m.output_schema, false);
    problems.push(...typos);
    const shape = typos.length === 0 ? shapeProblems(file, "output_schema", m.output_schema) : [];
    problems.push(...shape);
    const problem = typos.length === 0 && shape.length === 0 ? checkOutputSchema(m.output_schema) : undefined;
    if (problem !== undefined) {
      problems.push(
        new PluginLoadError(
          file,
          'field "output_schema"',
          `is not a valid JSON Schema (${problem})`,
          FIXES.output_schema as string,
        ),
      );
    }
  }
  const { requires, problems: requireProblems } = requiresProblems(file, m.requires);
  problems.push(...requireProblems);
  const entry = m.entry ?? DEFAULT_ENTRY;
  if (!isPlainEntry(entry)) {
    problems.push(
      new PluginLoadError(
        file,
        'field "entry"',
        `is "${entry}", which is not a .js file inside the plugin folder`,
        FIXES.entry as string,
      ),
    );
  }
  if (problems.length > 0 || inputSchema === undefined) return { problems };
  const full = m as ManifestFields;
  const readOnly = full.readOnly ?? false;
  const timeoutMs = full.timeoutMs ?? PLUGIN_LIMITS.timeoutMs;
  return {
    problems,
    manifest: {
      name: full.name,
      version: full.version,
      description: full.description.trim(),
      kind: full.kind ?? "other",
      inputSchema,
      ...(full.output_schema ? { outputSchema: full.output_schema } : {}),
      requires,
      readOnly,
      gated: full.gated ?? !readOnly,
      timeoutMs,
      defer: full.defer ?? false,
      entry,
      memoryMb: full.limits?.memoryMb ?? PLUGIN_LIMITS.memoryMb,
      wasm: full.wasm ?? false,
      cpuMs: Math.min(full.limits?.cpuMs ?? timeoutMs, timeoutMs),
    },
  };
}

/**
 * Validate a plugin's tool.yaml (see checkManifest). Throws PluginLoadError for the first
 * problem found, naming the file, the field and the fix.
 */
export function parseManifest(file: string, text: string | Document.Parsed): PluginManifest {
  const { manifest, problems } = checkManifest(file, text);
  if (problems[0]) throw problems[0];
  return manifest as PluginManifest;
}
