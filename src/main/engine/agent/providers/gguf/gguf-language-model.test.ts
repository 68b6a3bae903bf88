// The embedded runner end to end on the tiny random GGUF in ../shared/models (gibberish by
// design): loading, streaming, grammar-forced tool calls the AI SDK loop runs, abort, and the
// errors a user sees for a wrong path.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { generateText, jsonSchema, stepCountIs, streamText, tool, type JSONSchema7 } from "ai";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelStallError } from "../../model-stall-error.ts";
import { guardAgainstStalls } from "../../stall-guard.ts";
import { createGgufModel, type GgufLanguageModel } from "./gguf-language-model.ts";
import { LlamaRuntime } from "./llama-runtime.ts";

const REPO = fileURLToPath(new URL("../../../../../../", import.meta.url));
const MODEL = path.join(REPO, "..", "shared", "models", "llama-2-tiny-random.gguf");
const haveModel = existsSync(MODEL);
if (!haveModel) {
  console.warn(
    `GGUF tests skipped: ${MODEL} is missing (the test models live in ../shared/models beside the checkout).`,
  );
}

/** Bounded strings, so even a random model closes them and the JSON completes. */
const LOOKUP_SCHEMA: JSONSchema7 = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: 16 },
    kind: { type: "string", enum: ["file", "symbol"] },
    note: { type: "string", maxLength: 8 },
  },
  required: ["query", "kind"],
  additionalProperties: false,
};
type Lookup = { query: string; kind: "file" | "symbol"; note?: string };

const validateLookup = new Ajv().compile(LOOKUP_SCHEMA);

function userPrompt(text: string): LanguageModelV4Prompt {
  return [{ role: "user", content: [{ type: "text", text }] }];
}

async function collect(
  stream: ReadableStream<LanguageModelV4StreamPart>,
): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe.skipIf(!haveModel)("a GGUF file as an AI SDK language model", () => {
  // One thread: the CI machines are small and busy, and spinning threads slow llama.cpp down.
  const runtime = new LlamaRuntime({ maxThreads: 1 });
  let model: GgufLanguageModel;

  beforeAll(async () => {
    model = createGgufModel(MODEL, { runtime, contextSize: 1024, threads: 1 });
    await model.load(); // the first load starts llama.cpp: a second or so
  });

  afterAll(async () => {
    await runtime.dispose();
  });

  it("names itself as the gguf provider with the path it was given", () => {
    expect(model.specificationVersion).toBe("v4");
    expect(model.provider).toBe("gguf");
    expect(model.modelId).toBe(MODEL);
  });

  it("streams text as it is generated and finishes with token usage", async () => {
    const result = streamText({ model, prompt: "Say hello.", maxOutputTokens: 12 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.text).toBe(deltas.join(""));
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeLessThanOrEqual(12);
    expect(["length", "stop"]).toContain(await result.finishReason);
  });

  it("emits stream parts in the specification's order", async () => {
    const { stream } = await model.doStream({ prompt: userPrompt("Count."), maxOutputTokens: 6 });
    const types = (await collect(stream)).map((part) => part.type);
    expect(types.slice(0, 3)).toEqual(["stream-start", "response-metadata", "text-start"]);
    expect(types.at(-2)).toBe("text-end");
    expect(types.at(-1)).toBe("finish");
    expect(types.filter((type) => type === "text-delta").length).toBeGreaterThan(1);
  });

  it("stops at the token limit and says so", async () => {
    const result = await generateText({ model, prompt: "Talk.", maxOutputTokens: 5 });
    expect(result.usage.outputTokens).toBe(5);
    expect(result.finishReason).toBe("length");
  });

  it("reuses the evaluated prompt on the next call of a conversation", async () => {
    const prompt = "Remember the number 42 and keep it in mind.";
    await generateText({ model, prompt, maxOutputTokens: 3 });
    const again = await generateText({ model, prompt, maxOutputTokens: 3 });
    expect(again.usage.inputTokenDetails.cacheReadTokens).toBeGreaterThan(0);
  });

  it("streams a grammar-forced tool call: input deltas, then a call whose input fits the schema", async () => {
    const options: LanguageModelV4CallOptions = {
      prompt: userPrompt("Find the main file."),
      maxOutputTokens: 200,
      tools: [
        { type: "function", name: "lookup", description: "Look something up.", inputSchema: LOOKUP_SCHEMA },
        { type: "function", name: "other", inputSchema: { type: "object", properties: {} } },
      ],
      toolChoice: { type: "tool", toolName: "lookup" },
    };
    const parts = await collect((await model.doStream(options)).stream);
    const start = parts.find((part) => part.type === "tool-input-start");
    const call = parts.find((part) => part.type === "tool-call");
    const finish = parts.find((part) => part.type === "finish");
    expect(start).toMatchObject({ toolName: "lookup" });
    expect(call).toMatchObject({
      toolName: "lookup",
      toolCallId: start?.type === "tool-input-start" ? start.id : "",
    });
    const deltas = parts.flatMap((part) => (part.type === "tool-input-delta" ? [part.delta] : []));
    expect(() => JSON.parse(deltas.join("")) as unknown).not.toThrow();
    expect(parts.map((part) => part.type)).toContain("tool-input-end");
    const input = JSON.parse(call?.type === "tool-call" ? call.input : "null") as unknown;
    expect(validateLookup(input), JSON.stringify(validateLookup.errors)).toBe(true);
    expect(finish).toMatchObject({ finishReason: { unified: "tool-calls" } });
  });

  it("returns the tool call from generateText with an input that validates", async () => {
    const result = await generateText({
      model,
      prompt: "Look up the symbol main.",
      maxOutputTokens: 200,
      tools: {
        lookup: tool({ description: "Look something up.", inputSchema: jsonSchema<Lookup>(LOOKUP_SCHEMA) }),
      },
      toolChoice: "required",
    });
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call?.toolName).toBe("lookup");
    expect(call?.toolCallId).toMatch(/^call_/);
    expect(validateLookup(call?.input), JSON.stringify(validateLookup.errors)).toBe(true);
  });

  // The grammar closes a string at LATHE_GGUF_MAX_STRING whatever the model meant to write: a
  // write call's content cut there was run as it was, the rest of the file lost without a word.
  it("does not run a call whose argument the grammar cut at the string cap: the step ends at a length limit", async () => {
    const capped = createGgufModel(MODEL, { runtime, contextSize: 1024, threads: 1, maxStringLength: 6 });
    const ran: unknown[] = [];
    const result = await generateText({
      model: capped,
      prompt: "Write notes.txt with a long text.",
      maxOutputTokens: 200,
      temperature: 0,
      tools: {
        write: tool({
          inputSchema: jsonSchema<{ path: string; content: string }>({
            type: "object",
            properties: { path: { type: "string" }, content: { type: "string" } },
            required: ["path", "content"],
          }),
          execute: async (input) => {
            ran.push(input);
            return "written";
          },
        }),
      },
      toolChoice: "required",
    });
    const [call] = result.toolCalls;
    const input = call?.input as { path: string; content: string };
    // Greedy sampling on the tiny model runs the strings to the cap.
    expect([input.path.length, input.content.length]).toContain(6);
    expect(result.finishReason).toBe("length");
    expect(ran).toEqual([]);
  });

  it("writes only integers in a tool's range: the grammar lists a small range", async () => {
    const schema: JSONSchema7 = {
      type: "object",
      properties: { count: { type: "integer", minimum: 1, maximum: 3 } },
      required: ["count"],
      additionalProperties: false,
    };
    const counts: unknown[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const result = await generateText({
        model,
        prompt: "Pick a count.",
        maxOutputTokens: 60,
        temperature: 1.5,
        topK: 200,
        seed,
        tools: { pick: tool({ description: "Pick.", inputSchema: jsonSchema<{ count: number }>(schema) }) },
        toolChoice: "required",
      });
      counts.push((result.toolCalls[0]?.input as { count?: unknown } | undefined)?.count);
    }
    for (const count of counts) expect([1, 2, 3]).toContain(count);
  });

  it("lets the AI SDK loop run the tool and hand its result back to the model", async () => {
    const prompts: LanguageModelV4Prompt[] = [];
    const spy: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: {},
      doGenerate: (options) => {
        prompts.push(options.prompt);
        return model.doGenerate(options);
      },
      doStream: (options) => model.doStream(options),
    };
    const executed: Lookup[] = [];
    const result = await generateText({
      model: spy,
      prompt: "Look up the file index.",
      maxOutputTokens: 60,
      tools: {
        lookup: tool({
          inputSchema: jsonSchema<Lookup>(LOOKUP_SCHEMA),
          execute: async (input) => {
            executed.push(input);
            return { found: `${input.kind}:${input.query}` };
          },
        }),
      },
      prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? "required" : "none" }),
      stopWhen: stepCountIs(2),
    });
    expect(executed).toHaveLength(1);
    expect(validateLookup(executed[0])).toBe(true);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({
      found: `${executed[0]?.kind}:${executed[0]?.query}`,
    });
    const secondPrompt = JSON.stringify(prompts[1]);
    expect(secondPrompt).toContain('"role":"tool"');
    expect(secondPrompt).toContain(JSON.stringify(`${executed[0]?.kind}:${executed[0]?.query}`).slice(1, -1));
    expect(result.text.length).toBeGreaterThan(0);
  });

  it("lets the model choose between a bounded answer and a tool call when the choice is auto", async () => {
    const chooser = createGgufModel(MODEL, { runtime, contextSize: 1024, threads: 1, maxAnswerLength: 24 });
    const result = await generateText({
      model: chooser,
      prompt: "Answer or look something up.",
      maxOutputTokens: 200,
      tools: { lookup: tool({ inputSchema: jsonSchema<Lookup>(LOOKUP_SCHEMA) }) },
    });
    if (result.toolCalls.length > 0) {
      expect(result.finishReason).toBe("tool-calls");
      expect(validateLookup(result.toolCalls[0]?.input)).toBe(true);
    } else {
      expect(result.finishReason).toBe("stop");
      expect(result.text.length).toBeLessThanOrEqual(24);
    }
  });

  it("replies in plain text, without the tool grammar, when the tool choice is none", async () => {
    const { stream } = await model.doStream({
      prompt: userPrompt("Just talk."),
      maxOutputTokens: 8,
      tools: [{ type: "function", name: "lookup", inputSchema: LOOKUP_SCHEMA }],
      toolChoice: { type: "none" },
    });
    const parts = await collect(stream);
    expect(parts.some((part) => part.type.startsWith("tool-"))).toBe(false);
    const text = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join("");
    expect(text.trimStart().startsWith('{"')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "length" } });
  });

  it("constrains structured output to the schema and leaves omitted optional fields out", async () => {
    const result = await model.doGenerate({
      prompt: userPrompt("Describe a file as JSON."),
      maxOutputTokens: 200,
      responseFormat: { type: "json", schema: LOOKUP_SCHEMA },
    });
    const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    const value = JSON.parse(text) as Record<string, unknown>;
    expect(validateLookup(value), JSON.stringify(validateLookup.errors)).toBe(true);
    expect(Object.values(value)).not.toContain(null);
  });

  it("stops at a stop sequence", async () => {
    const prompt = "Keep going.";
    const full = await generateText({ model, prompt, maxOutputTokens: 16 });
    const stop = full.text.slice(6, 12);
    expect(stop.trim().length).toBeGreaterThan(0);
    const cut = await generateText({ model, prompt, maxOutputTokens: 16, stopSequences: [stop] });
    expect(cut.text).toBe(full.text.slice(0, full.text.indexOf(stop)));
    expect(cut.finishReason).toBe("stop");
  });

  it("samples the same text for the same seed", async () => {
    const sampled = async (seed: number): Promise<string> =>
      (
        await generateText({
          model,
          prompt: "Pick words.",
          maxOutputTokens: 12,
          temperature: 1.5,
          topK: 200,
          seed,
        })
      ).text;
    const first = await sampled(7);
    expect(await sampled(7)).toBe(first);
    const others = await Promise.all([sampled(8), sampled(9), sampled(10)]);
    expect(others.some((text) => text !== first)).toBe(true);
  });

  it("stops generating promptly on abort and frees the model for the next call", async () => {
    const controller = new AbortController();
    const result = streamText({
      model,
      prompt: "Write forever.",
      maxOutputTokens: 900,
      abortSignal: controller.signal,
    });
    let deltas = 0;
    let abortedAt = 0;
    const types: string[] = [];
    for await (const part of result.stream) {
      types.push(part.type);
      if (part.type === "text-delta" && ++deltas === 3) {
        abortedAt = performance.now();
        controller.abort();
      }
    }
    const stoppedAfter = performance.now() - abortedAt;
    expect(types).toContain("abort");
    expect(types).not.toContain("finish");
    expect(deltas).toBeLessThan(10);
    expect(stoppedAfter).toBeLessThan(2000);
    // The call released its sequence: the next one runs rather than waiting forever.
    const next = await generateText({ model, prompt: "Hello again.", maxOutputTokens: 3 });
    expect(next.usage.outputTokens).toBe(3);
  });

  it("errors the raw stream with the abort reason", async () => {
    const controller = new AbortController();
    const { stream } = await model.doStream({
      prompt: userPrompt("Go on."),
      maxOutputTokens: 900,
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    let deltas = 0;
    const read = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value.type === "text-delta" && ++deltas === 2) controller.abort(new Error("stopped by the user"));
      }
    };
    await expect(read()).rejects.toThrow("stopped by the user");
  });

  it("says what to do when the conversation no longer fits the context, and serves the next call", async () => {
    // A system prompt over the 1024-token context: nothing can be cut to make room.
    const reply = generateText({ model, system: "lathe ".repeat(1500), prompt: "Hi.", maxOutputTokens: 3 });
    await expect(reply).rejects.toMatchObject({
      code: "model_context_full",
      message: expect.stringMatching(
        /^The conversation no longer fits the model's context of 1024 tokens: .* set LATHE_GGUF_CONTEXT_SIZE above 1024 \(this model takes up to 4096\), start a new session/,
      ),
    });
    const next = await generateText({ model, prompt: "Hi.", maxOutputTokens: 3 });
    expect(next.finishReason).toBeDefined();
  });

  it("says what LATHE_GGUF_CONTEXT_SIZE asked for when llama.cpp made a larger context", async () => {
    // Asked for 1 token, llama.cpp makes a context of one whole block: 256 tokens.
    const tiny = createGgufModel(MODEL, { runtime, contextSize: 1, threads: 1 });
    const reply = generateText({
      model: tiny,
      system: "lathe ".repeat(400),
      prompt: "Hi.",
      maxOutputTokens: 3,
    });
    await expect(reply).rejects.toMatchObject({
      code: "model_context_full",
      message: expect.stringMatching(
        /^The conversation no longer fits the model's context of 256 tokens \(LATHE_GGUF_CONTEXT_SIZE is 1; llama\.cpp makes a context of whole blocks of 256 tokens, so it made 256\): .* set LATHE_GGUF_CONTEXT_SIZE above 256 /,
      ),
    });
  });

  // node-llama-cpp's default answer to a conversation over the context is to drop its older
  // turns without a word: a file read into a 1024-token context left the model 20 tokens of
  // conversation (not the user's request, nor the file), and it answered as if nothing was asked.
  it("refuses a tool result bigger than the context instead of dropping the conversation before it", async () => {
    const file = Array.from({ length: 3000 }, (_, i) => `line${i}`).join(" ");
    const prompt: LanguageModelV4Prompt = [
      { role: "system", content: "You are terse." },
      { role: "user", content: [{ type: "text", text: "Read notes.txt and sum it up." }] },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "notes.txt" } }],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: file } },
        ],
      },
    ];
    await expect(model.doGenerate({ prompt, maxOutputTokens: 4 })).rejects.toMatchObject({
      code: "model_context_full",
      message: expect.stringMatching(/^The conversation no longer fits the model's context of 1024 tokens/),
    });
  });

  it("refuses older turns over the context too, so the run can summarise them rather than lose them", async () => {
    const prompt: LanguageModelV4Prompt = [
      { role: "system", content: "You are terse." },
      ...Array.from({ length: 30 }, (_, i): LanguageModelV4Prompt => [
        { role: "user", content: [{ type: "text", text: `Question ${i}: ${"word ".repeat(30)}` }] },
        { role: "assistant", content: [{ type: "text", text: `Answer ${i}: ${"word ".repeat(30)}` }] },
      ]).flat(),
      { role: "user", content: [{ type: "text", text: "And the last question?" }] },
    ];
    await expect(model.doGenerate({ prompt, maxOutputTokens: 4 })).rejects.toMatchObject({
      code: "model_context_full",
    });
    const next = await model.doGenerate({ prompt: userPrompt("Hi."), maxOutputTokens: 3 });
    expect(next.finishReason).toBeDefined();
  });

  it("stops a reply that fills the context, saying so, instead of dropping the conversation under it", async () => {
    // Greedy sampling: the tiny random model writes on without an end-of-text token.
    const small = createGgufModel(MODEL, { runtime, contextSize: 256, threads: 1 });
    const reply = small.doGenerate({
      prompt: userPrompt("Tell a long story."),
      maxOutputTokens: 1000,
      temperature: 0,
    });
    await expect(reply).rejects.toMatchObject({
      code: "model_context_full",
      message: expect.stringMatching(/^The model's reply filled the rest of its context of 256 tokens/),
    });
  });

  it("a call waiting for the model another run is using says so, and the wait counts toward no timeout", async () => {
    // Another run (another tab) has the context's only sequence.
    const other = await runtime.lease(MODEL, { contextSize: 1024, threads: 1 });
    const timeouts = { firstByteMs: 1_500, idleMs: 60_000 };
    const describeModel = { endpoint: "The embedded model", model: MODEL, settingsKey: "providers.gguf" };
    const waits: string[] = [];
    const turnTaking = guardAgainstStalls(model, {
      timeouts,
      describe: describeModel,
      noticeMs: 100,
      onWaiting: (wait) => waits.push(`waiting ${wait.kind}`),
      onResumed: (wait) => waits.push(`resumed ${wait.kind}`),
    }) as LanguageModelV4;
    // Positive control: the same model seen only through doStream (as before) times the wait out.
    const plain: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: {},
      doGenerate: (o) => model.doGenerate(o),
      doStream: (o) => model.doStream(o),
    };
    const control = guardAgainstStalls(plain, { timeouts, describe: describeModel }) as LanguageModelV4;
    const controlFailure = Promise.resolve(
      control.doStream({ prompt: userPrompt("Hi."), maxOutputTokens: 3 }),
    ).catch((e: unknown) => e);
    const waiting = turnTaking.doStream({ prompt: userPrompt("Hi."), maxOutputTokens: 3 });
    expect(ModelStallError.isModelStall(await controlFailure)).toBe(true);
    // The control waited as long as the firstByteMs: the turn-taking call waited as long and lives on.
    expect(waits).toEqual(["waiting model-busy"]);
    other.release();
    const parts = await collect((await waiting).stream);
    expect(parts.at(-1)?.type).toBe("finish");
    expect(parts.some((p) => p.type === "error")).toBe(false);
    expect(waits.slice(0, 2)).toEqual(["waiting model-busy", "resumed model-busy"]);
  });

  it("refuses a call whose signal is already aborted without generating", async () => {
    const { stream } = await model.doStream({ prompt: userPrompt("Hi."), maxOutputTokens: 3 });
    await collect(stream);
    await expect(
      model.doStream({
        prompt: userPrompt("Hi."),
        maxOutputTokens: 3,
        abortSignal: AbortSignal.abort(new Error("too late")),
      }),
    ).rejects.toThrow("too late");
  });
});

describe.skipIf(!haveModel)("loading a GGUF that is not there or not right", () => {
  const runtime = new LlamaRuntime({ maxThreads: 1 });
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-gguf-"));
    await writeFile(path.join(dir, "notes.gguf"), "these are notes, not a model\n");
    await mkdir(path.join(dir, "folder.gguf"));
    // The first 300 KB of a real model: the header is right, the rest is missing.
    const source = await open(MODEL, "r");
    const { buffer, bytesRead } = await source.read(Buffer.alloc(300_000), 0, 300_000, 0);
    await source.close();
    await writeFile(path.join(dir, "truncated.gguf"), buffer.subarray(0, bytesRead));
  });

  afterAll(async () => {
    await runtime.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const cases: [string, string, RegExp][] = [
    ["a missing file", "missing.gguf", /^No GGUF file at .*missing\.gguf: check the path after "gguf:"/],
    ["a folder", "folder.gguf", /folder\.gguf is a folder: name the \.gguf file inside it/],
    [
      "a file that is not a GGUF",
      "notes.gguf",
      /notes\.gguf is not a GGUF model \(it does not start with "GGUF"\)/,
    ],
    [
      "a truncated GGUF",
      "truncated.gguf",
      /truncated\.gguf is truncated, not a complete GGUF file: it has 300,000 bytes, .* download the model again\.$/,
    ],
  ];
  for (const [name, file, message] of cases) {
    it(`says what is wrong with ${name}`, async () => {
      const model = createGgufModel(path.join(dir, file), { runtime, contextSize: 256, threads: 1 });
      await expect(model.load()).rejects.toMatchObject({
        code: "model_unavailable",
        message: expect.stringMatching(message),
      });
    });
  }

  it("fails the AI SDK call with the same message", async () => {
    const model = createGgufModel(path.join(dir, "missing.gguf"), { runtime });
    await expect(generateText({ model, prompt: "Hi." })).rejects.toThrow(/No GGUF file at/);
  });
});
