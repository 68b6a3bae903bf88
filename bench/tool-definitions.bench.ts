// The locked tools' model-facing definitions: what each costs in prompt tokens now against what it
// cost before they were shortened (test/fixtures/locked-tool-definitions-before.json, commit
// d6152f1, as the model was shown them then), and the offline tool-call accuracy proxy before and
// after. No model runs here (the only local model has random weights), so accuracy is measured
// as the information a correct call depends on:
//  - required facts kept: the instructions in test/support/locked-tool-facts.ts (read before
//    write, exactly one match, one command per fresh shell, limits, what to do past them…)
//    still stated by the definitions the model receives;
//  - corpus calls supported: of the task prompts in test/support/tool-call-corpus.ts, those whose
//    expected call is valid against the tool's schema, names only parameters the model is shown,
//    and needs only facts that are stated.
// Goal: fewer tokens with nothing lost (100% of both). Tokens are the engine's estimate (one per
// four characters of the JSON sent), cross-checked with the Llama-2 tokenizer when
// ../shared/models is there. Run alone with `node bench/tool-definitions.bench.ts`.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Engine } from "../src/main/engine/engine.ts";
import { LOCKED_TOOL_IDS } from "../src/main/engine/tools/locked-tools.ts";
import { modelSchema } from "../src/main/engine/tools/model-schema.ts";
import { tokensForChars } from "../src/main/engine/tools/token-estimate.ts";
import {
  missingFacts,
  REQUIRED_FACTS,
  type ModelFacingDefinition,
} from "../test/support/locked-tool-facts.ts";
import { corpusProblems, TOOL_CALL_CORPUS, type ProxyTool } from "../test/support/tool-call-corpus.ts";
import { definitionParts, totalChars } from "./lib/definition-parts.ts";
import { llamaTokenCounter } from "./lib/llama-tokenizer.ts";
import { compare, heading, skipped } from "./lib/report.ts";

const BEFORE_FILE = new URL("../test/fixtures/locked-tool-definitions-before.json", import.meta.url);
const before: ProxyTool[] = (
  JSON.parse(readFileSync(BEFORE_FILE, "utf8")) as { tools: ModelFacingDefinition[] }
).tools.map((t) => ({ shown: t, validation: t.parameters }));

const base = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-definitions-"));
try {
  const engine = await Engine.create({ root: base, latheHome: path.join(base, "home"), extensions: false });
  const now: ProxyTool[] = engine.registry
    .all()
    .filter((e) => LOCKED_TOOL_IDS.has(e.tool.id))
    .map(({ tool }) => ({
      shown: { id: tool.id, description: tool.description, parameters: modelSchema(tool.parameters) },
      validation: tool.parameters,
    }));
  await engine.close();

  const sent = (d: ModelFacingDefinition): string =>
    JSON.stringify({ name: d.id, description: d.description, parameters: d.parameters });
  const tokens = (d: ModelFacingDefinition) => {
    const parts = definitionParts(d.id, d.description, d.parameters);
    const schema = totalChars(parts) - parts.name - parts.description;
    return {
      total: tokensForChars(sent(d).length),
      description: tokensForChars(parts.description),
      schema: tokensForChars(schema),
    };
  };
  const missingNow = missingFacts(now.map((t) => t.shown));
  const missingBefore = missingFacts(before.map((t) => t.shown));

  heading(
    "Locked tools, one definition each as the model receives it (estimated tokens: description + schema)",
  );
  console.log(
    `${"tool".padEnd(12)} ${"before".padStart(16)} ${"now".padStart(16)}  ${"fewer".padStart(6)}  facts kept`,
  );
  let sumBefore = 0;
  let sumNow = 0;
  for (const id of [...LOCKED_TOOL_IDS]) {
    const b = tokens(before.find((t) => t.shown.id === id)!.shown);
    const n = tokens(now.find((t) => t.shown.id === id)!.shown);
    sumBefore += b.total;
    sumNow += n.total;
    const facts = REQUIRED_FACTS.filter((f) => f.tool === id);
    const kept = facts.filter((f) => !missingNow.includes(f));
    const cell = (t: typeof b) => `${t.total} (${t.description}+${t.schema})`.padStart(16);
    console.log(
      `${id.padEnd(12)} ${cell(b)} ${cell(n)}  ${`${(100 * (1 - n.total / b.total)).toFixed(0)}%`.padStart(6)}  ${kept.length}/${facts.length}`,
    );
  }
  compare({
    what: "all 13 locked tools",
    ours: { label: "now", value: sumNow, unit: "tokens" },
    theirs: { label: "before", value: sumBefore, unit: "tokens" },
    goal: `fewer tokens, every required fact kept (${(100 * (1 - sumNow / sumBefore)).toFixed(1)}% fewer)`,
    met: sumNow < sumBefore && missingNow.length === 0,
  });

  const llama = await llamaTokenCounter();
  if ("missing" in llama) skipped("Llama-2 tokenizer cross-check", llama.missing);
  else {
    const count = (tools: ProxyTool[]) => tools.reduce((sum, t) => sum + llama.count(sent(t.shown)), 0);
    compare({
      what: "the same, counted by the Llama-2 tokenizer",
      ours: { label: "now", value: count(now), unit: "tokens" },
      theirs: { label: "before", value: count(before), unit: "tokens" },
    });
    await llama.dispose();
  }

  heading("Offline tool-call accuracy proxy (no model: the information each correct call depends on)");
  const pctFacts = (missing: number) => (100 * (REQUIRED_FACTS.length - missing)) / REQUIRED_FACTS.length;
  compare({
    what: `required facts kept (${REQUIRED_FACTS.length} facts)`,
    ours: { label: "now", value: pctFacts(missingNow.length), unit: "%" },
    theirs: { label: "before", value: pctFacts(missingBefore.length), unit: "%" },
    goal: "100%",
    met: missingNow.length === 0,
  });
  for (const f of missingNow) console.log(`  not stated now: ${f.id} — ${f.fact}`);
  const supported = (tools: ProxyTool[]) => {
    const problems = [...corpusProblems(tools)];
    return { ok: problems.filter(([, p]) => p.length === 0).length, problems };
  };
  const sNow = supported(now);
  const sBefore = supported(before);
  const pctCorpus = (ok: number) => (100 * ok) / TOOL_CALL_CORPUS.length;
  compare({
    what: `corpus calls supported (${TOOL_CALL_CORPUS.length} task prompts over the 13 tools)`,
    ours: { label: "now", value: pctCorpus(sNow.ok), unit: "%" },
    theirs: { label: "before", value: pctCorpus(sBefore.ok), unit: "%" },
    goal: "100%, no prompt lost",
    met: sNow.ok === TOOL_CALL_CORPUS.length,
  });
  for (const [call, problems] of sNow.problems) {
    if (problems.length > 0) console.log(`  unsupported now: "${call.prompt}" — ${problems.join("; ")}`);
  }
} finally {
  await rm(base, { recursive: true, force: true });
}
