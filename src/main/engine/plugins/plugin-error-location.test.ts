import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { entryUrl } from "./plugin-source.ts";
import { IsolateHost } from "./isolate-host.ts";
import { openPluginWorld, writePlugin, type PluginWorld } from "../../../../test/support/plugin-test-kit.ts";
import { errorOf } from "../../../../test/support/envelope-of.ts";

// A plugin's errors name its file and line: a throw on a known line, a throw in a helper, a
// runtime refusal let through, top-level code that throws, and a syntax error at load.

const FILE = "/plugins/probe/index.js";
const hosts: IsolateHost[] = [];
let world: PluginWorld | undefined;

afterEach(async () => {
  for (const h of hosts.splice(0)) h.dispose();
  await world?.cleanup();
  world = undefined;
});

function host(source: string, logs: string[] = []): IsolateHost {
  const h = new IsolateHost({
    name: "probe",
    source,
    filename: entryUrl(FILE),
    shape: { fsRead: true, fsWrite: false, net: false, shell: false },
    memoryMb: 32,
    cpuTimeoutMs: 1000,
    onLog: (line, source) => logs.push(`${source}: ${line}`),
  });
  hosts.push(h);
  return h;
}

const refuse = () =>
  Promise.reject(new Error("Access denied: secret.txt is outside what the plugin declared."));
const call = (h: IsolateHost) => h.call({}, { dispatch: refuse, wallTimeoutMs: 5000 });

describe("errors thrown by a plugin name the entry file and line", () => {
  it("a throw on line 4, column 9", async () => {
    const logs: string[] = [];
    const h = host(
      [
        "export async function execute() {",
        "  const a = 1;",
        "  // line 3",
        "  throw new Error('boom');",
        "}",
      ].join("\n"),
      logs,
    );
    await expect(call(h)).rejects.toThrow(`boom (thrown at ${FILE}:4:9)`);
    // The plugin's log keeps it too, as Lathe's note.
    expect(logs).toEqual([`lathe: call failed: boom (thrown at ${FILE}:4:9)`]);
  });

  it("a throw in a helper names the helper's line, not the caller's", async () => {
    const h = host(
      [
        "function parse(text) {",
        "  throw new TypeError(`cannot parse ${text}`);",
        "}",
        "export async function execute() {",
        "  return parse('x');",
        "}",
      ].join("\n"),
    );
    await expect(call(h)).rejects.toThrow(`cannot parse x (thrown at ${FILE}:2:9)`);
  });

  it("a runtime refusal the plugin lets through names the line that awaited it", async () => {
    const h = host(
      [
        "export async function execute(args, runtime) {",
        "  const a = 1;",
        "  return await runtime.fs.readText('secret.txt');",
        "}",
      ].join("\n"),
    );
    await expect(call(h)).rejects.toThrow(
      new RegExp(
        `^Access denied: secret\\.txt is outside what the plugin declared\\. \\(thrown at ${FILE}:3:\\d+\\)$`,
      ),
    );
  });

  it("a thrown string has no stack, so no location is claimed", async () => {
    const h = host("export async function execute() {\n  throw 'plain';\n}");
    await expect(call(h)).rejects.toThrow(/^plain$/);
  });

  it("top-level code that throws when the isolate starts", async () => {
    const logs: string[] = [];
    const h = host(
      "const config = {};\nconfig.missing.field = 1;\nexport async function execute() { return 1; }",
      logs,
    );
    await expect(call(h)).rejects.toThrow(
      new RegExp(`^probe failed to start: .*undefined.* \\(thrown at ${FILE}:2:\\d+\\)$`),
    );
    expect(logs.at(-1)).toMatch(/^lathe: isolate could not start: probe failed to start: .*\(thrown at /);
  });
});

describe("a syntax error at load", () => {
  it("disables the plugin with the file, line and column, and a call says so", async () => {
    world = await openPluginWorld({
      arrange: (w) =>
        writePlugin(w.globalDir, "broken", {
          yaml: { name: "broken", version: "1.0.0", description: "d", input_schema: { type: "object" } },
          js: "export async function execute() {\n  let x = ;\n}\n",
        }).then(() => undefined),
    });
    const file = path.join(world.globalDir, "broken", "index.js");
    const status = world.manager.status().find((s) => s.name === "broken");
    expect(status?.reason).toBe(
      `${file}: line 2, column 11 has a JavaScript syntax error (SyntaxError: Unexpected token ';').`,
    );
    expect(status?.fix).toBe(
      "correct the JavaScript; the entry is an ES module that exports `async function execute(args, runtime)`; the plugin reloads once the files are fixed",
    );
    const session = await world.session();
    expect(errorOf(await session.call("broken", {}))).toContain(
      `${file}: line 2, column 11 has a JavaScript syntax error`,
    );
  });
});
