import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatPluginLogLine, PluginLogFiles, pluginLogFile } from "./plugin-log-files.ts";
import {
  openPluginWorld,
  plugin,
  writePlugin,
  type PluginWorld,
} from "../../../../test/support/plugin-test-kit.ts";

// Every line a plugin logs and every restart with its reason reach
// `$LATHE_HOME/logs/plugins/<name>.log` (rotated), as well as the manager's onLog.

let world: PluginWorld | undefined;
let scratch: string | undefined;

afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

const AT = Date.UTC(2025, 5, 1, 10, 0, 0);

describe("PluginLogFiles", () => {
  it("formats a line with its time, layer and who wrote it, indenting continuation lines", () => {
    expect(
      formatPluginLogLine({ plugin: "wc", layer: "global", source: "plugin", line: "counted 3", at: AT }),
    ).toBe("2025-06-01T10:00:00.000Z [global] counted 3");
    expect(
      formatPluginLogLine({ plugin: "wc", layer: "project", source: "lathe", line: "a\nb", at: AT }),
    ).toBe("2025-06-01T10:00:00.000Z [project] lathe: a\n    b");
  });

  it.each([
    ["an OSC 52 clipboard write", "\u001b]52;c;cm0=\u0007", "\\u001b]52;c;cm0=\\u0007"],
    ["a CSI colour", "\u001b[31mred", "\\u001b[31mred"],
    ["a C1 CSI", "\u009b2J", "\\u009b2J"],
    ["a \\r that would overwrite the line", "ok\rFAKE", "ok\\rFAKE"],
    ["a NUL and a DEL", "a\u0000b\u007f", "a\\u0000b\\u007f"],
  ])("escapes %s, which a person's `tail -f` would act on", (_name, line, shown) => {
    const formatted = formatPluginLogLine({ plugin: "p", layer: "global", source: "plugin", line, at: AT });
    expect(formatted).toBe(`2025-06-01T10:00:00.000Z [global] ${shown}`);
    expect(formatted).not.toMatch(/\p{Cc}/u);
  });

  it("gathers lines and appends them at the next turn of the event loop, one file per plugin", async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), "lathe-plugin-logs-"));
    const files = new PluginLogFiles(scratch, { onError: (_p, message) => expect.fail(message) });
    files.write({ plugin: "a", layer: "global", source: "plugin", line: "one", at: AT });
    files.write({ plugin: "a", layer: "global", source: "plugin", line: "two", at: AT });
    files.write({ plugin: "b", layer: "bundled", source: "lathe", line: "isolate stopped: x", at: AT });
    // Nothing is written synchronously, line by line…
    expect(existsSync(pluginLogFile(scratch, "a"))).toBe(false);
    // …but all of it a tick later.
    await expect
      .poll(() => readFile(pluginLogFile(scratch as string, "a"), "utf8").catch(() => ""))
      .toBe("2025-06-01T10:00:00.000Z [global] one\n2025-06-01T10:00:00.000Z [global] two\n");
    expect(await readFile(pluginLogFile(scratch, "b"), "utf8")).toBe(
      "2025-06-01T10:00:00.000Z [bundled] lathe: isolate stopped: x\n",
    );
  });

  it("rotates a file past its size and keeps a few older ones", async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), "lathe-plugin-logs-"));
    const files = new PluginLogFiles(scratch, { onError: (_p, m) => expect.fail(m), maxBytes: 200, keep: 2 });
    for (let i = 0; i < 12; i++) {
      files.write({
        plugin: "chatty",
        layer: "global",
        source: "plugin",
        line: `line ${i} ${"x".repeat(40)}`,
        at: AT,
      });
      files.flush();
    }
    const dir = path.dirname(pluginLogFile(scratch, "chatty"));
    expect((await readdir(dir)).sort()).toEqual(["chatty.1.log", "chatty.2.log", "chatty.log"]);
    expect(await readFile(path.join(dir, "chatty.log"), "utf8")).toMatch(/line 11 /);
    for (const name of await readdir(dir))
      expect((await readFile(path.join(dir, name))).length).toBeLessThanOrEqual(200);
  });

  it("reports a file it cannot write once, and carries on", async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), "lathe-plugin-logs-"));
    // `logs` is a file, so logs/plugins/ cannot be made.
    await writeFile(path.join(scratch, "logs"), "not a folder");
    const errors: string[] = [];
    const files = new PluginLogFiles(scratch, { onError: (p, m) => errors.push(`${p}: ${m}`) });
    for (let i = 0; i < 3; i++) {
      files.write({ plugin: "p", layer: "global", source: "plugin", line: "x", at: AT });
      files.flush();
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^p: cannot write the log file .*logs\/plugins\/p\.log: .*(ENOTDIR|EEXIST)/);
  });
});

describe("a plugin's log file", () => {
  const logOf = async (name: string) =>
    readFile(pluginLogFile((world as PluginWorld).latheHome, name), "utf8").catch(() => "");

  it("holds what it logged and every restart with its reason: CPU, memory, wall clock, WebAssembly budget, a failed start", async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writePlugin(
          w.globalDir,
          "talker",
          plugin("talker", "runtime.log('hello', args); console.error('careful'); return 1;"),
        );
        await writePlugin(
          w.globalDir,
          "spinner",
          plugin("spinner", "for (;;) {}", { limits: { cpuMs: 200 } }),
        );
        await writePlugin(
          w.globalDir,
          "hog",
          plugin("hog", "const a = []; for (;;) a.push(new Array(100000).fill(a.length));", {
            limits: { memoryMb: 8 },
          }),
        );
        await writePlugin(
          w.globalDir,
          "sleeper",
          plugin("sleeper", "await new Promise(() => {});", { timeoutMs: 300 }),
        );
        await writePlugin(
          w.globalDir,
          "wasm_hog",
          plugin(
            "wasm_hog",
            "try { new WebAssembly.Memory({ initial: 1, maximum: 65536 }); } catch (e) { return e.message; } return 'made';",
            { wasm: true, limits: { memoryMb: 8 } },
          ),
        );
        await writePlugin(w.globalDir, "crasher", {
          yaml: { name: "crasher", version: "1.0.0", description: "d", input_schema: { type: "object" } },
          js: "throw new Error('no config');\nexport async function execute() { return 1; }\n",
        });
      },
    });
    const session = await world.session();
    for (const name of ["talker", "spinner", "hog", "sleeper", "wasm_hog", "crasher"])
      await session.call(name, {});

    await expect
      .poll(() => logOf("talker"))
      .toMatch(/^\S+Z \[global\] hello \{\}\n\S+Z \[global\] careful\n$/);
    await expect
      .poll(() => logOf("spinner"))
      .toMatch(
        /\[global\] lathe: isolate stopped: spinner ran without pause for more than 200 ms during the call/,
      );
    await expect
      .poll(() => logOf("hog"))
      .toMatch(/\[global\] lathe: isolate stopped: hog used more than its memory limit of 8 MB/);
    await expect
      .poll(() => logOf("sleeper"))
      .toMatch(/\[global\] lathe: isolate stopped: a call did not finish within 300 ms \(wall clock\)/);
    await expect
      .poll(() => logOf("wasm_hog"))
      .toMatch(/\[global\] lathe: isolate stopped: it used up its WebAssembly budget/);
    await expect
      .poll(() => logOf("crasher"))
      .toMatch(
        /\[global\] lathe: isolate could not start: crasher failed to start: no config \(thrown at .*crasher\/index\.js:1:7\)/,
      );
    // The same lines reach the manager's onLog, each saying who wrote it.
    expect(world.logs.filter((e) => e.plugin === "talker").map((e) => [e.source, e.line])).toEqual([
      ["plugin", "hello {}"],
      ["plugin", "careful"],
    ]);
    expect(world.logs.find((e) => e.plugin === "spinner")).toMatchObject({
      source: "lathe",
      layer: "global",
      toolId: "spinner",
    });
    // And the status keeps the last of them, Lathe's marked.
    expect(world.manager.status().find((s) => s.name === "spinner")?.logs[0]).toMatch(
      /^\[lathe\] isolate stopped: /,
    );
  });

  it("says in the plugin's status when its log file cannot be written, and the call still works", async () => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writeFile(path.join(w.latheHome, "logs"), "a file where the logs folder should be");
        await writePlugin(w.globalDir, "talker", plugin("talker", "runtime.log('hi'); return 'ok';"));
      },
    });
    const session = await world.session();
    expect((await session.call("talker", {})).type).toBe("output");
    await expect
      .poll(() => world?.manager.status().find((s) => s.name === "talker")?.logs)
      .toEqual(["hi", expect.stringMatching(/^\[lathe\] cannot write the log file .*talker\.log: /)]);
  });
});
