import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { PluginLoadError } from "./plugin-load-error.ts";
import { checkManifest, parseManifest } from "./plugin-manifest.ts";
import { manifestFields } from "../../../../test/support/plugin-test-kit.ts";

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
      "a locked built-in's name",
      yamlWith({ name: "read" }),
      /field "name"/,
      /is "read", one of Lathe's locked built-in tools, which a plugin cannot replace/,
      /name: my_read/,
    ],
    [
      "a case variant of a locked built-in's name",
      yamlWith({ name: "Bash" }),
      /field "name"/,
      /is "Bash", which differs only in case, "_" or "-" from "bash", one of Lathe's locked built-in tools: a model that calls "Bash" means the built-in/,
      /name: my_bash/,
    ],
    [
      "a locked built-in's name without its underscore",
      yamlWith({ name: "WebFetch" }),
      /field "name"/,
      /differs only in case, "_" or "-" from "web_fetch"/,
      /name: my_web_fetch/,
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
    [
      "a misspelt field, found by edit distance",
      yamlWith({ descripton: "Greet." }, ["description"]),
      /field "descripton"/,
      /is not a known field \(did you mean "description"\?\)/,
      /^rename it to "description"; known fields are/,
    ],
    [
      "a misspelt limits key",
      yamlWith({ limits: { memoryMB: 16 } }),
      /field "limits.memoryMB"/,
      /did you mean "memoryMb"/,
      /rename it to "memoryMb"/,
    ],
    [
      "a misspelt requires.net key",
      yamlWith({ requires: { net: { hsots: ["api.example.com"] } } }),
      /field "requires.net.hsots"/,
      /did you mean "hosts"/,
      /rename it to "hosts"/,
    ],
    [
      "a misspelt key of a shell requirement",
      yamlWith({ requires: { shell: [{ cmd: "git", arg: ["log"] }] } }),
      /field "requires.shell.0.arg"/,
      /did you mean "args"/,
      /rename it to "args"/,
    ],
    [
      "a schema type typo, naming the bad value",
      yamlWith({ input_schema: { type: "object", properties: { path: { type: "strng" } } } }),
      /field "input_schema.properties.path.type"/,
      /is "strng", which is not a JSON Schema type \(did you mean "string"\?\)/,
      /use one of string, number, integer/,
    ],
    [
      "a schema keyword typo",
      yamlWith({
        input_schema: { type: "object", properties: { path: { type: "string" } }, requried: ["path"] },
      }),
      /field "input_schema.requried"/,
      /not a JSON Schema keyword \(did you mean "required"\?\)/,
      /rename it to "required"/,
    ],
    [
      "a required argument that is not a property",
      yamlWith({
        input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["paht"] },
      }),
      /field "input_schema.required.0"/,
      /"paht", which is not one of the properties \(path\), so no call could ever pass/,
      /write "path"/,
    ],
    [
      "an output_schema type typo",
      yamlWith({ output_schema: { type: "objct" } }),
      /field "output_schema.type"/,
      /did you mean "object"/,
      /use one of/,
    ],
    [
      "a cmd with a space",
      yamlWith({ requires: { shell: [{ cmd: "git log" }] } }),
      /field "requires.shell\[0\].cmd"/,
      /is "git log", which has a space: cmd names one program, never a command line, so this could never match/,
      /write `\{cmd: git, args: \[log\]\}`/,
    ],
    [
      "a cmd with shell syntax",
      yamlWith({ requires: { shell: [{ cmd: "git|cat" }] } }),
      /field "requires.shell\[0\].cmd"/,
      /has shell syntax; runtime.shell.run starts one program without a shell/,
      /cmd: git/,
    ],
    [
      "a cmd that is a path into a system folder",
      yamlWith({ requires: { shell: [{ cmd: "/usr/bin/git" }] } }),
      /field "requires.shell\[0\].cmd"/,
      /programs in \/usr\/bin are matched by their name, so this path could never match/,
      /write `cmd: git`/,
    ],
    [
      "a cmd path that climbs",
      yamlWith({ requires: { shell: [{ cmd: "../bin/tool" }] } }),
      /field "requires.shell\[0\].cmd"/,
      /not a plain path to a program/,
      /without `\.\.`/,
    ],
    [
      "a host written as a URL",
      yamlWith({ requires: { net: { hosts: ["https://api.example.com:8443/v1"] } } }),
      /field "requires.net.hosts"/,
      /"https:\/\/api.example.com:8443\/v1" has a scheme .*\(did you mean "api.example.com:8443"\?\)/,
      /^write "api.example.com:8443"/,
    ],
    [
      "a host with a path",
      yamlWith({ requires: { net: { hosts: ["api.example.com/v1"] } } }),
      /field "requires.net.hosts"/,
      /is not a bare host.*\(did you mean "api.example.com"\?\)/,
      /^write "api.example.com"/,
    ],
    [
      "a host with a bad port",
      yamlWith({ requires: { net: { hosts: ["localhost:0"] } } }),
      /field "requires.net.hosts"/,
      /has the port "0", which is not a number from 1 to 65535/,
      /"127.0.0.1:11434"/,
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

describe("checkManifest reports every problem, not only the first", () => {
  it("lists each bad field with its own fix, in file order", () => {
    const { manifest, problems } = checkManifest(
      FILE,
      stringify({
        name: "greet",
        version: "1.0",
        descripton: "Greet.",
        input_schema: { type: "object", properties: { who: { type: "strng" } } },
        requires: { net: { hosts: ["https://api.example.com"] }, shell: [{ cmd: "git log" }] },
        timeout: 100,
      }),
    );
    expect(manifest).toBeUndefined();
    expect(problems.map((p) => `${p.field} ${p.problem}`)).toEqual([
      'field "descripton" is not a known field (did you mean "description"?)',
      'field "timeout" is not a known field (did you mean "timeoutMs"?)',
      'field "description" is missing',
      'field "version" is "1.0", which is not a semantic version',
      'field "input_schema.properties.who.type" is "strng", which is not a JSON Schema type (did you mean "string"?)',
      'field "requires.net.hosts" has a bad entry: "https://api.example.com" has a scheme (http://, https://): the entry names a host, not a URL (did you mean "api.example.com"?)',
      'field "requires.shell[0].cmd" is "git log", which has a space: cmd names one program, never a command line, so this could never match',
    ]);
    for (const p of problems) expect(p.message).toBe(`${FILE}: ${p.field} ${p.problem}. Fix: ${p.fix}`);
  });

  it("accepts commands given by name or by a plain path outside the system folders", () => {
    const { problems, manifest } = checkManifest(
      FILE,
      yamlWith({ requires: { shell: [{ cmd: "git" }, { cmd: "/opt/tools/lint" }, { cmd: "./gradlew" }] } }),
    );
    expect(problems).toEqual([]);
    expect(manifest?.requires.shell?.map((c) => c.cmd)).toEqual(["git", "/opt/tools/lint", "./gradlew"]);
  });
});

describe("a tool.yaml whose schema nests very deep", () => {
  /** A schema `steps` objects deep, each a property of the last: two JSON levels a step. */
  const deepYaml = (steps: number, field = "input_schema"): string =>
    [
      "name: greet",
      "version: 1.0.0",
      "description: Greet.",
      ...(field === "input_schema" ? [] : ["input_schema: {type: object}"]),
      `${field}: ${"{type: object, properties: {a: ".repeat(steps)}{type: string}${"}}".repeat(steps)}`,
      "",
    ].join("\n");

  it("loads one within the limit (100 JSON levels)", () => {
    const { problems, manifest } = checkManifest(FILE, deepYaml(49));
    expect(problems).toEqual([]);
    expect(manifest?.name).toBe("greet");
  });

  it.each(["input_schema", "output_schema"])(
    "refuses %s past the limit, as an MCP tool's, naming it",
    (field) => {
      const { problems } = checkManifest(FILE, deepYaml(51, field));
      expect(problems.map((p) => `${p.field} ${p.problem}. Fix: ${p.fix}`)).toEqual([
        `field "${field}" is nested deeper than 100 levels, which Lathe does not read. Fix: keep its schemas within 100 levels: describe a part that repeats once, under \`$defs\`, and point to it with \`$ref\``,
      ]);
    },
  );

  it("says one too deep for the YAML parser is nested too deep, where, not that it is invalid YAML", () => {
    const { problems } = checkManifest(FILE, deepYaml(5000));
    expect(problems).toHaveLength(1);
    const [only] = problems as [PluginLoadError];
    expect(only.field).toMatch(/^line 4, column \d+$/);
    expect(only.problem).toBe(
      "is nested too deep to read (a tool.yaml's schemas may nest at most 100 levels)",
    );
    expect(only.message).not.toMatch(/not valid YAML|call stack/);
  });
});
