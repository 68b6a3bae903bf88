import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { PluginLoadError } from "./plugin-load-error.ts";
import { parseManifest } from "./plugin-manifest.ts";
import { manifestFields } from "./plugin-test-kit.ts";

const FILE = "/home/ann/.lathe/tools/greet/tool.yaml";

function yamlWith(overrides: Record<string, unknown>, drop: string[] = []): string {
  const fields = manifestFields("greet", overrides);
  for (const key of drop) delete fields[key];
  return stringify(fields);
}

function problem(text: string): PluginLoadError {
  try {
    parseManifest(FILE, text);
  } catch (err) {
    if (err instanceof PluginLoadError) return err;
    throw err;
  }
  throw new Error("expected the manifest to be refused");
}

describe("parseManifest errors name the file, the field and the fix", () => {
  it.each([
    [
      "broken YAML",
      "name: greet\nversion: 1.0.0\n  description: [oops\n",
      /line \d+, column \d+/,
      /not valid YAML/,
      /indent with spaces/,
    ],
    ["an empty file", "", /the document/, /is empty/, /at least name, version, description and input_schema/],
    [
      "a YAML alias bomb",
      "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
      /the document/,
      /cannot be read \(Excessive alias count/,
      /without anchors and aliases/,
    ],
    ["a list instead of fields", "- name: greet\n", /the document/, /not a mapping/, /key: value/],
    ["a missing name", yamlWith({}, ["name"]), /field "name"/, /is missing/, /name: word_count/],
    [
      "a tool id with a space",
      yamlWith({ name: "say hello" }),
      /field "name"/,
      /"say hello", which is not a valid tool id/,
      /letters, digits/,
    ],
    [
      "a version that is not semver",
      yamlWith({ version: "1.0" }),
      /field "version"/,
      /"1.0", which is not a semantic version/,
      /version: 1\.0\.0/,
    ],
    [
      "a version YAML reads as a number",
      "name: greet\nversion: 1.5\ndescription: d\ninput_schema: {type: object}\n",
      /field "version"/,
      /expected string, received number/,
      /MAJOR\.MINOR\.PATCH/,
    ],
    [
      "an empty description",
      yamlWith({ description: "  " }),
      /field "description"/,
      /is empty/,
      /what the tool does/,
    ],
    [
      "a misspelt field",
      yamlWith({ inputSchema: {} }),
      /field "inputSchema"/,
      /did you mean "input_schema"/,
      /known fields are name, version/,
    ],
    [
      "an unknown field",
      yamlWith({ colour: "red" }),
      /field "colour"/,
      /is not a known field/,
      /remove it or rename it/,
    ],
    [
      "a missing input_schema",
      yamlWith({}, ["input_schema"]),
      /field "input_schema"/,
      /is missing/,
      /type: object/,
    ],
    [
      "an input_schema that is not an object schema",
      yamlWith({ input_schema: { type: "array" } }),
      /field "input_schema.type"/,
      /"array", but a tool takes an object/,
      /type: object/,
    ],
    [
      "an invalid JSON Schema",
      yamlWith({ input_schema: { type: "object", properties: { a: { type: "string", minLength: -1 } } } }),
      /field "input_schema"/,
      /not a valid JSON Schema \(schema\/properties\/a\/minLength must be >= 0\)/,
      /type: object/,
    ],
    [
      "an output_schema that is not a mapping",
      yamlWith({ output_schema: "object" }),
      /field "output_schema"/,
      /is invalid/,
      /describing what execute returns/,
    ],
    [
      "an unknown requires key",
      yamlWith({ requires: { network: { hosts: ["x"] } } }),
      /field "requires.network"/,
      /did you mean "net"/,
      /fs: \{read/,
    ],
    [
      "an unknown requires.fs key",
      yamlWith({ requires: { fs: { exec: ["x"] } } }),
      /field "requires.fs.exec"/,
      /is not a known field/,
      /declare only fs/,
    ],
    [
      "a shell requirement without cmd",
      yamlWith({ requires: { shell: [{ args: ["log"] }] } }),
      /field "requires.shell.0.cmd"/,
      /is missing/,
      /declare only fs/,
    ],
    [
      "a bad path variable",
      yamlWith({ requires: { fs: { read: ["{workspce}/**"] } } }),
      /field "requires.fs.read"/,
      /Unknown path variable \{workspce\}/,
      /start patterns with \{workspace\}/,
    ],
    [
      "a path pattern with ..",
      yamlWith({ requires: { fs: { write: ["../**"] } } }),
      /field "requires.fs.write"/,
      /may not contain "\.\."/,
      /\{workspace\}\/\*\*/,
    ],
    [
      "a non-boolean readOnly",
      yamlWith({ readOnly: "yes" }),
      /field "readOnly"/,
      /expected boolean/,
      /readOnly: true/,
    ],
    [
      "a timeout too small",
      yamlWith({ timeoutMs: 5 }),
      /field "timeoutMs"/,
      /is invalid/,
      /from 100 to 600000/,
    ],
    [
      "an entry outside the folder",
      yamlWith({ entry: "../shared/index.js" }),
      /field "entry"/,
      /not a \.js file inside the plugin folder/,
      /entry: index\.js/,
    ],
    [
      "an entry that is not JavaScript",
      yamlWith({ entry: "main.py" }),
      /field "entry"/,
      /not a \.js file/,
      /\.js or \.mjs/,
    ],
    [
      "a memory limit above the default",
      yamlWith({ limits: { memoryMb: 512 } }),
      /field "limits.memoryMb"/,
      /is invalid/,
      /from 8 to 64/,
    ],
    [
      "a CPU budget of zero",
      yamlWith({ limits: { cpuMs: 0 } }),
      /field "limits.cpuMs"/,
      /is invalid/,
      /cpuMs: from 100/,
    ],
  ])("%s", (_name, text, field, what, fix) => {
    const err = problem(text);
    expect(err.message.startsWith(`${FILE}: `)).toBe(true);
    expect(err.message).toMatch(field);
    expect(err.message).toMatch(what);
    expect(err.message).toMatch(/Fix: /);
    expect(err.fix).toMatch(fix);
  });
});

describe("parseManifest", () => {
  it("fills the defaults a plugin author may leave out", () => {
    const m = parseManifest(FILE, yamlWith({}, ["readOnly", "gated"]));
    expect(m).toMatchObject({
      name: "greet",
      kind: "other",
      readOnly: false,
      gated: true,
      timeoutMs: 30_000,
      defer: false,
      entry: "index.js",
      memoryMb: 64,
      cpuMs: 30_000,
      requires: {},
    });
  });

  it("keeps what the author declared", () => {
    const m = parseManifest(
      FILE,
      yamlWith({
        kind: "fetch",
        readOnly: true,
        gated: true,
        timeoutMs: 5000,
        defer: true,
        entry: "src/main.mjs",
        limits: { memoryMb: 16, cpuMs: 200 },
        requires: {
          net: { hosts: ["api.example.com"] },
          shell: [{ cmd: "git", args: ["log", { wildcard: true }] }],
        },
      }),
    );
    expect(m).toMatchObject({
      kind: "fetch",
      readOnly: true,
      gated: true,
      timeoutMs: 5000,
      defer: true,
      entry: "src/main.mjs",
      memoryMb: 16,
      cpuMs: 200,
    });
    expect(m.requires).toEqual({
      net: { hosts: ["api.example.com"] },
      shell: [{ cmd: "git", args: ["log", { wildcard: true }] }],
    });
  });

  it("makes the input schema strict: unknown properties are rejected unless the author opened them", () => {
    const m = parseManifest(
      FILE,
      yamlWith({
        input_schema: {
          type: "object",
          properties: {
            options: { type: "object", properties: { deep: { type: "boolean" } } },
            tags: { type: "object", additionalProperties: { type: "string" } },
            items: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } },
            both: { allOf: [{ type: "object", properties: { a: { type: "string" } } }] },
          },
        },
      }),
    );
    const props = m.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(m.inputSchema.additionalProperties).toBe(false);
    expect(props.options?.additionalProperties).toBe(false);
    expect(props.tags?.additionalProperties).toEqual({ type: "string" });
    expect((props.items?.items as Record<string, unknown>).additionalProperties).toBe(false);
    expect((props.both?.allOf as Record<string, unknown>[])[0]?.additionalProperties).toBeUndefined();
  });
});
