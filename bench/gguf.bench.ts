// The embedded GGUF runner on the tiny random model in ../shared/models: what a call through the
// AI SDK adapter (prompt conversion, stream parts, usage) costs over node-llama-cpp's LlamaChat
// called directly with the same history and limits, for plain text and for a grammar-forced
// tool call. Goal: at most 5 ms (or 10%) added per call at the median; the machine's noise is of
// that order, so the two are timed interleaved. Also prints the one-off start
// (llama.cpp + model load). Run alone with `node bench/gguf.bench.ts`.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { LlamaChat } from "node-llama-cpp";
import { toChatPrompt } from "../src/main/engine/agent/providers/gguf/chat-prompt.ts";
import { createGgufModel } from "../src/main/engine/agent/providers/gguf/gguf-language-model.ts";
import { LlamaRuntime } from "../src/main/engine/agent/providers/gguf/llama-runtime.ts";
import { planToolReply } from "../src/main/engine/agent/providers/gguf/tool-call-grammar.ts";
import { compare, fmtMs, heading, median, sample, skipped } from "./lib/report.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL = path.join(here, "..", "..", "shared", "models", "llama-2-tiny-random.gguf");
const RUNS = 21;
const TOKENS = 24;
const GOAL_MS = 5;

heading("Embedded GGUF (node-llama-cpp, tiny random model, 1 thread)");
if (!existsSync(MODEL)) {
  skipped("GGUF adapter overhead", `${MODEL} is missing`);
  process.exit(0);
}

const runtime = new LlamaRuntime({ maxThreads: 1 });
const start = performance.now();
await runtime.llama();
const started = performance.now();
const model = createGgufModel(MODEL, { runtime, contextSize: 1024, threads: 1 });
await model.load();
console.log(`start: llama.cpp ${fmtMs(started - start)}, model load ${fmtMs(performance.now() - started)}`);

const llamaModel = await runtime.model(MODEL);
const context = await llamaModel.createContext({ contextSize: 1024, threads: 1 });
const direct = new LlamaChat({ contextSequence: context.getSequence() });

const textCall: LanguageModelV4CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: "Tell me about the files here." }] }],
  maxOutputTokens: TOKENS,
};
const toolCall: LanguageModelV4CallOptions = {
  ...textCall,
  maxOutputTokens: 200,
  tools: [
    {
      type: "function",
      name: "lookup",
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, maxLength: 16 },
          kind: { enum: ["file", "symbol"] },
        },
        required: ["query", "kind"],
      },
    },
  ],
  toolChoice: { type: "required" },
};

async function measure(what: string, call: LanguageModelV4CallOptions): Promise<void> {
  const plan = planToolReply(
    (call.tools ?? []).flatMap((tool) => (tool.type === "function" ? [tool] : [])),
    call.toolChoice,
    { maxStringLength: 32_768, maxAnswerLength: 32_768 },
  );
  const { history } = toChatPrompt(call.prompt, plan?.instructions);
  const grammar = plan ? await runtime.grammar(plan.schema) : undefined;
  let outputTokens = 0;
  const ours: number[] = [];
  const theirs: number[] = [];
  // Interleaved, so a busy moment on the machine lands on both sides alike.
  for (let run = 0; run < RUNS; run++) {
    ours.push(
      ...(await sample(async () => {
        const { usage } = await model.doGenerate(call);
        outputTokens = usage.outputTokens.total ?? 0;
      }, 1)),
    );
    theirs.push(
      ...(await sample(
        () =>
          direct.generateResponse(history, {
            maxTokens: call.maxOutputTokens ?? TOKENS,
            ...(grammar ? { grammar } : {}),
          }),
        1,
      )),
    );
  }
  const added = median(ours) - median(theirs);
  compare({
    what: `${what} (${outputTokens} tokens)`,
    ours: { label: "adapter", value: median(ours) },
    theirs: { label: "LlamaChat direct", value: median(theirs) },
    goal: `≤ ${GOAL_MS} ms or 10% added (added ${fmtMs(added)})`,
    met: added <= GOAL_MS || median(ours) <= median(theirs) * 1.1,
  });
}

await measure("text call", textCall);
await measure("forced tool call", toolCall);

direct.dispose();
await context.dispose();
await runtime.dispose();
