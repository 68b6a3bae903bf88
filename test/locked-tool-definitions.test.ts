// The locked tools' model-facing definitions were shortened to save prompt tokens. No model runs
// offline here, so tool-call accuracy is measured by a deterministic proxy, asserted below so a
// later edit cannot quietly drop what a model needs:
//  - every required fact (test/support/locked-tool-facts.ts) is still stated, and
//  - every prompt of the tool-call corpus (test/support/tool-call-corpus.ts) is still supported:
//    its expected call is valid, names only parameters the model is shown, and every fact it
//    needs is stated.
// Both hold for the definitions before shortening too (test/fixtures/…-before.json), which is
// where the facts were taken from; the positive controls show each check fails when it should.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAgent } from "../src/main/engine/agent/default-agent.ts";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import { Engine } from "../src/main/engine/engine.ts";
import { LOCKED_TOOL_IDS } from "../src/main/engine/tools/locked-tools.ts";
import { modelSchema } from "../src/main/engine/tools/model-schema.ts";
import { missingFacts, REQUIRED_FACTS, type ModelFacingDefinition } from "./support/locked-tool-facts.ts";
import { startOpenAICompatibleServer } from "./fixtures/openai-compatible-server.ts";
import { corpusProblems, TOOL_CALL_CORPUS, type ProxyTool } from "./support/tool-call-corpus.ts";

const BEFORE = JSON.parse(
  readFileSync(new URL("./fixtures/locked-tool-definitions-before.json", import.meta.url), "utf8"),
) as { tools: ModelFacingDefinition[] };
const before: ProxyTool[] = BEFORE.tools.map((t) => ({ shown: t, validation: t.parameters }));

let base: string;
let engine: Engine;
let now: ProxyTool[];

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-definitions-"));
  engine = await Engine.create({ root: base, latheHome: path.join(base, "home"), extensions: false });
  now = engine.registry
    .all()
    .filter((e) => LOCKED_TOOL_IDS.has(e.tool.id))
    .map(({ tool }) => ({
      shown: { id: tool.id, description: tool.description, parameters: modelSchema(tool.parameters) },
      validation: tool.parameters,
    }));
});
afterAll(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

const shown = (tools: ProxyTool[]): ModelFacingDefinition[] => tools.map((t) => t.shown);

/** The same tools with one tool's description (and schema words) rewritten. */
function rewrite(tools: ProxyTool[], id: string, edit: (text: string) => string): ProxyTool[] {
  return tools.map((t) =>
    t.shown.id !== id
      ? t
      : {
          ...t,
          shown: {
            ...t.shown,
            description: edit(t.shown.description),
            parameters: JSON.parse(edit(JSON.stringify(t.shown.parameters))) as Record<string, unknown>,
          },
        },
  );
}

describe("what the provider sends", () => {
  it("is exactly the definitions checked here: the OpenAI-compatible client sends each locked tool's description and compact schema", async () => {
    const fixture = await startOpenAICompatibleServer({ replies: [{ text: "ok" }] });
    try {
      const model = await defaultProviderRegistry().resolve("openai-compatible:m", {
        providers: { "openai-compatible": { baseURL: fixture.baseURL } },
      });
      await runAgent({ engine, agent: defaultAgent(), model, prompt: "hello", persist: false });
      const sent = new Map((fixture.requests[0]?.tools ?? []).map((t) => [t.function.name, t.function]));
      for (const { shown } of now) {
        if (shown.id === "tool_search") continue; // shown only once something is deferred
        expect(sent.get(shown.id), shown.id).toEqual({
          name: shown.id,
          description: shown.description,
          parameters: shown.parameters,
        });
        expect(JSON.stringify(shown.parameters)).not.toContain('"additionalProperties":false');
      }
    } finally {
      await fixture.close();
    }
  });
});

describe("required facts of the locked tools", () => {
  it("name every locked tool, with ids that are unique", () => {
    expect(new Set(REQUIRED_FACTS.map((f) => f.tool))).toEqual(new Set(LOCKED_TOOL_IDS));
    expect(new Set(REQUIRED_FACTS.map((f) => f.id)).size).toBe(REQUIRED_FACTS.length);
    expect(now.map((t) => t.shown.id).sort()).toEqual([...LOCKED_TOOL_IDS].sort());
  });

  it.each(REQUIRED_FACTS.map((f) => [f.id, f.fact, f] as const))("%s is stated: %s", (_id, _fact, fact) => {
    expect(missingFacts(shown(now)).map((f) => f.id)).not.toContain(fact.id);
  });

  it("were all stated by the definitions before they were shortened (where they were taken from)", () => {
    expect(missingFacts(shown(before)).map((f) => f.id)).toEqual([]);
  });

  it.each([
    ["edit.unique", "edit", (t: string) => t.replace(/exactly once/g, "once")],
    [
      "read.before-change",
      "read",
      (t: string) => t.replace(/Read a file before you change it: write and edit refuse[^.]*\./, ""),
    ],
    ["bash.timeout", "bash", (t: string) => t.replace(/600000/g, "60000")],
    ["todo.replaces", "todo", (t: string) => t.replace(/replaces/g, "updates")],
  ])("positive control: rewording %s away is caught", (id, tool, edit) => {
    expect(missingFacts(shown(rewrite(now, tool, edit))).map((f) => f.id)).toContain(id);
  });
});

describe("tool-call corpus (offline accuracy proxy)", () => {
  it("holds at least 60 prompts over every locked tool, each needing facts that exist", () => {
    expect(TOOL_CALL_CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(TOOL_CALL_CORPUS.map((c) => c.tool))).toEqual(new Set(LOCKED_TOOL_IDS));
    const ids = new Set(REQUIRED_FACTS.map((f) => f.id));
    for (const call of TOOL_CALL_CORPUS) {
      expect(call.needs.length, call.prompt).toBeGreaterThan(0);
      for (const need of call.needs) expect(ids, `${call.prompt}: ${need}`).toContain(need);
    }
  });

  it.each(TOOL_CALL_CORPUS.map((c) => [c.tool, c.prompt, c] as const))(
    "%s: %s — supported by the current definitions",
    (_tool, _prompt, call) => {
      expect(corpusProblems(now).get(call)).toEqual([]);
    },
  );

  it("was fully supported by the definitions before they were shortened", () => {
    const unsupported = [...corpusProblems(before)].filter(([, p]) => p.length > 0);
    expect(unsupported.map(([c, p]) => `${c.prompt}: ${p.join("; ")}`)).toEqual([]);
  });

  it("positive control: a dropped fact, an undeclared parameter or an invalid call each lose their prompts", () => {
    const noReplaceAll = rewrite(now, "edit", (t) => t.replace(/replace_all/g, "replace_every"));
    const lost = [...corpusProblems(noReplaceAll)]
      .filter(([, p]) => p.length > 0)
      .map(([c, p]) => [c.prompt, p]);
    expect(lost).toContainEqual([
      "Rename fetchUser to loadUser everywhere in src/api.ts (already read)",
      expect.arrayContaining(["replace_all is not declared", "fact edit.replace-all is not stated"]),
    ]);
    const noTimeout = now.map((t) =>
      t.shown.id !== "bash"
        ? t
        : {
            ...t,
            validation: {
              ...t.validation,
              properties: { command: { type: "string" } },
              additionalProperties: false,
            },
          },
    );
    const build = TOOL_CALL_CORPUS.find((c) => c.args["timeout_ms"] !== undefined)!;
    expect(corpusProblems(noTimeout).get(build)!.join(" ")).toMatch(/timeout_ms/);
  });
});
