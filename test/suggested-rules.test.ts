// A headless refusal says which rules would allow the call. Those rules, added to the settings as
// given, must then let the same call run: the suggestion is a fix, not a hint.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { globalToolsDir } from "../src/main/engine/plugins/plugin-discovery.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";
import { plugin, writePlugin } from "./support/plugin-test-kit.ts";

const world = useCliWorld("lathe-rules-", {
  setup: async () => {
    // A plugin that declares nothing a rule could match: its calls are judged as a whole.
    await writePlugin(
      globalToolsDir(world.home),
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
  },
});

const call = (tool: string, args: unknown) => world.lathe(["call", tool, JSON.stringify(args)]);

interface Suggestion {
  /** "it", or "every <tool> call". */
  allows: string;
  rules: Array<Record<string, unknown>>;
  settingsFile: string;
}

/** The fix a refusal names: its rules are a list that pastes into "permissions" as it is. */
function suggestionIn(errorText: string | undefined): Suggestion {
  const found = /To allow (.+?), add (\{.+\}) to "permissions" in (\S+) /.exec(errorText ?? "");
  if (!found) throw new Error(`no suggested rule in: ${errorText}`);
  const [, allows, list, settingsFile] = found as unknown as [string, string, string, string];
  return { allows, rules: JSON.parse(`[${list}]`) as Suggestion["rules"], settingsFile };
}

/** Put `rules` into the user's settings, as a person following the suggestion would. */
const adopt = (rules: unknown[]) =>
  writeFile(path.join(world.home, "settings.json"), JSON.stringify({ permissions: rules }));

describe("the rules a headless refusal suggests", () => {
  it.each([
    ["a bash command", "bash", { command: "echo suggested" }, ["echo suggested"], "it"],
    // The command and the file it writes: both rules at once, not one per attempt.
    [
      "a bash command that writes a file",
      "bash",
      { command: "echo hi > out.txt" },
      // A file at the top: `./` keeps the rule to it (`out.txt` alone names one at any depth).
      ["./out.txt", "echo hi"],
      "it",
    ],
    ["a write to a new file", "write", { path: "notes/new.txt", content: "x" }, ["notes/new.txt"], "it"],
    // A rule for this exact argument list would never match again: every call of the tool.
    ["a plugin call judged as a whole", "greet", { name: "Ada" }, ["*"], "every greet call"],
  ])("%s: adding them lets the call run", async (_name, tool, args, patterns, what) => {
    const refused = envelopeOf(await call(tool, args));
    expect(refused.type).toBe("error");
    const suggestion = suggestionIn(refused.error_text);
    expect(suggestion.allows).toBe(what);
    expect(suggestion.settingsFile).toBe(path.join(world.home, "settings.json"));
    expect(suggestion.rules).toEqual(
      patterns.map((pattern) => ({ permission: tool, pattern, action: "allow" })),
    );

    await adopt(suggestion.rules);
    const allowed = envelopeOf(await call(tool, args));
    expect(allowed.type, allowed.error_text).toBe("output");
  });

  it("an edit (it reads, then writes its file) is refused for the write, and the rule fixes it", async () => {
    await writeFile(path.join(world.root, "e.txt"), "hello world\n");
    const lines = 'read {"path":"e.txt"}\nedit {"path":"e.txt","old_string":"hello","new_string":"bye"}\n';
    const batch = () => world.lathe(["batch"], { input: lines });
    const refused = JSON.parse((await batch()).stdout.trim().split("\n")[1]!) as { error_text: string };
    expect(refused.error_text).toContain('Writing "e.txt" matched no permission rule');
    const { rules } = suggestionIn(refused.error_text);
    expect(rules).toEqual([{ permission: "edit", pattern: "./e.txt", action: "allow" }]);
    await adopt(rules);
    expect((await batch()).code).toBe(0);
    expect(await readFile(path.join(world.root, "e.txt"), "utf8")).toBe("bye world\n");
  });

  it("a long command is quoted in brief in the reason, and the rule for all of it still works", async () => {
    const command = `echo ${"word ".repeat(100).trim()}`;
    const refused = envelopeOf(await call("bash", { command }));
    const { rules } = suggestionIn(refused.error_text);
    // The reason quotes the command's first 120 characters; the rule holds all of it.
    expect(refused.error_text).toContain(
      `The command "${command.slice(0, 120).trimEnd()} …" matched no permission rule`,
    );
    expect(rules).toEqual([{ permission: "bash", pattern: command, action: "allow" }]);
    await adopt(rules);
    expect(envelopeOf(await call("bash", { command })).type).toBe("output");
  });

  it("for a plugin, the rule it suggests covers its next call with other arguments too", async () => {
    await adopt(suggestionIn(envelopeOf(await call("greet", { name: "Ada" })).error_text).rules);
    const other = envelopeOf(await call("greet", { name: "Grace" }));
    expect(other).toMatchObject({ type: "output" });
    expect(JSON.stringify(other.data)).toContain("Hello, Grace!");
  });
});
