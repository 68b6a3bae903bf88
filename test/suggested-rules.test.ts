// A headless refusal says which rule would allow the call. That rule, added to the settings as
// given, must then let the same call run: the suggestion is a fix, not a hint.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globalToolsDir } from "../src/main/engine/plugins/plugin-discovery.ts";
import { envelopeOf, runLathe } from "./support/lathe-cli.ts";
import { plugin, writePlugin } from "./support/plugin-test-kit.ts";

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-rules-home-"));
  root = await mkdtemp(path.join(os.tmpdir(), "lathe-rules-root-"));
  // A plugin that declares nothing a rule could match: its calls are judged as a whole.
  await writePlugin(
    globalToolsDir(home),
    "greet",
    plugin("greet", "return { text: `Hello, ${args.name}!` };", {
      input_schema: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
        additionalProperties: false,
      },
      readOnly: false,
      gated: true,
    }),
  );
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

const call = (tool: string, args: unknown) =>
  runLathe(["call", tool, JSON.stringify(args)], { home, cwd: root });

describe("the rule a headless refusal suggests", () => {
  it.each([
    ["a bash command", "bash", { command: "echo suggested" }, { pattern: "echo suggested" }, "it"],
    [
      "a write to a new file",
      "write",
      { path: "notes/new.txt", content: "x" },
      { pattern: "notes/new.txt" },
      "it",
    ],
    // A rule for this exact argument list would never match again: every call of the tool.
    ["a plugin call judged as a whole", "greet", { name: "Ada" }, { pattern: "*" }, "every greet call"],
  ])("%s: adding it lets the call run", async (_name, tool, args, expected, what) => {
    const refused = envelopeOf(await call(tool, args));
    expect(refused.type).toBe("error");
    const suggestion = /To allow (.+?), add (\{.+?\}) under "permissions" in (\S+) /.exec(
      refused.error_text ?? "",
    );
    expect(suggestion, refused.error_text).not.toBeNull();
    const [, allows, ruleText, settingsFile] = suggestion!;
    expect(allows).toBe(what);
    expect(settingsFile).toBe(path.join(home, "settings.json"));
    const rule = JSON.parse(ruleText!) as Record<string, unknown>;
    expect(rule).toEqual({ permission: tool, action: "allow", ...expected });

    await writeFile(settingsFile!, JSON.stringify({ permissions: [rule] }));
    const allowed = envelopeOf(await call(tool, args));
    expect(allowed.type, allowed.error_text).toBe("output");
  });

  it("an edit (it reads, then writes its file) is refused for the write, and the rule fixes it", async () => {
    await writeFile(path.join(root, "e.txt"), "hello world\n");
    const lines = 'read {"path":"e.txt"}\nedit {"path":"e.txt","old_string":"hello","new_string":"bye"}\n';
    const batch = () => runLathe(["batch"], { home, cwd: root, input: lines });
    const refused = JSON.parse((await batch()).stdout.trim().split("\n")[1]!) as { error_text: string };
    expect(refused.error_text).toContain('Writing "e.txt" matched no permission rule');
    const rule = JSON.parse(/add (\{.+?\}) under/.exec(refused.error_text)![1]!) as unknown;
    expect(rule).toEqual({ permission: "edit", pattern: "e.txt", action: "allow" });
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: [rule] }));
    expect((await batch()).code).toBe(0);
    expect(await readFile(path.join(root, "e.txt"), "utf8")).toBe("bye world\n");
  });

  it("for a plugin, the rule it suggests covers its next call with other arguments too", async () => {
    const refused = envelopeOf(await call("greet", { name: "Ada" }));
    const rule = JSON.parse(/add (\{.+?\}) under/.exec(refused.error_text ?? "")![1]!) as unknown;
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: [rule] }));
    const other = envelopeOf(await call("greet", { name: "Grace" }));
    expect(other).toMatchObject({ type: "output" });
    expect(JSON.stringify(other.data)).toContain("Hello, Grace!");
    expect(await readFile(path.join(home, "settings.json"), "utf8")).toContain('"pattern":"*"');
  });
});
